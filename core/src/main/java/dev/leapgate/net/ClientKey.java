package dev.leapgate.net;

import java.util.List;
import java.util.Objects;

/**
 * The compact identity of a client: one {@code long} per client, for per-client limiter state
 * (a primitive map key, no string per request, 8 bytes in memory).
 *
 * <h2>Why IPv6 is grouped</h2>
 *
 * An IPv6 subscriber is normally given at least a whole /64 and can pick any of its 2^64
 * addresses, per connection if it likes; limiting per address would be no limit at all. So an
 * IPv6 client is its prefix, /64 by default. The prefix length is configurable from 32 to 64: a
 * {@code long} holds at most the first 64 bits, and a prefix shorter than /32 (a typical provider
 * allocation) would put unrelated networks behind one limit. IPv4 clients are single addresses.
 *
 * <h2>Encoding</h2>
 *
 * An IPv6 key is the first 64 bits of the address with every bit after the prefix cleared: the
 * prefix itself, so {@code 2001:db8:1:2::/64} is {@code 0x2001_0db8_0001_0002}. Since that can use
 * every value of a {@code long}, IPv4 needs values that no IPv6 client can produce. The multicast
 * block ff00::/8 is such a range: a multicast address can never be the source of a connection
 * (RFC 4291 section 2.7), so no client prefix starts with byte 0xff, whatever the prefix length.
 * Keys whose top byte is 0xff are therefore reserved for everything else:
 *
 * <pre>
 *   0xff00_0000_aabb_ccdd   the IPv4 address aa.bb.cc.dd (hex bytes)
 *   0xffff_ffff_ffff_ffff   UNKNOWN: no usable address (-1L)
 *   other 0xff.. values     not produced
 *   anything else           an IPv6 prefix
 * </pre>
 *
 * An IPv6 address that carries an IPv4 host in its last 32 bits is that host, and gets its key:
 * an address in the NAT64 well-known prefix {@code 64:ff9b::/96} (RFC 6052), in a prefix of the
 * operator's that a translator uses instead ({@code nat64-prefixes}, /96 only), or in the fixed
 * forms {@code ::ffff:0:a.b.c.d} (IPv4-translated, RFC 2765) and {@code ::a.b.c.d} (IPv4-compatible,
 * RFC 4291, when {@code a} is not 0, so that {@code ::1} stays loopback). Otherwise a server
 * behind a stateless translator (SIIT-DC, RFC 7755) would see every IPv4 client there is in one
 * /64, and one abusive IPv4 host would exhaust a per-client limit for all of them. So is an address
 * of the tunnels that carry IPv6 over IPv4: a 6to4 address ({@code 2002::/16}, RFC 3056) is the
 * IPv4 host in its bits 16 to 47, which holds the whole {@code /48} (65,536 /64s, each a client of
 * its own otherwise), and a Teredo address ({@code 2001:0::/32}, RFC 4380) the client's IPv4
 * address in its last 32 bits, inverted (every client of one Teredo server shares a /64
 * otherwise).
 *
 * <p>Two clients have the same key exactly when they are the same IPv4 address (also when
 * written in one of those forms), or other IPv6 addresses in the same prefix. Keys are only
 * comparable for one prefix length, and rendering an IPv6 key needs it back: it is
 * configuration, not part of the key.
 */
public final class ClientKey {

    /** The key of a client whose address could not be determined; formats as {@code unknown}. */
    public static final long UNKNOWN = -1L;

    /** The IPv6 grouping used unless configured otherwise: the usual subscriber allocation. */
    public static final int DEFAULT_IPV6_PREFIX_LENGTH = 64;

    static final int MIN_IPV6_PREFIX_LENGTH = 32;
    static final int MAX_IPV6_PREFIX_LENGTH = 64;

    private static final long IPV4_TAG = 0xFF00_0000_0000_0000L;

    /** The first 64 bits of the NAT64 well-known prefix {@code 64:ff9b::/96}; its next 32 are zero. */
    private static final long NAT64_WELL_KNOWN_HIGH = 0x0064_FF9B_0000_0000L;

    /** The first 16 bits of a 6to4 address (RFC 3056), {@code 2002:aabb:ccdd::/48} for {@code aa.bb.cc.dd}. */
    private static final long SIX_TO_FOUR = 0x2002L;

    /**
     * The first 32 bits of a Teredo address (RFC 4380), {@code 2001:0::/32}: the Teredo server's
     * IPv4 address next, the client's (as its NAT shows it), inverted, in the last 32 bits.
     */
    private static final long TEREDO = 0x2001_0000L;

    /** Bits 64 to 95 of an IPv4-translated address, {@code ::ffff:0:a.b.c.d}; its first 64 are zero. */
    private static final long IPV4_TRANSLATED = 0xFFFF_0000L;

    /** No translation prefixes but the fixed ones. */
    static final long[] NO_PREFIXES = {};

    private ClientKey() {}

    /**
     * The key of a client address.
     *
     * @throws IllegalArgumentException if {@code ipv6PrefixLength} is not between 32 and 64, or
     *     the address is multicast (never a client, and its key would fall in the reserved range)
     */
    public static long of(IpAddress address, int ipv6PrefixLength) {
        checkIpv6PrefixLength(ipv6PrefixLength);
        checkClient(address);
        return ofUnchecked(address, ipv6Mask(ipv6PrefixLength), NO_PREFIXES);
    }

