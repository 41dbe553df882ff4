package dev.leapgate.internal;

import dev.leapgate.Origin;
import dev.leapgate.net.ClientKey;
import dev.leapgate.net.IpAddress;

/**
 * Text as error messages quote it: in single quotes, with every character one cannot see written
 * as an escape, so that a value holding a NUL, a tab, a byte-order mark or a non-breaking space is
 * not shown as if it were the value the reader sees in the file.
 */
public final class Shown {

    private Shown() {}

    /** {@code 'text'} with invisible characters escaped, or {@code the empty value}. */
    public static String value(String text) {
        return text.isEmpty() ? "the empty value" : quoted(text);
    }

    /** {@code 'text'} with invisible characters escaped ({@code \t}, {@code \n}, {@code \u0000}...). */
    public static String quoted(String text) {
        return "'" + escaped(text) + "'";
    }

    /**
     * The text with each character one cannot see written as {@code \t}, {@code \r}, {@code \n} or
     * {@code \\uXXXX} (one beyond the BMP as the escapes of its two UTF-16 units, {@code
     * \\uDB40\\uDC41}), and so half of a surrogate pair alone.
     */
    public static String escaped(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); ) {
            int units = units(text, i);
            boolean invisible = isInvisibleAt(text, i);
            if (invisible && out == null) {
                out = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            if (out != null) {
                for (int k = i; k < i + units; k++) {
                    if (invisible) {
                        out.append(escapeUnit(text.charAt(k)));
                    } else {
                        out.append(text.charAt(k));
                    }
                }
            }
            i += units;
        }
        return out == null ? text : out.toString();
    }

    /** The characters of a client's identifier that the rejection log and the status show. */
    public static final int IDENTIFIER_CHARS = 100;

    /**
     * A client's identifier (its own text: a header's value, a principal) as the rejection log and
     * the status show it: whole up to {@value #IDENTIFIER_CHARS} characters; else its first ones
     * (never half of a surrogate pair) and its length, {@code abc...(8000 characters)}, so that a
     * client cannot write kilobytes into every line and every poll. Not escaped.
     */
    public static String identifier(String text) {
        if (text.length() <= IDENTIFIER_CHARS) {
            return text;
        }
        int end =
                Character.isHighSurrogate(text.charAt(IDENTIFIER_CHARS - 1)) ? IDENTIFIER_CHARS - 1 : IDENTIFIER_CHARS;
        return text.substring(0, end) + "...(" + text.length() + " characters)";
    }

    /**
     * How the rejection log and the status name a client (not escaped): an IPv6 client by the
     * prefix it is counted as, {@code 2001:db8:1:2::/64}, not by whichever of its addresses came
     * first (an IPv4 client written in the NAT64 well-known prefix by that address, as deny and
     * exempt match it); an identifier cut as {@link #identifier} cuts it; else as {@link Origin#toString()}.
     *
     * @param ipv6PrefixLength the gate's {@code ipv6-prefix}; an origin made with another prefix
     *     (by a caller of the gate) is named by its address
     */
    public static String client(Origin origin, int ipv6PrefixLength) {
        IpAddress ip = origin.ip();
        if (ip != null && !ip.isIpv4() && origin.key() == ClientKey.of(ip, ipv6PrefixLength)) {
            // An IPv4 client written in 64:ff9b::/96 (see ClientKey) by its address as written,
            // which deny and exempt match, not by the IPv4 address its key shows.
            String client = ClientKey.format(origin.key(), ipv6PrefixLength);
            if (client.indexOf('/') >= 0) {
                return client;
            }
        }
        return identifier(origin.toString());
    }

    /**
     * Whether {@code c} is a character one cannot see, which {@link #escaped} writes as an escape: a
     * control (C0, DEL, C1), a format character (bidi controls, zero-width spaces, the byte-order
     * mark), a line or paragraph separator, or a space other than a space.
     */
    public static boolean isInvisible(char c) {
        return !Character.isSurrogate(c) && isInvisible((int) c);
    }

    /**
     * Whether the character at {@code i} of {@code text} is one {@link #escaped} writes as escapes:
     * as {@link #isInvisible(char)}, where a surrogate pair is one character (a tag character such
     * as U+E0041 is a format character that shows nothing), and half of a pair alone is invisible
     * (no encoding can carry it: UTF-8 writes {@code ?}).
     */
    public static boolean isInvisibleAt(CharSequence text, int i) {
        char c = text.charAt(i);
        if (!Character.isSurrogate(c)) {
            return isInvisible((int) c);
        }
        return units(text, i) == 1 || isInvisible(Character.toCodePoint(c, text.charAt(i + 1)));
    }

    /** The UTF-16 units of the character at {@code i}: 2 for a surrogate pair, else 1. */
    public static int units(CharSequence text, int i) {
        return Character.isHighSurrogate(text.charAt(i))
                        && i + 1 < text.length()
                        && Character.isLowSurrogate(text.charAt(i + 1))
                ? 2
                : 1;
    }

    private static boolean isInvisible(int codePoint) {
        return Character.isISOControl(codePoint)
                || Character.getType(codePoint) == Character.FORMAT // BOM, zero-width spaces, direction marks, tags
                || (Character.isSpaceChar(codePoint) && codePoint != ' '); // no-break and other spaces
    }

    /** The escape of one UTF-16 unit of a character one cannot see. */
    private static String escapeUnit(char c) {
        return switch (c) {
            case '\t' -> "\\t";
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            default -> String.format("\\u%04X", (int) c);
        };
    }
}
