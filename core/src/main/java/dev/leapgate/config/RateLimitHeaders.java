package dev.leapgate.config;

/**
 * When the {@code RateLimit-Policy} and {@code RateLimit} header fields are sent. {@code
 * Retry-After} is sent on every rejection whatever this says: it is what clients act on.
 */
public enum RateLimitHeaders {
    /** On admitted and rejected responses, so clients can slow down before they are rejected. */
    ALL,
    /** Only on rejections: admitted responses do not reveal the limits. */
    REJECTED,
    /** Never. */
    NONE
}
