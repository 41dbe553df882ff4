package dev.leapgate.http;

/**
 * The canonical spelling of one path segment, shared by {@link RequestPath} (request side) and {@link
 * PathPattern} (rule side) so that both sides of a match are spelled by the same rule and compare
 * with a plain string comparison.
 *
 * <p>Every character, whether it arrived raw or as a {@code %XX} escape, ends up in exactly one of two
 * spellings:
 *
 * <ul>
 *   <li><b>As itself</b>: the RFC 3986 unreserved characters {@code A-Z a-z 0-9 - . _ ~}, and the
 *       characters that have no meaning inside a path segment {@code ! $ & ' ( ) + , = : @}. Servlet
 *       containers and JAX-RS runtimes decode these before routing, so {@code /v1%3Abatch} and
 *       {@code /v1:batch} reach the same handler and must share a key.
 *   <li><b>As an upper-case {@code %XX} escape</b>: everything else. That covers the characters that
 *       would change the structure of the path if decoded ({@code /} {@code \} {@code ;} {@code ?}
 *       {@code #} {@code %}), {@code *} (it would read as a wildcard in pattern text), characters that
 *       are not allowed raw in a URI (space, controls, {@code " < > [ ] ^ ` { | }}), and every byte of
 *       a non-ASCII character, in UTF-8.
 * </ul>
 *
 * <p>Consequences the callers rely on: the output contains no {@code /}, {@code ;}, {@code ?}, {@code
 * #}, {@code *}, braces or whitespace; every {@code %} in it starts a valid upper-case escape; and
 * canonicalizing the output again returns it unchanged (idempotence), so nothing downstream can
 * decode a second time into a different path.
 */
final class PathEncoding {

    private static final char[] HEX_DIGITS = "0123456789ABCDEF".toCharArray();

    /** Indexed by ASCII code: true when the character is spelled as itself, false when as %XX. */
    private static final boolean[] LITERAL = new boolean[128];

    static {
        for (char c = 'a'; c <= 'z'; c++) {
            LITERAL[c] = true;
        }
        for (char c = 'A'; c <= 'Z'; c++) {
            LITERAL[c] = true;
        }
        for (char c = '0'; c <= '9'; c++) {
            LITERAL[c] = true;
        }
        for (char c : "-._~!$&'()+,=:@".toCharArray()) {
            LITERAL[c] = true;
        }
    }

    private PathEncoding() {}

    /** Whether {@code c} is spelled as itself in a key. */
    static boolean isLiteral(char c) {
        return c < 0x80 && LITERAL[c];
    }

    /**
     * Appends the canonical spelling of {@code source[from, to)} to {@code out}. Never throws: a
     * {@code %} that does not start a valid escape is taken as a literal percent sign and written as
     * {@code %25}, so it cannot combine with the characters after it into a new escape (with {@code
     * %2%65} kept verbatim, decoding {@code %65} would produce {@code %2e}, which a second decoder would
     * read as a dot). A lone surrogate is written as U+FFFD. Work is linear in {@code to - from}.
     */
    static void appendCanonical(String source, int from, int to, StringBuilder out) {
        append(source, from, to, out, true);
    }

    /**
     * Appends the canonical spelling of {@code source[from, to)}, text that is already decoded: every
     * character stands for itself, a {@code %} included (it is written {@code %25}). For paths a
     * servlet container has decoded; never throws, linear in {@code to - from}.
     */
    static void appendDecoded(String source, int from, int to, StringBuilder out) {
        append(source, from, to, out, false);
    }

    private static void append(String source, int from, int to, StringBuilder out, boolean decode) {
        int i = from;
        while (i < to) {
            char c = source.charAt(i);
            if (c == '%' && decode) {
                int high = i + 2 < to ? hexValue(source.charAt(i + 1)) : -1;
                int low = high >= 0 ? hexValue(source.charAt(i + 2)) : -1;
                if (low >= 0) {
                    appendByte(out, (high << 4) | low);
                    i += 3;
                } else {
                    appendEscape(out, '%');
                    i++;
                }
            } else if (c < 0x80) {
                appendByte(out, c);
                i++;
            } else {
                int codePoint = c;
                if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(source.charAt(i + 1))) {
                    codePoint = Character.toCodePoint(c, source.charAt(i + 1));
                    i += 2;
                } else {
                    if (Character.isSurrogate(c)) {
                        codePoint = 0xFFFD;
                    }
                    i++;
                }
                appendUtf8(out, codePoint);
            }
        }
    }

    /** Index of the first {@code %} in {@code source[from, to)} not followed by two hex digits, or -1. */
    static int invalidEscapeAt(String source, int from, int to) {
        for (int i = from; i < to; i++) {
            if (source.charAt(i) == '%') {
                if (i + 2 >= to || hexValue(source.charAt(i + 1)) < 0 || hexValue(source.charAt(i + 2)) < 0) {
                    return i;
                }
                i += 2;
            }
        }
        return -1;
    }

    /** ASCII hex digits only: {@link Character#digit} would also accept full-width and other digits. */
    private static int hexValue(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        return -1;
    }

    /** Appends one byte (0..255), decoded when it is an ASCII literal, escaped otherwise. */
    private static void appendByte(StringBuilder out, int b) {
        if (b < 0x80 && LITERAL[b]) {
            out.append((char) b);
        } else {
            appendEscape(out, b);
        }
    }

    private static void appendEscape(StringBuilder out, int b) {
        out.append('%').append(HEX_DIGITS[b >> 4]).append(HEX_DIGITS[b & 0xF]);
    }

    private static void appendUtf8(StringBuilder out, int codePoint) {
        if (codePoint < 0x800) {
            appendEscape(out, 0xC0 | (codePoint >> 6));
        } else {
            if (codePoint < 0x10000) {
                appendEscape(out, 0xE0 | (codePoint >> 12));
            } else {
                appendEscape(out, 0xF0 | (codePoint >> 18));
                appendEscape(out, 0x80 | ((codePoint >> 12) & 0x3F));
            }
            appendEscape(out, 0x80 | ((codePoint >> 6) & 0x3F));
        }
        appendEscape(out, 0x80 | (codePoint & 0x3F));
    }
}
