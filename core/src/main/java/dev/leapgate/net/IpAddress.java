package dev.leapgate.net;

import java.util.Objects;

/**
 * An IPv4 or IPv6 address, parsed from text without ever consulting the name service.
 *
 * <p>All addresses are held as 128 bits. IPv4 is stored in its IPv4-mapped IPv6 form ({@code
 * ::ffff:a.b.c.d}, RFC 4291 section 2.5.5.2), so an IPv4-mapped IPv6 literal and the plain dotted
 * quad are the same value: {@code parse("::ffff:192.0.2.1").equals(parse("192.0.2.1"))}, and both
 * report {@link #isIpv4()}. A dual-stack socket that reports an IPv4 peer in mapped form therefore
 * gives the same client, and an IPv4 {@link Cidr} matches it. Other embeddings (IPv4-compatible
 * {@code ::a.b.c.d}, NAT64 {@code 64:ff9b::/96}) stay IPv6 here; {@link ClientKey} counts them as
 * the IPv4 client they carry.
 *
 * <p>Immutable; {@code equals} compares the 128 bits.
 */
public final class IpAddress {

    /** The most significant 64 bits, in network order. */
    private final long high;
    /** The least significant 64 bits; for IPv4, 0x0000_ffff followed by the 32 IPv4 bits. */
    private final long low;

    IpAddress(long high, long low) {
        this.high = high;
        this.low = low;
    }

    /**
     * Parses an IPv4 dotted quad or an IPv6 literal in any RFC 4291 text form.
     *
     * <p>Strict: IPv4 needs exactly four decimal parts from 0 to 255 without leading zeros ({@code
     * 1.2.3}, {@code 0x7f.1}, {@code 010.0.0.1} are rejected rather than guessed at); IPv6 takes one
     * {@code ::} and an embedded dotted quad in the last 32 bits. No brackets, port, or whitespace. A
     * zone id ({@code fe80::1%eth0}) is accepted and dropped: it names an interface of this host, not
     * a property of the address. A host name is never looked up, it is just invalid.
     *
     * @throws IllegalArgumentException naming the text and what is wrong with it
     */
    public static IpAddress parse(String text) {
        Objects.requireNonNull(text, "text");
        try {
            return IpLiteralParser.parse(text, 0, text.length(), true, true);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid IP address '" + text + "': " + e.getMessage());
        }
    }

    /** Whether this is an IPv4 address (including one written in IPv4-mapped IPv6 form). */
    public boolean isIpv4() {
        return high == 0 && (low >>> 32) == 0xFFFFL;
    }

    /**
     * Whether this is a multicast address (224.0.0.0/4 or ff00::/8). Such an address can never be
     * the source of a connection (RFC 1122 section 3.2.1.3, RFC 4291 section 2.7), so it is never
     * a client.
     */
    public boolean isMulticast() {
        return isIpv4() ? ((low >>> 28) & 0xF) == 0xE : (high >>> 56) == 0xFF;
    }

    long high() {
        return high;
    }

    long low() {
        return low;
    }

    /**
     * The canonical text: a dotted quad for IPv4, the RFC 5952 form for IPv6 (lower case, no
     * leading zeros, the longest run of two or more zero groups shortened to {@code ::}).
     */
    @Override
    public String toString() {
        if (isIpv4()) {
            return ((low >>> 24) & 0xFF) + "." + ((low >>> 16) & 0xFF) + "." + ((low >>> 8) & 0xFF) + "."
                    + (low & 0xFF);
        }
        return formatIpv6(high, low);
    }

    static String formatIpv6(long high, long low) {
        int bestStart = -1;
        int bestLength = 1; // a single zero group is not shortened (RFC 5952 section 4.2.2)
        int runStart = -1;
        for (int g = 0; g < 8; g++) {
            if (group(high, low, g) == 0) {
                if (runStart < 0) {
                    runStart = g;
                }
                if (g - runStart + 1 > bestLength) { // strictly longer: the first run wins a tie
                    bestStart = runStart;
                    bestLength = g - runStart + 1;
                }
            } else {
                runStart = -1;
            }
        }
        StringBuilder text = new StringBuilder(39);
        for (int g = 0; g < 8; g++) {
            if (g == bestStart) {
                text.append("::");
                g += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(group(high, low, g)));
        }
        return text.toString();
    }

    private static int group(long high, long low, int g) {
        long half = g < 4 ? high : low;
        return (int) (half >>> (48 - 16 * (g & 3))) & 0xFFFF;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IpAddress other && high == other.high && low == other.low;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(high) * 31 + Long.hashCode(low);
    }
}
