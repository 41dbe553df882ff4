package dev.leapgate.net;

/**
 * Strict parsing of IP address literals from a range of a string, by hand, without the name
 * service.
 *
 * <p>Why by hand: {@code InetAddress.getByName} treats anything that is not a literal as a host
 * name and resolves it, so a header value could make a request thread wait on DNS (and leak the
 * lookup to an attacker's name server). It also accepts forms we do not want ({@code 0x7f.1},
 * {@code 1.2.3}, leading zeros that other software reads as octal). Here the only input is
 * characters and the only output is bits; a name is simply not a literal.
 *
 * <p>Each method has two modes. With {@code explain == false} (the per-request path) a malformed
 * literal yields {@code null} or {@code -1}, so garbage in a header costs no exception and no
 * allocation. With {@code explain == true} (configuration, {@link IpAddress#parse}) it throws an
 * {@link IllegalArgumentException} whose message is only the reason; the caller prefixes the
 * offending value.
 *
 * <p>Accepted forms:
 *
 * <ul>
 *   <li>IPv4: exactly four decimal parts 0..255 of one to three ASCII digits, no leading zeros (so
 *       {@code 010.0.0.1} is rejected rather than guessed as octal or decimal), no signs, no
 *       whitespace.
 *   <li>IPv6: every RFC 4291 section 2.2 text form: eight groups of one to four hex digits (either
 *       case), one {@code ::} standing for one or more zero groups, and an embedded dotted quad in
 *       the last 32 bits. An optional zone id ({@code %eth0}, {@code %2}) is accepted and dropped
 *       when {@code allowZone}: it names an interface of the local host and says nothing about who
 *       the client is.
 * </ul>
 */
final class IpLiteralParser {

    static final String EMPTY = "empty";
    static final String IPV4 = "expected an IPv4 dotted quad: four decimal numbers from 0 to 255 without leading zeros";
    static final String IPV6_GROUPS = "expected 8 groups of 1 to 4 hex digits separated by ':', or fewer with one '::'";
    static final String IPV6_DOUBLE_GAP = "'::' may appear only once";
    static final String IPV6_EMBEDDED_IPV4 = "an embedded IPv4 address must be a valid dotted quad in the last 32 bits";
    static final String ZONE_INVALID = "a zone id must be one or more letters, digits or '-._~%'";
    static final String ZONE_NOT_ALLOWED = "a zone id is not allowed here";

    /** The ::ffff:0:0/96 prefix that marks an IPv4-mapped address; how IPv4 is stored. */
    static final long IPV4_MAPPED_LOW = 0x0000_FFFF_0000_0000L;

    private IpLiteralParser() {}

    /**
     * Parses {@code s[from, to)} as IPv4 if it contains no ':', else as IPv6. Returns null for a
     * malformed literal unless {@code explain}.
     */
    static IpAddress parse(String s, int from, int to, boolean allowZone, boolean explain) {
        if (from >= to) {
            return fail(explain, EMPTY);
        }
        if (indexOf(s, ':', from, to) >= 0) {
            return parseIpv6(s, from, to, allowZone, explain);
        }
        long v4 = parseIpv4(s, from, to, explain);
        return v4 < 0 ? null : new IpAddress(0L, IPV4_MAPPED_LOW | v4);
    }

    /** Returns the 32 bits of a dotted quad as a non-negative long, or -1 if malformed. */
    static long parseIpv4(String s, int from, int to, boolean explain) {
        long bits = 0;
        int parts = 0;
        int i = from;
        while (true) {
            int start = i;
            int value = 0;
            // At most 4 digits are read: a fourth one is already an error, and the bound keeps
            // `value` from overflowing on a long run of digits.
            while (i < to && i - start < 4) {
                char c = s.charAt(i);
                if (c < '0' || c > '9') {
                    break;
                }
                value = value * 10 + (c - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && s.charAt(start) == '0')) {
                return failIpv4(explain);
            }
            bits = (bits << 8) | value;
            parts++;
            if (i == to) {
                break;
            }
            if (s.charAt(i) != '.' || parts == 4) {
                return failIpv4(explain);
            }
            i++;
        }
        return parts == 4 ? bits : failIpv4(explain);
    }

