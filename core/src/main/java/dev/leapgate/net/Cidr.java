package dev.leapgate.net;

import dev.leapgate.internal.Shown;
import java.util.Objects;

/**
 * A block of IP addresses: a network address and a prefix length, such as {@code 10.0.0.0/8} or
 * {@code 2001:db8::/32}.
 *
 * <p>Families do not mix: an IPv4 block contains only IPv4 addresses (which include IPv4-mapped
 * IPv6 addresses, see {@link IpAddress}), an IPv6 block only IPv6 ones. So {@code ::/0} means
 * "every IPv6 peer" and does not silently also trust every IPv4 peer, although the mapped range
 * lies inside it bit for bit. A block written in mapped form, {@code ::ffff:10.0.0.0/104}, is the
 * IPv4 block {@code 10.0.0.0/8}.
 *
 * <p>Immutable.
 */
public final class Cidr {

    private final long networkHigh;
    private final long networkLow;
    private final long maskHigh;
    private final long maskLow;
    private final boolean ipv4;
    /** In the family's own terms: 0..32 for IPv4, 0..128 for IPv6. */
    private final int prefixLength;

    private Cidr(long networkHigh, long networkLow, int bits128, boolean ipv4, int prefixLength) {
        this.maskHigh = highMask(bits128);
        this.maskLow = highMask(bits128 - 64);
        this.networkHigh = networkHigh;
        this.networkLow = networkLow;
        this.ipv4 = ipv4;
        this.prefixLength = prefixLength;
    }

    /**
     * Parses {@code address/prefixLength}, or a lone address meaning a block of one ({@code /32} or
     * {@code /128}). The address must be the first of its block: {@code 10.0.0.1/8} is rejected,
     * because a stray host part usually means a typo that would trust far more, or far fewer,
     * addresses than intended.
     *
     * @throws IllegalArgumentException naming the text and what is wrong, e.g. {@code invalid CIDR
     *     '10.0.0.0/33': prefix length must be between 0 and 32 for IPv4}
     */
    public static Cidr parse(String text) {
        Objects.requireNonNull(text, "text");
        int slash = text.indexOf('/');
        int addressEnd = slash < 0 ? text.length() : slash;
        IpAddress address;
        try {
            address = IpLiteralParser.parse(text, 0, addressEnd, false, true);
        } catch (IllegalArgumentException e) {
            throw invalid(text, e.getMessage());
        }
        boolean ipv6Syntax = IpLiteralParser.indexOf(text, ':', 0, addressEnd) >= 0;
        int maxLength = ipv6Syntax ? 128 : 32;
        int length = slash < 0 ? maxLength : parsePrefixLength(text, slash + 1);
        if (length < 0 || length > maxLength) {
            throw invalid(
                    text,
                    "prefix length must be between 0 and " + maxLength + (ipv6Syntax ? " for IPv6" : " for IPv4"));
        }
        // IPv4 is stored mapped (::ffff:a.b.c.d), so an IPv4 /n is the 128-bit prefix /96+n.
        int bits128 = ipv6Syntax ? length : 96 + length;
        long high = address.high() & highMask(bits128);
        long low = address.low() & highMask(bits128 - 64);
        boolean ipv4 = address.isIpv4() && bits128 >= 96;
        if (high != address.high() || low != address.low()) {
            // Shown in the notation the user wrote, so it can be pasted back.
            String network = ipv6Syntax ? IpAddress.formatIpv6(high, low) : new IpAddress(high, low).toString();
            throw invalid(text, "host bits are set, the network is " + network + "/" + length);
        }
        return new Cidr(high, low, bits128, ipv4, ipv4 ? bits128 - 96 : bits128);
    }

    /** Returns the prefix length, or -1 if the text is not 1 to 3 ASCII digits. */
    private static int parsePrefixLength(String text, int from) {
        int to = text.length();
        if (from == to || to - from > 3) {
            return -1;
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static IllegalArgumentException invalid(String text, String reason) {
        return new IllegalArgumentException("invalid CIDR " + Shown.quoted(text) + ": " + reason);
    }

    /** A mask of the {@code bits} most significant bits of a long; 0 and 64 are included. */
    static long highMask(int bits) {
        if (bits <= 0) {
            return 0L;
        }
        return bits >= 64 ? -1L : -1L << (64 - bits);
    }

    /** Whether the address lies in this block (and is of the same family). */
    public boolean contains(IpAddress address) {
        return address.isIpv4() == ipv4
                && (address.high() & maskHigh) == networkHigh
                && (address.low() & maskLow) == networkLow;
    }

    public boolean isIpv4() {
        return ipv4;
    }

    /** The prefix length in the family's own terms: 0..32 for IPv4, 0..128 for IPv6. */
    public int prefixLength() {
        return prefixLength;
    }

    /** The first address of the block. */
    public IpAddress network() {
        return new IpAddress(networkHigh, networkLow);
    }

    /** The canonical form, always with a prefix length: {@code 10.0.0.0/8}, {@code ::1/128}. */
    @Override
    public String toString() {
        String network = ipv4 ? network().toString() : IpAddress.formatIpv6(networkHigh, networkLow);
        return network + "/" + prefixLength;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr other
                && ipv4 == other.ipv4
                && prefixLength == other.prefixLength
                && networkHigh == other.networkHigh
                && networkLow == other.networkLow;
    }

    @Override
    public int hashCode() {
        return Objects.hash(ipv4, prefixLength, networkHigh, networkLow);
    }
}
