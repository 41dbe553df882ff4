package dev.leapgate.testing;

import dev.leapgate.store.SharedWindow;
import dev.leapgate.store.StoreSettings;
import dev.leapgate.store.Verdict;
import dev.leapgate.store.WindowStore;
import dev.leapgate.store.WindowStoreProvider;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A shared store for the scheme {@code recording://} that decides nothing (every call fails, so
 * the failure policy decides) and records the stores it opened, to tell whether an adapter (the
 * servlet filter, the JAX-RS provider) closes what it opened. Found by the {@code ServiceLoader}
 * through core's test resources, which the adapters' tests share.
 */
public final class RecordingStoreProvider implements WindowStoreProvider {

    /** The stores opened, in order. */
    public static final List<Store> OPENED = new CopyOnWriteArrayList<>();

    @Override
    public boolean supports(String scheme) {
        return scheme.equals("recording");
    }

    @Override
    public WindowStore open(StoreSettings settings) {
        Store store = new Store();
        OPENED.add(store);
        return store;
    }

    public static final class Store implements WindowStore {
        public volatile boolean closed;

        @Override
        public CompletionStage<Verdict> tryAcquire(SharedWindow window, String key, int permits) {
            return CompletableFuture.failedFuture(new IllegalStateException("a store that decides nothing"));
        }

        @Override
        public void refund(SharedWindow window, String key, long bucket, int permits) {}

        @Override
        public int instances() {
            return 1;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
