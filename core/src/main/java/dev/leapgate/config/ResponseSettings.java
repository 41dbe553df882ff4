package dev.leapgate.config;

import java.util.Objects;

/**
 * How a rejected request is answered.
 *
 * @param status the status code of a request over a limit, 400 to 599; 429 (RFC 6585) by default
 * @param denyStatus the status code of a request from a denied origin, 400 to 599; 403 by default.
 *     A denied origin is not told to retry: its response has no {@code Retry-After} and no
 *     rate-limit fields
 * @param headers when the {@code RateLimit} header fields are sent
 * @param problemBody whether a rejection carries an RFC 9457 {@code application/problem+json}
 *     body; otherwise the body is empty
 */
public record ResponseSettings(int status, int denyStatus, RateLimitHeaders headers, boolean problemBody) {

    public static final int DEFAULT_STATUS = 429;
    public static final int DEFAULT_DENY_STATUS = 403;

    private static final ResponseSettings DEFAULTS =
            new ResponseSettings(DEFAULT_STATUS, DEFAULT_DENY_STATUS, RateLimitHeaders.ALL, true);

    public ResponseSettings {
        // A 2xx or 3xx rejection would be cached or followed as if it were the real answer.
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("status must be between 400 and 599, was " + status);
        }
        if (denyStatus < 400 || denyStatus > 599) {
            throw new IllegalArgumentException("deny-status must be between 400 and 599, was " + denyStatus);
        }
        Objects.requireNonNull(headers, "headers");
    }

    /** Status 429 (403 for a denied origin), all rate-limit headers, a problem body. */
    public static ResponseSettings defaults() {
        return DEFAULTS;
    }
}
