package dev.leapgate.config;

import java.util.Objects;

/**
 * How a rejected request is answered.
 *
 * @param status the status code of a rejection, 400 to 599; 429 (RFC 6585) by default
 * @param headers when the {@code RateLimit} header fields are sent
 * @param problemBody whether a rejection carries an RFC 9457 {@code application/problem+json}
 *     body; otherwise the body is empty
 */
public record ResponseSettings(int status, RateLimitHeaders headers, boolean problemBody) {

    public static final int DEFAULT_STATUS = 429;

    private static final ResponseSettings DEFAULTS = new ResponseSettings(DEFAULT_STATUS, RateLimitHeaders.ALL, true);

    public ResponseSettings {
        // A 2xx or 3xx rejection would be cached or followed as if it were the real answer.
        if (status < 400 || status > 599) {
            throw new IllegalArgumentException("status must be between 400 and 599, was " + status);
        }
        Objects.requireNonNull(headers, "headers");
    }

    /** Status 429, all rate-limit headers, a problem body. */
    public static ResponseSettings defaults() {
        return DEFAULTS;
    }
}
