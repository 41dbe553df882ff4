package dev.leapgate;

import dev.leapgate.internal.DurationText;
import dev.leapgate.internal.RuleName;
import java.time.Duration;
import java.util.Objects;

/**
 * Where a request stands against one rule, as the IETF {@code RateLimit-Policy} and {@code
 * RateLimit} header fields report it.
 *
 * <p>Every value is checked, as a rule's are: the name is written into the headers as it is, so a
 * quota made by hand (to pass to {@link dev.leapgate.http.RateLimitFields}) takes only the names a
 * rule takes.
 *
 * @param rule the rule's name (the policy name in the headers): 1 to 64 letters, digits, {@code -}
 *     or {@code _}, as a {@link dev.leapgate.rule.FlowRule rule's}
 * @param limit the rule's quota: permits per window, or requests in flight; 1 to {@link #MAX_NUMBER}
 * @param window the rule's window, positive; {@code null} for an in-flight limit
 * @param remaining permits left under the rule after this decision; 0 to {@link #MAX_NUMBER}
 * @param reset not negative: how long until the quota is whole again: everything counted when the decision was
 *     made has left the window; {@link Duration#ZERO} when nothing is counted or for an in-flight
 *     limit. For a paced or warm-up rule, {@code remaining} is how many more requests its schedule
 *     would admit now (within {@code max-queue}; 0 when the next would be rejected) and {@code
 *     reset} the time until its schedule is free. A rejection by a window in a shared store
 *     reports when the next request would be admitted, which may come before the window is whole
 *     again (the store answers with that time alone)
 */
public record Quota(String rule, long limit, Duration window, long remaining, Duration reset) {

    /**
     * The largest {@code limit} and {@code remaining}: a Structured Field integer has at most 15
     * digits (RFC 9651), and a client's parser refuses the whole field with a longer one.
     */
    public static final long MAX_NUMBER = 999_999_999_999_999L;

    public Quota {
        RuleName.checked(Objects.requireNonNull(rule, "rule"));
        Objects.requireNonNull(reset, "reset");
        // The rule's name is only concatenated when a check fails: Leapgate makes a quota for each
        // response that carries the fields, from values its rules have checked already.
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit + " (rule '" + rule + "')");
        }
        if (window != null && (window.isZero() || window.isNegative())) {
            throw new IllegalArgumentException("window must be positive (null for an in-flight limit), was "
                    + DurationText.format(window) + " (rule '" + rule + "')");
        }
        if (limit > MAX_NUMBER) {
            throw new IllegalArgumentException("limit must be at most " + MAX_NUMBER
                    + " (15 digits, a header field's largest integer), was " + limit + " (rule '" + rule + "')");
        }
        if (remaining < 0 || remaining > MAX_NUMBER) {
            throw new IllegalArgumentException("remaining must be 0 to " + MAX_NUMBER
                    + " (15 digits, a header field's largest integer), was " + remaining + " (rule '" + rule + "')");
        }
        if (reset.isNegative()) {
            throw new IllegalArgumentException(
                    "reset must not be negative, was " + DurationText.format(reset) + " (rule '" + rule + "')");
        }
    }

    /** Whether the quota counts requests in flight rather than requests per window. */
    public boolean isInFlight() {
        return window == null;
    }
}
