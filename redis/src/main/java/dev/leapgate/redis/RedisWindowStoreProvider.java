package dev.leapgate.redis;

import dev.leapgate.store.StoreSettings;
import dev.leapgate.store.WindowStore;
import dev.leapgate.store.WindowStoreProvider;
import java.util.Set;

/**
 * Opens a {@link RedisWindowStore} for {@code redis://}, {@code rediss://} (TLS), {@code
 * redis-sentinel://}, {@code rediss-sentinel://} and {@code redis-cluster://} / {@code
 * rediss-cluster://} (a Redis Cluster, from one or more seed nodes) URIs. Found by {@link
 * java.util.ServiceLoader}: {@code leapgate-redis} on the class path and a {@code store} setting are
 * all an application needs.
 */
public final class RedisWindowStoreProvider implements WindowStoreProvider {

    static final Set<String> SCHEMES =
            Set.of("redis", "rediss", "redis-sentinel", "rediss-sentinel", "redis-cluster", "rediss-cluster");

    @Override
    public boolean supports(String scheme) {
        return SCHEMES.contains(scheme);
    }

    @Override
    public WindowStore open(StoreSettings settings) {
        return RedisWindowStore.open(settings);
    }
}
