package dev.leapgate.servlet;

import dev.leapgate.http.RateLimitFields;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.util.function.BiConsumer;

/**
 * The response an admitted request's chain writes to when Leapgate set its {@code
 * RateLimit-Policy} / {@code RateLimit} fields on it. Leapgate sets them before the chain runs, so
 * that a response the application commits early (streaming, a flush) carries them; what the
 * application then writes to these two fields is combined with Leapgate's items ({@link
 * RateLimitFields#combine}) instead of replacing them ({@code setHeader}) or adding a second field
 * line ({@code addHeader}). Among its own items the container's rules hold: {@code setHeader}
 * replaces what the application (or a filter before Leapgate's) set, {@code addHeader} adds to it.
 * Every other call goes to the response unchanged.
 *
 * <p>It is also the sink that {@code HttpGate.admittedHeaders} writes Leapgate's fields to ({@link
 * #accept}), so that an admitted request allocates this object alone; and only where the gate may
 * write fields ({@code HttpGate.mayWriteAdmittedHeaders}): not under {@code rate-limit-headers =
 * rejected} or {@code none}, nor for a request no rule limits.
 *
 * <p>Not thread-safe, as the response it wraps.
 */
final class RateLimitFieldsResponse extends HttpServletResponseWrapper implements BiConsumer<String, String> {

    /** Leapgate's {@code RateLimit-Policy}; null while Leapgate set none. */
    private String leapgatePolicy;
    /** Leapgate's {@code RateLimit}; null while Leapgate set none. */
    private String leapgateRateLimit;
    /** The application's {@code RateLimit-Policy}, its lines joined with commas; null for none. */
    private String applicationPolicy;
    /** The application's {@code RateLimit}, its lines joined with commas; null for none. */
    private String applicationRateLimit;

    RateLimitFieldsResponse(HttpServletResponse response) {
        super(response);
    }

    /**
     * Sets Leapgate's value of a field, after the items that the response already holds (a filter
     * before Leapgate's set them): the sink of {@code HttpGate.admittedHeaders}.
     */
    @Override
    public void accept(String name, String value) {
        HttpServletResponse response = (HttpServletResponse) getResponse();
        // Looked up only when present: the usual response has no such field yet.
        String present = response.containsHeader(name) ? String.join(", ", response.getHeaders(name)) : null;
        if (isPolicy(name)) {
            leapgatePolicy = value;
            applicationPolicy = present;
        } else {
            leapgateRateLimit = value;
            applicationRateLimit = present;
        }
        response.setHeader(name, RateLimitFields.combine(present, value));
    }

    /** Whether Leapgate set a field: if not, the chain gets the response itself. */
    boolean hasLeapgateFields() {
        return leapgatePolicy != null || leapgateRateLimit != null;
    }

    @Override
    public void setHeader(String name, String value) {
        if (isPolicy(name) && leapgatePolicy != null) {
            applicationPolicy = value;
            super.setHeader(name, RateLimitFields.combine(value, leapgatePolicy));
        } else if (isRateLimit(name) && leapgateRateLimit != null) {
            applicationRateLimit = value;
            super.setHeader(name, RateLimitFields.combine(value, leapgateRateLimit));
        } else {
            super.setHeader(name, value);
        }
    }

    @Override
    public void addHeader(String name, String value) {
        if (value != null && isPolicy(name) && leapgatePolicy != null) {
            applicationPolicy = applicationPolicy == null ? value : applicationPolicy + ", " + value;
            super.setHeader(name, RateLimitFields.combine(applicationPolicy, leapgatePolicy));
        } else if (value != null && isRateLimit(name) && leapgateRateLimit != null) {
            applicationRateLimit = applicationRateLimit == null ? value : applicationRateLimit + ", " + value;
            super.setHeader(name, RateLimitFields.combine(applicationRateLimit, leapgateRateLimit));
        } else {
            super.addHeader(name, value);
        }
    }

    /**
     * Clears the response as the container does (status, headers, buffer), then sets Leapgate's
     * fields again: they describe the admission, which stands whatever the application answers
     * after it (Jersey and RESTEasy reset the response before they answer an exception no mapper
     * handles with a 500). The application's own values of the fields go with its other headers.
     */
    @Override
    public void reset() {
        super.reset(); // refused once the response is committed: then nothing changed
        applicationPolicy = null;
        applicationRateLimit = null;
        if (leapgatePolicy != null) {
            super.setHeader(RateLimitFields.RATE_LIMIT_POLICY, leapgatePolicy);
        }
        if (leapgateRateLimit != null) {
            super.setHeader(RateLimitFields.RATE_LIMIT, leapgateRateLimit);
        }
    }

    private static boolean isPolicy(String name) {
        return RateLimitFields.RATE_LIMIT_POLICY.equalsIgnoreCase(name);
    }

    private static boolean isRateLimit(String name) {
        return RateLimitFields.RATE_LIMIT.equalsIgnoreCase(name);
    }
}
