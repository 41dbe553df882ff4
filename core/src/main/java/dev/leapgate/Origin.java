package dev.leapgate;

import dev.leapgate.internal.Sha256;
import dev.leapgate.net.ClientIpResolver;
import dev.leapgate.net.ClientKey;
import dev.leapgate.net.IpAddress;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Who is calling: a client IP address (the usual case), or an identifier such as an API key or a
 * user name. Per-origin rules count each origin separately, under its {@link #key()}.
 *
 * <ul>
 *   <li>An IP origin's key is its {@link ClientKey}: an IPv4 address, or the IPv6 prefix (default
 *       /64) that groups the addresses one client can pick from.
 *   <li>An identifier's key is a 64-bit hash of it, seeded at random when the class loads, so that a
 *       client cannot craft identifiers that share another's key.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class Origin {

    private static final long SEED = ThreadLocalRandom.current().nextLong();
    private static final Origin UNKNOWN = new Origin(ClientKey.UNKNOWN, null, "unknown", false);
    /** Hex digits of a secret's SHA-256 that {@link #toString()} shows: 48 bits. */
    private static final int FINGERPRINT_DIGITS = 12;

    private final long key;
    private final IpAddress ip;
    private final String id;
    private final boolean secret;

    private Origin(long key, IpAddress ip, String id, boolean secret) {
        this.key = key;
        this.ip = ip;
        this.id = id;
        this.secret = secret;
    }

    /**
     * The client at {@code ip}; IPv6 clients are grouped by their first {@code ipv6PrefixLength} bits.
     *
     * @throws IllegalArgumentException if {@code ipv6PrefixLength} is not between 32 and 64, or
     *     {@code ip} is a multicast address (never the source of a connection)
     */
    public static Origin ip(IpAddress ip, int ipv6PrefixLength) {
        Objects.requireNonNull(ip, "ip");
        return new Origin(ClientKey.of(ip, ipv6PrefixLength), ip, null, false);
    }

    /**
     * The client at {@code ip}, counted as {@code clients} counts it: IPv6 clients grouped by its
     * {@linkplain ClientIpResolver#ipv6PrefixLength() prefix length}, an address in one of its
     * {@linkplain ClientIpResolver#nat64Prefixes() NAT64 prefixes} as the IPv4 address it embeds.
     *
     * @throws IllegalArgumentException if {@code ip} is a multicast address
     */
    public static Origin ip(IpAddress ip, ClientIpResolver clients) {
        Objects.requireNonNull(ip, "ip");
        Objects.requireNonNull(clients, "clients");
        return new Origin(clients.key(ip), ip, null, false);
    }

    /**
     * The client at the IP literal {@code address} (what a servlet request's {@code getRemoteAddr()}
     * gives, say), IPv6 clients grouped by their /64 as the HTTP filters group them by default.
     *
     * @throws IllegalArgumentException if {@code address} is not an IP literal ({@link
     *     IpAddress#parse} says why; a host name is never looked up), or is a multicast address
     */
    public static Origin ip(String address) {
        return ip(IpAddress.parse(Objects.requireNonNull(address, "address")), ClientKey.DEFAULT_IPV6_PREFIX_LENGTH);
    }

    /** The client identified by {@code id} (a user name, a client id), shown as it is. */
    public static Origin id(String id) {
        Objects.requireNonNull(id, "id");
        return new Origin(hash(id), null, id, false);
    }

    /**
     * The client identified by a credential such as an API key: counted and named by rules as
     * {@link #id(String)} is, but never shown. {@link #toString()} (what the status and the rejection
     * log print) is its fingerprint, {@code sha256:} and the first 12 hex digits of the SHA-256 of its
     * UTF-8 bytes ({@code printf %s "$KEY" | sha256sum | cut -c1-12} gives the digits), and a shared
     * store keeps its windows under a hash of it.
     */
    public static Origin secret(String id) {
        Objects.requireNonNull(id, "id");
        return new Origin(hash(id), null, id, true);
    }

    /** A client whose address could not be determined; all such clients share one key. */
    public static Origin unknown() {
        return UNKNOWN;
    }

    /** The key per-origin state is kept under. */
    public long key() {
        return key;
    }

    /** The client's IP address, or {@code null} for an identifier or an unknown client. */
    public IpAddress ip() {
        return ip;
    }

    /**
     * The text rules name this origin by: the IP address in canonical form, or the identifier (also
     * a {@link #secret}'s, as sent: do not print it).
     */
    public String id() {
        return ip != null ? ip.toString() : id;
    }

    /** Whether the identifier is a credential, never to be shown: see {@link #secret(String)}. */
    public boolean isSecret() {
        return secret;
    }

    /** Seeded FNV-1a over the UTF-16 units, finished with Murmur3's mixer. */
    private static long hash(String id) {
        long h = SEED ^ 0xcbf29ce484222325L;
        for (int i = 0; i < id.length(); i++) {
            h = (h ^ id.charAt(i)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    /**
     * Equal origins have the same key and {@link #id()}, and are both secret or both not: a secret
     * and a plain identifier with the same text are counted alike but shown differently, so one may
     * not stand for the other (a set would otherwise keep the plain one and print the credential).
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof Origin other
                && key == other.key
                && secret == other.secret
                && Objects.equals(id(), other.id());
    }

    @Override
    public int hashCode() {
        return Long.hashCode(key);
    }

    /** The origin as the status and the log show it: {@link #id()}, or a secret's fingerprint. */
    @Override
    public String toString() {
        return secret ? "sha256:" + Sha256.hex(id, FINGERPRINT_DIGITS) : id();
    }
}
