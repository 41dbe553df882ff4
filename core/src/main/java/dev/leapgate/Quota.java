package dev.leapgate;

import java.time.Duration;
import java.util.Objects;

/**
 * Where a request stands against one rule, as the IETF {@code RateLimit-Policy} and {@code
 * RateLimit} header fields report it.
 *
 * @param rule the rule's name (the policy name in the headers)
 * @param limit the rule's quota: permits per window, or requests in flight
 * @param window the rule's window; {@code null} for an in-flight limit
 * @param remaining permits left under the rule after this decision
 * @param reset how long until the quota is whole again: everything counted when the decision was
 *     made has left the window; {@link Duration#ZERO} when nothing is counted or for an in-flight
 *     limit. For a paced or warm-up rule, {@code remaining} is how many more requests its schedule
 *     would admit now (within {@code max-queue}; 0 when the next would be rejected) and {@code
 *     reset} the time until its schedule is free. A rejection by a window in a shared store
 *     reports when the next request would be admitted, which may come before the window is whole
 *     again (the store answers with that time alone)
 */
public record Quota(String rule, long limit, Duration window, long remaining, Duration reset) {

    public Quota {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(reset, "reset");
        if (remaining < 0) {
            throw new IllegalArgumentException("remaining must not be negative, was " + remaining);
        }
    }

    /** Whether the quota counts requests in flight rather than requests per window. */
    public boolean isInFlight() {
        return window == null;
    }
}