    /** Checks that {@code address} can be a client's: not null, not multicast. */
    static void checkClient(IpAddress address) {
        Objects.requireNonNull(address, "address");
        if (address.isMulticast()) {
            throw new IllegalArgumentException(
                    "multicast address " + address + " cannot be a client: it is never the source of a connection");
        }
    }

    /**
     * Unchecked: the caller has validated the mask and excluded multicast addresses.
     *
     * @param nat64Prefixes the operator's /96 translation prefixes, two values each: the first 64
     *     bits and the next 32 ({@link #nat64Prefixes})
     */
    static long ofUnchecked(IpAddress address, long ipv6Mask, long[] nat64Prefixes) {
        if (address.isIpv4() || embedsIpv4(address, nat64Prefixes)) {
            return IPV4_TAG | (address.low() & 0xFFFF_FFFFL);
        }
        long high = address.high();
        if (high >>> 48 == SIX_TO_FOUR) {
            return IPV4_TAG | ((high >>> 16) & 0xFFFF_FFFFL); // 2002:aabb:ccdd::/48
        }
        if (high >>> 32 == TEREDO) {
            return IPV4_TAG | (~address.low() & 0xFFFF_FFFFL); // the client's address, inverted
        }
        return high & ipv6Mask;
    }

    /** Whether an IPv6 {@code address} carries an IPv4 host in its last 32 bits (see the class comment). */
    private static boolean embedsIpv4(IpAddress address, long[] nat64Prefixes) {
        long high = address.high();
        long middle = address.low() >>> 32;
        if (high == 0) {
            return middle == IPV4_TRANSLATED || (middle == 0 && (address.low() & 0xFF00_0000L) != 0);
        }
        if (high == NAT64_WELL_KNOWN_HIGH && middle == 0) {
            return true;
        }
        for (int i = 0; i < nat64Prefixes.length; i += 2) {
            if (high == nat64Prefixes[i] && middle == nat64Prefixes[i + 1]) {
                return true;
            }
        }
        return false;
    }

    /**
     * The translation prefixes of {@code prefixes} as {@link #ofUnchecked} takes them.
     *
     * @throws IllegalArgumentException naming a block that is not an IPv6 /96 prefix
     */
    static long[] nat64Prefixes(CidrList prefixes) {
        List<Cidr> cidrs = prefixes.cidrs();
        long[] values = new long[cidrs.size() * 2];
        for (int i = 0; i < cidrs.size(); i++) {
            Cidr prefix = cidrs.get(i);
            if (prefix.isIpv4() || prefix.prefixLength() != 96) {
                throw new IllegalArgumentException(prefix + " is not an IPv6 /96 prefix: a translator writes an IPv4"
                        + " client in the last 32 bits of an address of its /96, such as 64:ff9b:1::/96"
                        + " (prefixes of other lengths, with the IPv4 address split around bits 64 to 71, are not"
                        + " supported)");
            }
            values[2 * i] = prefix.network().high();
            values[2 * i + 1] = prefix.network().low() >>> 32;
        }
        return values;
    }

    /**
     * The text of a key for logs and headers: {@code 203.0.113.7}, {@code 2001:db8:1:2::/64},
     * {@code unknown}.
     *
     * @param ipv6PrefixLength the prefix length the key was made with
     * @throws IllegalArgumentException if the value is not a key made with that prefix length
     */
    public static String format(long key, int ipv6PrefixLength) {
        checkIpv6PrefixLength(ipv6PrefixLength);
        if (key == UNKNOWN) {
            return "unknown";
        }
        if ((key >>> 56) == 0xFF) {
            if ((key >>> 32) != (IPV4_TAG >>> 32)) {
                throw new IllegalArgumentException("not a client key: 0x" + Long.toHexString(key));
            }
            return new IpAddress(0L, IpLiteralParser.IPV4_MAPPED_LOW | (key & 0xFFFF_FFFFL)).toString();
        }
        if ((key & ~ipv6Mask(ipv6PrefixLength)) != 0) {
            throw new IllegalArgumentException("not a client key for ipv6PrefixLength " + ipv6PrefixLength + ": 0x"
                    + Long.toHexString(key) + " has bits set after the prefix");
        }
        return IpAddress.formatIpv6(key, 0L) + "/" + ipv6PrefixLength;
    }

    static void checkIpv6PrefixLength(int ipv6PrefixLength) {
        if (ipv6PrefixLength < MIN_IPV6_PREFIX_LENGTH || ipv6PrefixLength > MAX_IPV6_PREFIX_LENGTH) {
            throw new IllegalArgumentException("ipv6PrefixLength must be between " + MIN_IPV6_PREFIX_LENGTH + " and "
                    + MAX_IPV6_PREFIX_LENGTH + " (a client key holds at most the first 64 bits of an IPv6 address),"
                    + " was " + ipv6PrefixLength);
        }
    }

    static long ipv6Mask(int ipv6PrefixLength) {
        return Cidr.highMask(ipv6PrefixLength);
    }
}
