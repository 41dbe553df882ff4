package dev.leapgate;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A request that was not admitted.
 *
 * @param rule the name of the rule that rejected the request
 * @param reason why, in a few words, for logs and response bodies
 * @param quota where the request stood against that rule; {@code null} for a rejection that no
 *     quota describes (a denied origin)
 * @param retryAfter how long until a retry could succeed if nothing else were admitted
 *     meanwhile; {@link Duration#ZERO} when unknown ahead of time (a concurrency limit frees a
 *     slot whenever a request completes)
 */
public record Rejection(String rule, String reason, Quota quota, Duration retryAfter) implements Decision {

    public Rejection {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
        }
    }

    @Override
    public boolean admitted() {
        return false;
    }

    @Override
    public List<Quota> quotas() {
        return quota == null ? List.of() : List.of(quota);
    }
}
