/**
 * Where rate windows live when several instances share them: the service-provider interface a
 * shared store implements ({@link dev.leapgate.store.WindowStore}, found at start through {@link
 * dev.leapgate.store.WindowStoreProvider}), and the settings that choose one ({@link
 * dev.leapgate.store.StoreSettings}). {@code leapgate-redis} is the implementation that ships;
 * applications only configure it ({@code store = redis://...}).
 */
package dev.leapgate.store;
