package dev.leapgate.store;

/**
 * What a shared rule does while its store cannot decide (down, too slow for the time budget, or
 * its circuit breaker open).
 */
public enum FailurePolicy {
    /**
     * Each instance enforces its share of the limit in its own window: {@code ceil(N / instances)},
     * per client for a per-client rule. Across {@code k} instances at most about N pass, as when
     * shared, provided the load balancer spreads clients evenly. The default.
     */
    LOCAL_SHARE,
    /** Every request the rule would decide passes. Availability first; protection is off meanwhile. */
    OPEN,
    /** Every request the rule would decide is rejected (reason {@code shared store unavailable}). */
    CLOSED
}
