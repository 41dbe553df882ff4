package dev.leapgate.http;

import java.util.Map;
import java.util.Objects;

/**
 * Everything an adapter writes for a rejected request, computed in core so that every adapter
 * answers alike.
 *
 * @param status the status code (429 unless configured otherwise; 503 for a request a shared
 *     store could not decide under {@code store-on-failure = closed})
 * @param headers header fields in the order to send them
 * @param contentType the body's media type, or {@code null} for no body
 * @param body the body (empty for none), UTF-8
 */
public record RejectionResponse(int status, Map<String, String> headers, String contentType, byte[] body) {

    public RejectionResponse {
        // The gate's own fields are unmodifiable already; a map from anywhere else is copied, in its order.
        headers = headers instanceof HeaderFields
                ? headers
                : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
        Objects.requireNonNull(body, "body");
    }
}
