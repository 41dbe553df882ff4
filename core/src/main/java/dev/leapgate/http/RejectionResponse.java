package dev.leapgate.http;

import java.util.Map;
import java.util.Objects;

/**
 * Everything an adapter writes for a rejected request, computed in core so that every adapter
 * answers alike.
 *
 * @param status the status code (429 unless configured otherwise; 503 for a request a shared
 *     store could not decide under {@code store-on-failure = closed})
 * @param headers header fields in the order to send them, unmodifiable; looked up by name ignoring
 *     case, as HTTP field names are ({@code headers().get("retry-after")} finds {@code
 *     Retry-After}). A map given here is copied in its order; a name given twice in two cases, or
 *     a null name or value, is refused
 * @param contentType the body's media type, or {@code null} for no body
 * @param body the body (empty for none), UTF-8
 */
public record RejectionResponse(int status, Map<String, String> headers, String contentType, byte[] body) {

    public RejectionResponse {
        Objects.requireNonNull(headers, "headers");
        // The gate's own fields are unmodifiable already; a map from anywhere else is copied, in its
        // order, into the same kind of map, whose lookups ignore case.
        headers = headers instanceof HeaderFields ? headers : HeaderFields.copyOf(headers);
        Objects.requireNonNull(body, "body");
    }
}