    static IpAddress parseIpv6(String s, int from, int to, boolean allowZone, boolean explain) {
        int end = indexOf(s, '%', from, to);
        if (end < 0) {
            end = to;
        } else if (!allowZone) {
            return fail(explain, ZONE_NOT_ALLOWED);
        } else if (!isZoneId(s, end + 1, to)) {
            return fail(explain, ZONE_INVALID);
        }
        if (from == end) {
            return fail(explain, IPV6_GROUPS);
        }

        // Groups before '::' go straight to their final position in (high, low). Groups after it
        // are shifted into a right-aligned register (tailHigh, tailLow): their final position is
        // only known at the end, and right-aligned is exactly where they belong. '::' stands for
        // at least one group, so the two never overlap and OR-ing them is the result.
        long high = 0;
        long low = 0;
        long tailHigh = 0;
        long tailLow = 0;
        int groups = 0; // 16-bit groups so far, an embedded IPv4 counting 2
        boolean gap = false;
        int i = from;
        if (s.charAt(i) == ':') {
            if (i + 1 == end || s.charAt(i + 1) != ':') {
                return fail(explain, IPV6_GROUPS); // a single leading ':'
            }
            gap = true;
            i += 2;
            if (i == end) {
                return new IpAddress(0L, 0L); // "::"
            }
        }
        while (true) {
            int start = i;
            int value = 0;
            while (i < end && i - start < 5) { // 5: a fifth digit is an error, and no overflow
                int digit = hexValue(s.charAt(i));
                if (digit < 0) {
                    break;
                }
                value = (value << 4) | digit;
                i++;
            }
            if (i < end && s.charAt(i) == '.') {
                // The dotted quad must run to the end and fill the last two groups.
                if (groups > 6) {
                    return fail(explain, IPV6_EMBEDDED_IPV4);
                }
                long v4 = parseIpv4(s, start, end, false);
                if (v4 < 0) {
                    return fail(explain, IPV6_EMBEDDED_IPV4);
                }
                if (gap) {
                    tailHigh = (tailHigh << 32) | (tailLow >>> 32);
                    tailLow = (tailLow << 32) | v4;
                } else {
                    low |= v4; // groups == 6 here, or the count check below fails
                }
                groups += 2;
                break;
            }
            int digits = i - start;
            if (digits == 0) {
                if (i < end && s.charAt(i) != ':') {
                    return failChar(explain, s.charAt(i));
                }
                return fail(explain, IPV6_GROUPS); // ":::" or an empty group
            }
            if (digits > 4 || groups == 8) {
                return fail(explain, IPV6_GROUPS);
            }
            if (gap) {
                tailHigh = (tailHigh << 16) | (tailLow >>> 48);
                tailLow = (tailLow << 16) | value;
            } else if (groups < 4) {
                high |= (long) value << (48 - 16 * groups);
            } else {
                low |= (long) value << (48 - 16 * (groups - 4));
            }
            groups++;
            if (i == end) {
                break;
            }
            char c = s.charAt(i);
            if (c != ':') {
                return failChar(explain, c);
            }
            i++;
            if (i == end) {
                return fail(explain, IPV6_GROUPS); // a single trailing ':'
            }
            if (s.charAt(i) == ':') {
                if (gap) {
                    return fail(explain, IPV6_DOUBLE_GAP);
                }
                gap = true;
                i++;
                if (i == end) {
                    break; // a trailing "::"
                }
            }
        }
        if (gap ? groups > 7 : groups != 8) {
            return fail(explain, IPV6_GROUPS);
        }
        return new IpAddress(high | tailHigh, low | tailLow);
    }

    /**
     * Parses one hop of a forwarding header: an RFC 7239 node ({@code 192.0.2.1}, {@code
     * 192.0.2.1:8080}, {@code [2001:db8::1]}, {@code [2001:db8::1]:4711}, with a numeric or
     * obfuscated port) or the same forms found in {@code X-Forwarded-For}, plus a bare IPv6 address
     * (which cannot carry a port), surrounded by optional spaces or tabs. Returns null for anything
     * else, notably {@code unknown} and obfuscated identifiers such as {@code _hidden}: none of them
     * names an address. Never throws.
     */
    static IpAddress parseNode(String s, int from, int to) {
        while (from < to && isOws(s.charAt(from))) {
            from++;
        }
        while (to > from && isOws(s.charAt(to - 1))) {
            to--;
        }
        if (from == to) {
            return null;
        }
        if (s.charAt(from) == '[') {
            int close = indexOf(s, ']', from + 1, to);
            if (close < 0 || indexOf(s, ':', from + 1, close) < 0) {
                return null; // unclosed, or an IPv4 address in brackets (brackets are for IPv6)
            }
            if (close + 1 < to && (s.charAt(close + 1) != ':' || !isPort(s, close + 2, to))) {
                return null;
            }
            return parseIpv6(s, from + 1, close, true, false);
        }
        int colon = indexOf(s, ':', from, to);
        if (colon < 0) {
            return parse(s, from, to, false, false);
        }
        if (indexOf(s, ':', colon + 1, to) < 0) { // exactly one ':': IPv4 with a port
            if (!isPort(s, colon + 1, to)) {
                return null;
            }
            long v4 = parseIpv4(s, from, colon, false);
            return v4 < 0 ? null : new IpAddress(0L, IPV4_MAPPED_LOW | v4);
        }
        return parseIpv6(s, from, to, true, false);
    }

    /** RFC 7239 node-port: 1 to 5 digits, or an obfuscated port "_" 1*(ALPHA / DIGIT / "._-"). */
    private static boolean isPort(String s, int from, int to) {
        if (from >= to) {
            return false;
        }
        if (s.charAt(from) == '_') {
            for (int i = from + 1; i < to; i++) {
                char c = s.charAt(i);
                if (!(isAlphaNumeric(c) || c == '.' || c == '_' || c == '-')) {
                    return false;
                }
            }
            return to - from > 1;
        }
        if (to - from > 5) {
            return false;
        }
        int port = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 65535;
    }

    /** RFC 6874 zone id characters: unreserved or percent (its %25 encoding is tolerated). */
    private static boolean isZoneId(String s, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!(isAlphaNumeric(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '%')) {
                return false;
            }
        }
        return true;
    }

    /** Optional whitespace of RFC 9110: space and horizontal tab. */
    static boolean isOws(char c) {
        return c == ' ' || c == '\t';
    }

    static int indexOf(String s, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isAlphaNumeric(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static int hexValue(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static IpAddress fail(boolean explain, String reason) {
        if (explain) {
            throw new IllegalArgumentException(reason);
        }
        return null;
    }

    private static IpAddress failChar(boolean explain, char c) {
        if (explain) {
            throw new IllegalArgumentException("unexpected character '" + c + "' in an IPv6 address");
        }
        return null;
    }

    private static long failIpv4(boolean explain) {
        if (explain) {
            throw new IllegalArgumentException(IPV4);
        }
        return -1;
    }
}
