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

    /** The text with each character one cannot see written as {@code \t}, {@code \r}, {@code \n} or {@code \\uXXXX}. */
    public static String escaped(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String escape = escape(c);
            if (escape != null && out == null) {
                out = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            if (out != null) {
                if (escape != null) {
                    out.append(escape);
                } else {
                    out.append(c);
                }
            }
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
     * first; an identifier cut as {@link #identifier} cuts it; else as {@link Origin#toString()}.
     *
     * @param ipv6PrefixLength the gate's {@code ipv6-prefix}; an origin made with another prefix
     *     (by a caller of the gate) is named by its address
     */
    public static String client(Origin origin, int ipv6PrefixLength) {
        IpAddress ip = origin.ip();
        if (ip != null && !ip.isIpv4() && origin.key() == ClientKey.of(ip, ipv6PrefixLength)) {
            return ClientKey.format(origin.key(), ipv6PrefixLength);
        }
        return identifier(origin.toString());
    }

    /**
     * Whether {@code c} is a character one cannot see, which {@link #escaped} writes as an escape: a
     * control (C0, DEL, C1), a format character (bidi controls, zero-width spaces, the byte-order
     * mark), a line or paragraph separator, or a space other than a space.
     */
    public static boolean isInvisible(char c) {
        return escape(c) != null;
    }

    /** Whether the text holds a character one cannot see (a space excepted). */
    public static boolean hasInvisible(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (escape(text.charAt(i)) != null) {
                return true;
            }
        }
        return false;
    }

    private static String escape(char c) {
        switch (c) {
            case '\t':
                return "\\t";
            case '\n':
                return "\\n";
            case '\r':
                return "\\r";
            default:
                break;
        }
        int type = Character.getType(c);
        boolean invisible = Character.isISOControl(c)
                || type == Character.FORMAT // BOM, zero-width spaces, direction marks
                || (Character.isSpaceChar(c) && c != ' '); // no-break and other spaces
        return invisible ? String.format("\\u%04X", (int) c) : null;
    }
}
