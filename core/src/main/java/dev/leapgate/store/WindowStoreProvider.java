package dev.leapgate.store;

/**
 * Opens a {@link WindowStore} for the URIs it knows, found at start with {@link
 * java.util.ServiceLoader}: a store module on the class path (or module path) and a {@code store}
 * setting are all an application needs.
 */
public interface WindowStoreProvider {

    /** Whether this provider opens stores at URIs of this scheme, e.g. {@code redis}. */
    boolean supports(String scheme);

    /**
     * Opens a store. It need not be reachable yet: decisions fail (and the failure policy applies)
     * until it is. A store may wait a short, bounded time for its connection, so that the first
     * decisions after a start are its own; it should not wait when the connection is refused.
     *
     * @throws IllegalArgumentException if the settings are not valid for this store, naming them
     */
    WindowStore open(StoreSettings settings);
}
