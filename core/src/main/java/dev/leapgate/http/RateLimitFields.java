package dev.leapgate.http;

import dev.leapgate.Quota;
import java.time.Duration;
import java.util.List;

/**
 * The values of the rate-limit response header fields, as both adapters send them.
 *
 * <ul>
 *   <li>{@code Retry-After} (RFC 9110): whole seconds, rounded up, at least 1.
 *   <li>{@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers-11):
 *       Structured Field lists with one item per rule that applied, the policy name a quoted
 *       string: {@code RateLimit-Policy: "per-ip";q=100;w=10} and {@code RateLimit:
 *       "per-ip";r=0;t=7}. {@code q} is the quota, {@code w} the window in seconds (rounded up),
 *       {@code r} what remains, {@code t} seconds until the quota is whole again (rounded up). An
 *       in-flight limit is {@code "slots";q=20;qu="concurrent-requests"} with no window, and no
 *       {@code t}.
 * </ul>
 *
 * Rule names are restricted to letters, digits, {@code -} and {@code _}, so they never need
 * escaping inside a quoted string.
 */
public final class RateLimitFields {

    public static final String RETRY_AFTER = "Retry-After";
    public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    public static final String RATE_LIMIT = "RateLimit";

    private RateLimitFields() {}

    /** Whole seconds, rounded up, at least 1: a client that waits that long may succeed. */
    public static long retryAfterSeconds(Duration retryAfter) {
        return Math.max(1, ceilSeconds(retryAfter));
    }

    /** The {@code RateLimit-Policy} value for these quotas; empty for none. */
    public static String policy(List<Quota> quotas) {
        StringBuilder value = new StringBuilder();
        for (Quota quota : quotas) {
            if (value.length() > 0) {
                value.append(", ");
            }
            value.append('"').append(quota.rule()).append("\";q=").append(quota.limit());
            if (quota.isInFlight()) {
                value.append(";qu=\"concurrent-requests\"");
            } else {
                value.append(";w=").append(Math.max(1, ceilSeconds(quota.window())));
            }
        }
        return value.toString();
    }

    /** The {@code RateLimit} value for these quotas; empty for none. */
    public static String rateLimit(List<Quota> quotas) {
        StringBuilder value = new StringBuilder();
        for (Quota quota : quotas) {
            if (value.length() > 0) {
                value.append(", ");
            }
            value.append('"').append(quota.rule()).append("\";r=").append(quota.remaining());
            if (!quota.isInFlight()) {
                value.append(";t=").append(ceilSeconds(quota.reset()));
            }
        }
        return value.toString();
    }

    private static long ceilSeconds(Duration d) {
        long seconds = d.getSeconds();
        return d.getNano() > 0 ? seconds + 1 : seconds;
    }
}
