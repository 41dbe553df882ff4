package dev.leapgate.http;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.leapgate.Rejection;
import dev.leapgate.internal.Admission;
import dev.leapgate.internal.DeniedRejection;
import dev.leapgate.internal.Shown;

/**
 * The body of a rejection: an RFC 9457 problem detail, {@code application/problem+json}.
 *
 * <pre>{@code
 * {"type":"about:blank","title":"Too Many Requests","status":429,
 *  "detail":"Rule 'per-ip' rejected the request: limit exceeded. Retry after 7 s.",
 *  "rule":"per-ip","retryAfter":7}
 * }</pre>
 *
 * A request a shared rule's store could not decide ({@code store-on-failure = closed}) is answered
 * {@code 503}, {@code "detail":"Rule 'login' could not decide: shared store unavailable. Retry
 * after 1 s."}.
 *
 * <p>{@code type} is {@code about:blank}, so {@code title} is the status's reason phrase; {@code rule}
 * and {@code retryAfter} (seconds, as in {@code Retry-After}) are extension members.
 */
public final class ProblemBody {

    public static final String CONTENT_TYPE = "application/problem+json";

    private ProblemBody() {}

    /**
     * The JSON text for a rejection answered with {@code status}; for a denied origin's, {@link
     * #denied}'s, which tells it neither to retry nor who it is (as the gate's own answer).
     */
    public static String json(Rejection rejection, int status) {
        if (rejection instanceof DeniedRejection) {
            return denied(status);
        }
        if (Admission.admitsNoRetry(rejection)) {
            return withoutRetry(rejection.rule(), rejection.reason(), status);
        }
        long retryAfter = RateLimitFields.retryAfterSeconds(rejection.retryAfter());
        return new String(template(rejection.rule(), rejection.reason(), status).bytes(retryAfter), UTF_8);
    }

    /**
     * The body of a rejection by {@code rule} for {@code reason}, answered with {@code status}, but
     * for its retry time, which it says twice (in the detail and as {@code retryAfter}): as UTF-8,
     * the part before the first, and the part between the two. A gate keeps the last it made, so
     * that a rejection's body is one array (a builder, its string and the string's bytes before).
     */
    static Template template(String rule, String reason, int status) {
        // The detail "Rule '<rule>' rejected the request: <reason>. Retry after <n> s."
        StringBuilder head = opening(rule, reason, status).append(". Retry after ");
        StringBuilder middle = new StringBuilder(48).append(" s.\",\"rule\":");
        quote(middle, rule);
        middle.append(",\"retryAfter\":");
        return new Template(
                rule,
                reason,
                status,
                head.toString().getBytes(UTF_8),
                middle.toString().getBytes(UTF_8));
    }

    /** {@link #template}'s answer. */
    static final class Template {
        private final String rule;
        private final String reason;
        private final int status;
        private final byte[] head;
        private final byte[] middle;

        private Template(String rule, String reason, int status, byte[] head, byte[] middle) {
            this.rule = rule;
            this.reason = reason;
            this.status = status;
            this.head = head;
            this.middle = middle;
        }

        /** Whether this is the body of a rejection by {@code rule} for {@code reason} answered with {@code status}. */
        boolean isFor(String rule, String reason, int status) {
            return this.status == status && this.rule.equals(rule) && this.reason.equals(reason);
        }

        /** The whole body, UTF-8, with {@code Retry-After: retryAfter} (seconds, not negative). */
        byte[] bytes(long retryAfter) {
            if (retryAfter < 0) {
                throw new IllegalArgumentException("retryAfter " + retryAfter + " < 0");
            }
            int digits = 1;
            for (long rest = retryAfter / 10; rest > 0; rest /= 10) {
                digits++;
            }
            byte[] body = new byte[head.length + middle.length + 2 * digits + 1];
            System.arraycopy(head, 0, body, 0, head.length);
            int at = digits(body, head.length + digits, retryAfter);
            System.arraycopy(middle, 0, body, at, middle.length);
            digits(body, at + middle.length + digits, retryAfter);
            body[body.length - 1] = '}';
            return body;
        }

        /** Writes {@code value}'s decimal digits into {@code body}, ending before {@code end}; returns {@code end}. */
        private static int digits(byte[] body, int end, long value) {
            int at = end;
            do {
                body[--at] = (byte) ('0' + value % 10);
                value /= 10;
            } while (value > 0);
            return end;
        }
    }

