package dev.leapgate.net;

import java.util.List;

/**
 * {@code Forwarded} (RFC 7239): comma-separated elements, each a semicolon-separated list of
 * {@code name=value} pairs whose value is a token or a quoted string. The hop's node is the {@code
 * for} parameter (name case-insensitive); {@code by}, {@code proto}, {@code host} and extensions
 * are ignored.
 *
 * <p>An element is {@link Step#UNUSABLE} if it is malformed, has no {@code for} parameter (the
 * proxy did not say whom it was talking to), or has two (RFC 7239 section 4 forbids it, and
 * choosing either would let a client pick). Leniency where it cannot hurt: whitespace around
 * {@code ;} and {@code =}, and an unquoted value with {@code :} or brackets ({@code
 * for=192.0.2.60:8080}, which the RFC wants quoted).
 *
 * <p>Elements are found from the right. A comma inside a quoted string does not separate
 * elements, so on meeting a closing quote the scan looks left for its opening quote: one preceded
 * by an even number of backslashes, since inside a quoted string a quote is escaped by an odd run
 * ({@code \"}, {@code \\\"}). The element is then read left to right like any other.
 */
final class ForwardedScanner extends HopScanner {

    /**
     * The longest {@code Forwarded} element considered; a longer one is {@link Step#UNUSABLE}. A
     * proxy may write the client's {@code Host} into its element ({@code for=...;host=...}: HAProxy's
     * {@code option forwarded host}, YARP, Spring Cloud Gateway), which the client chooses: with a
     * bound near the length of a node, a client sending a long {@code Host} made the proxy's own
     * element unusable, and was taken for the proxy (its exemption, its key). 64 KiB is more than
     * any container accepts for a request's header section by default (8 KiB in Jetty and Tomcat).
     */
    static final int MAX_FORWARDED_ELEMENT_LENGTH = 65_536;

    ForwardedScanner(List<String> headerValues) {
        super(headerValues);
    }

    @Override
    Step nextInValue() {
        String text = value;
        int to = end;
        int tooFar = to - MAX_FORWARDED_ELEMENT_LENGTH - 1; // as in XForwardedForScanner
        int i = to - 1;
        while (i >= 0) {
            char c = text.charAt(i);
            if (c == ',') {
                break;
            }
            if (i == tooFar) {
                value = null;
                return Step.UNUSABLE;
            }
            if (c == '"') {
                i = openingQuote(text, i, tooFar);
                if (i < 0) {
                    value = null;
                    return Step.UNUSABLE;
                }
            }
            i--;
        }
        consumeUpTo(i);
        return element(text, i + 1, to);
    }

    /** The index of the quote that opens the quoted string closed at {@code close}, or -1. */
    private static int openingQuote(String text, int close, int tooFar) {
        int j = close - 1;
        while (j > tooFar && j >= 0) {
            if (text.charAt(j) == '"') {
                int k = j - 1;
                while (k > tooFar && k >= 0 && text.charAt(k) == '\\') {
                    k--;
                }
                if (((j - 1 - k) & 1) == 0) {
                    return j;
                }
                j = k; // an escaped quote: go on from the first character before the backslashes
            } else {
                j--;
            }
        }
        return -1;
    }

    /** Reads the pairs of the element {@code text[from, to)} left to right, keeping its node. */
    private Step element(String text, int from, int to) {
        int i = skipOws(text, from, to);
        if (i == to) {
            return Step.EMPTY;
        }
        boolean sawFor = false;
        Step step = Step.UNUSABLE;
        while (i < to) {
            if (text.charAt(i) == ';') { // an empty pair is allowed: [ pair ] *( ";" [ pair ] )
                i = skipOws(text, i + 1, to);
                continue;
            }
            int nameStart = i;
            while (i < to && HttpToken.isTokenChar(text.charAt(i))) {
                i++;
            }
            int nameEnd = i;
            i = skipOws(text, i, to);
            if (nameEnd == nameStart || i == to || text.charAt(i) != '=') {
                return Step.UNUSABLE;
            }
            i = skipOws(text, i + 1, to);
            int valueStart;
            int valueEnd;
            boolean escaped = false;
            if (i < to && text.charAt(i) == '"') {
                valueStart = ++i;
                while (i < to && text.charAt(i) != '"') {
                    if (text.charAt(i) == '\\') {
                        escaped = true;
                        i++;
                    }
                    i++;
                }
                if (i >= to) {
                    return Step.UNUSABLE; // unterminated
                }
                valueEnd = i++;
            } else {
                valueStart = i;
                while (i < to && !isValueEnd(text.charAt(i))) {
                    i++;
                }
                valueEnd = i;
                if (valueEnd == valueStart) {
                    return Step.UNUSABLE;
                }
            }
            i = skipOws(text, i, to);
            if (i < to && text.charAt(i) != ';') {
                return Step.UNUSABLE;
            }
            if (isFor(text, nameStart, nameEnd)) {
                if (sawFor) {
                    return Step.UNUSABLE;
                }
                sawFor = true;
                if (escaped) {
                    String unescaped = unescape(text, valueStart, valueEnd);
                    step = node(unescaped, 0, unescaped.length());
                } else {
                    step = node(text, valueStart, valueEnd); // for="" too: a hop that names no one
                }
            }
        }
        return step;
    }

    /** The content of a quoted string with its quoted-pairs resolved: rare, so it may allocate. */
    private static String unescape(String text, int from, int to) {
        StringBuilder content = new StringBuilder(to - from);
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < to) {
                c = text.charAt(++i);
            }
            content.append(c);
        }
        return content.toString();
    }

    private static boolean isFor(String text, int from, int to) {
        return to - from == 3
                && (text.charAt(from) | 0x20) == 'f'
                && (text.charAt(from + 1) | 0x20) == 'o'
                && (text.charAt(from + 2) | 0x20) == 'r';
    }

    /** An unquoted value runs to the next separator; anything else is kept for the node parser. */
    private static boolean isValueEnd(char c) {
        return c == ';' || c == ',' || c == '"' || IpLiteralParser.isOws(c);
    }

    private static int skipOws(String text, int from, int to) {
        while (from < to && IpLiteralParser.isOws(text.charAt(from))) {
            from++;
        }
        return from;
    }
}
