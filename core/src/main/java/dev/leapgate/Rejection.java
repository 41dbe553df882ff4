package dev.leapgate;

import java.time.Duration;
import java.util.Objects;

/**
 * A request that was not admitted.
 *
 * @param rule the name of the limit that rejected the request
 * @param limit that limit's maximum (permits per window, or requests in flight)
 * @param remaining permits left under that limit when the request was rejected
 * @param retryAfter how long until a retry could succeed if nothing else were admitted
 *     meanwhile; {@link Duration#ZERO} when unknown ahead of time (a concurrency limit frees a
 *     slot whenever a request completes)
 */
public record Rejection(String rule, long limit, long remaining, Duration retryAfter) implements Decision {

    public Rejection {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
        }
    }

    @Override
    public boolean admitted() {
        return false;
    }
}