    /**
     * The JSON text for a rejection that no retry can pass (a request for more permits than the
     * limit): the detail without a retry time, and no {@code retryAfter}.
     */
    static String withoutRetry(String rule, String reason, int status) {
        StringBuilder json = opening(rule, reason, status).append(".\",\"rule\":");
        quote(json, rule);
        return json.append('}').toString();
    }

    /**
     * A rejection's body up to the end of its detail's first sentence, "Rule '<rule>' rejected the
     * request: <reason>" ("Rule '<rule>' could not decide: shared store unavailable" when its store
     * could not), without its period: its parts escaped in turn (the text around them needs
     * no escape).
     */
    private static StringBuilder opening(String rule, String reason, int status) {
        StringBuilder json = new StringBuilder(160);
        json.append("{\"type\":\"about:blank\",\"title\":");
        quote(json, reasonPhrase(status));
        json.append(",\"status\":").append(status).append(",\"detail\":\"Rule '");
        escape(json, rule);
        // A store that could not decide rejected nothing on the rule's count.
        json.append(reason.equals(Admission.STORE_UNAVAILABLE) ? "' could not decide: " : "' rejected the request: ");
        escape(json, reason);
        return json;
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

    /**
     * The recommended reason phrase of a status a rejection may use (400 to 599), which RFC 9457
     * asks {@code title} to be with {@code type} {@code about:blank}: from the IANA HTTP Status
     * Code Registry (RFC 9110, 6585, 7725, 8297, 8470, 4918); {@code Client Error} or {@code
     * Server Error} for a code the registry does not assign.
     */
    static String reasonPhrase(int status) {
        return switch (status) {
            case 429 -> "Too Many Requests";
            case 503 -> "Service Unavailable";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 402 -> "Payment Required";
            case 405 -> "Method Not Allowed";
            case 406 -> "Not Acceptable";
            case 407 -> "Proxy Authentication Required";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 410 -> "Gone";
            case 411 -> "Length Required";
            case 412 -> "Precondition Failed";
            case 413 -> "Content Too Large";
            case 414 -> "URI Too Long";
            case 415 -> "Unsupported Media Type";
            case 416 -> "Range Not Satisfiable";
            case 417 -> "Expectation Failed";
            case 421 -> "Misdirected Request";
            case 422 -> "Unprocessable Content";
            case 423 -> "Locked";
            case 424 -> "Failed Dependency";
            case 425 -> "Too Early";
            case 426 -> "Upgrade Required";
            case 428 -> "Precondition Required";
            case 431 -> "Request Header Fields Too Large";
            case 451 -> "Unavailable For Legal Reasons";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 504 -> "Gateway Timeout";
            case 505 -> "HTTP Version Not Supported";
            case 506 -> "Variant Also Negotiates";
            case 507 -> "Insufficient Storage";
            case 508 -> "Loop Detected";
            case 511 -> "Network Authentication Required";
            default -> status >= 500 ? "Server Error" : "Client Error";
        };
    }

    /**
     * Appends {@code text} as a JSON string, escaping what RFC 8259 requires, and also, as {@code
     * \\uXXXX}, every other character one cannot see ({@link Shown#isInvisibleAt}: DEL, C1 controls
     * such as CSI, bidi and other format characters, also beyond the BMP such as tag characters, line
     * and paragraph separators, spaces other than a space, half of a surrogate pair alone, which
     * UTF-8 cannot carry): the same string to a JSON parser, but a client's identifier in the status
     * cannot act on the terminal of an operator who reads the JSON with curl, as the rejection log
     * keeps it from acting on one that shows the log.
     */
    static void quote(StringBuilder json, String text) {
        json.append('"');
        escape(json, text);
        json.append('"');
    }

    /** Appends {@code text} escaped as {@link #quote} does, without the quotation marks. */
    private static void escape(StringBuilder json, String text) {
        if (plain(text)) {
            json.append(text); // the common case, at once rather than a character at a time
            return;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    // A pair as one character: both units escaped, or neither.
                    int units = c < 0x7f ? 1 : Shown.units(text, i);
                    boolean escape = c < 0x20 || (c >= 0x7f && Shown.isInvisibleAt(text, i));
                    for (int k = i; k < i + units; k++) {
                        if (escape) {
                            json.append(String.format("\\u%04x", (int) text.charAt(k)));
                        } else {
                            json.append(text.charAt(k));
                        }
                    }
                    i += units - 1;
                }
            }
        }
    }

    /** Whether {@code text} needs no escape: printable ASCII alone, without a quotation mark or backslash. */
    private static boolean plain(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                return false;
            }
        }
        return true;
    }
}
