package dev.leapgate.http;

import dev.leapgate.Rejection;

/**
 * The body of a rejection: an RFC 9457 problem detail, {@code application/problem+json}.
 *
 * <pre>{@code
 * {"type":"about:blank","title":"Too Many Requests","status":429,
 *  "detail":"Rule 'per-ip' rejected the request: limit exceeded. Retry after 7 s.",
 *  "rule":"per-ip","retryAfter":7}
 * }</pre>
 *
 * {@code type} is {@code about:blank}, so {@code title} is the status's reason phrase; {@code rule}
 * and {@code retryAfter} (seconds, as in {@code Retry-After}) are extension members.
 */
public final class ProblemBody {

    public static final String CONTENT_TYPE = "application/problem+json";

    private ProblemBody() {}

    /** The JSON text for a rejection answered with {@code status}. */
    public static String json(Rejection rejection, int status) {
        long retryAfter = RateLimitFields.retryAfterSeconds(rejection.retryAfter());
        StringBuilder json = new StringBuilder(192);
        json.append("{\"type\":\"about:blank\",\"title\":");
        quote(json, reasonPhrase(status));
        json.append(",\"status\":").append(status).append(",\"detail\":");
        quote(
                json,
                "Rule '" + rejection.rule() + "' rejected the request: " + rejection.reason() + ". Retry after "
                        + retryAfter + " s.");
        json.append(",\"rule\":");
        quote(json, rejection.rule());
        json.append(",\"retryAfter\":").append(retryAfter).append('}');
        return json.toString();
    }

    /**
     * The JSON text for a request from a denied origin answered with {@code status}: no retry
     * advice, since waiting does not help.
     *
     * <pre>{@code
     * {"type":"about:blank","title":"Forbidden","status":403,"detail":"Requests from this origin are denied.","rule":"deny"}
     * }</pre>
     */
    public static String denied(int status) {
        StringBuilder json = new StringBuilder(128);
        json.append("{\"type\":\"about:blank\",\"title\":");
        quote(json, reasonPhrase(status));
        json.append(",\"status\":").append(status);
        json.append(",\"detail\":\"Requests from this origin are denied.\",\"rule\":\"deny\"}");
        return json.toString();
    }

    /** RFC 9110's reason phrase for the statuses a rejection may use. */
    static String reasonPhrase(int status) {
        return switch (status) {
            case 429 -> "Too Many Requests";
            case 503 -> "Service Unavailable";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 451 -> "Unavailable For Legal Reasons";
            case 400 -> "Bad Request";
            case 509 -> "Bandwidth Limit Exceeded";
            default -> status >= 500 ? "Server Error" : "Client Error";
        };
    }

    /** Appends {@code text} as a JSON string, escaping what RFC 8259 requires. */
    static void quote(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
