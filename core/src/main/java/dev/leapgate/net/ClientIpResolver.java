package dev.leapgate.net;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds the address of the client behind a request, from what any HTTP framework can hand over:
 * the address of the direct peer and the values of the forwarding headers.
 *
 * <h2>Whom to believe</h2>
 *
 * A forwarding header is text the client can write. Taken blindly (or its leftmost entry), it lets
 * every client pick its own address and escape a per-IP limit. So:
 *
 * <ol>
 *   <li>If the direct peer is not a trusted proxy, it is the client; the headers are ignored
 *       entirely.
 *   <li>Otherwise the peer's header is walked from the right. Each trusted proxy appends the
 *       address it received the request from, so the rightmost entry is vouched for by the peer,
 *       the next one by that entry if it is a trusted proxy too, and so on. Entries that are
 *       trusted proxies are skipped; the first address that is not one is the client.
 *   <li>An entry that names no address ({@code unknown}, an obfuscated {@code _id}, a malformed or
 *       over-long element, a multicast address) ends the walk: the client is the last trusted
 *       hop, i.e. the proxy that reported it. Nothing further left is believed, since only that
 *       proxy vouched for what came next, and it didn't say.
 *   <li>If every entry is a trusted proxy, the client is the leftmost one walked; with no header
 *       at all, the peer.
 * </ol>
 *
 * Which header is walked is a {@link ForwardingHeader}; never both. Names are never resolved.
 *
 * <h2>Bounded work</h2>
 *
 * At most {@link #MAX_HOPS} list elements (empty ones included) are examined per header, and an
 * element longer than 512 characters is not read. Walking stops there, at the last trusted hop.
 * Real chains are a handful of hops, and the entries further left were written by the client
 * anyway, so a 100 KB header costs a few KB of scanning, not 100 KB of parsing.
 *
 * <h2>Failure</h2>
 *
 * Request content never causes an exception: null, empty, blank, huge or garbage values only
 * change the answer. Only configuration is validated, by the {@link Builder}. If the peer address
 * itself is unusable (null, not a literal, multicast), the client is unknown.
 *
 * <p>Concurrency: immutable after {@link Builder#build()}; every field is final and the trusted
 * list is immutable, so one instance serves all request threads without synchronization. A call
 * allocates only its own scratch state (a scanner and the parsed addresses).
 */
public final class ClientIpResolver {

    /** The most list elements examined in a forwarding header for one request. */
    public static final int MAX_HOPS = 20;

    /** What {@link #walk} returns, when asked for a named client, where the header names none. */
    private static final IpAddress UNNAMED = new IpAddress(-1L, -1L);

    private final CidrList trustedProxies;
    private final int ipv6PrefixLength;
    private final long ipv6KeyMask;
    private final CidrList nat64Prefixes;
    private final long[] nat64Values;
    private final ForwardingHeader forwardingHeader;

    private ClientIpResolver(Builder builder) {
        this.trustedProxies = builder.trustedProxies;
        this.ipv6PrefixLength = builder.ipv6PrefixLength;
        this.ipv6KeyMask = ClientKey.ipv6Mask(ipv6PrefixLength);
        this.nat64Prefixes = builder.nat64Prefixes;
        this.nat64Values = ClientKey.nat64Prefixes(nat64Prefixes);
        this.forwardingHeader = builder.forwardingHeader;
    }

    /**
     * A builder with no trusted proxies (the peer is always the client), IPv6 clients grouped by
     * /64, and {@link ForwardingHeader#X_FORWARDED_FOR}, the header nearly every proxy writes.
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The client address, or empty if the peer address is unusable.
     *
     * @param remoteAddr the direct peer, as {@code ServletRequest.getRemoteAddr()} gives it (an IPv6
     *     address may be bracketed and carry a zone id)
     * @param forwarded the values of the {@code Forwarded} header in order, one per header line;
     *     empty or null if absent
     * @param xForwardedFor the values of the {@code X-Forwarded-For} header, likewise
     */
    public Optional<IpAddress> resolve(String remoteAddr, List<String> forwarded, List<String> xForwardedFor) {
        return Optional.ofNullable(resolveAddress(remoteAddr, forwarded, xForwardedFor, false));
    }

    /**
     * The client that the trusted proxies name, as {@link #resolve} finds it, but empty where
     * {@code resolve} falls back to a proxy's own address because the header names no client: an
     * element that is no address ({@code unknown}, an obfuscated identifier, a unix socket), a
     * header without an element, or more than {@link #MAX_HOPS} trusted hops. For what must not be
     * given to a proxy's clients as if they were the proxy, such as the status of a server whose
     * proxy runs on an allowed address. A peer that is no trusted proxy is the client, as for
     * {@code resolve}. Arguments as for {@link #resolve}.
     */
    public Optional<IpAddress> resolveNamed(String remoteAddr, List<String> forwarded, List<String> xForwardedFor) {
        IpAddress client = resolveAddress(remoteAddr, forwarded, xForwardedFor, true);
        return client == UNNAMED ? Optional.empty() : Optional.ofNullable(client);
    }

    /**
     * The {@link ClientKey} of the client, or {@link ClientKey#UNKNOWN} if the peer address is
     * unusable. Arguments as for {@link #resolve}.
     */
    public long resolveKey(String remoteAddr, List<String> forwarded, List<String> xForwardedFor) {
        IpAddress client = resolveAddress(remoteAddr, forwarded, xForwardedFor, false);
        return client == null ? ClientKey.UNKNOWN : ClientKey.ofUnchecked(client, ipv6KeyMask, nat64Values);
    }

    /**
     * The {@link ClientKey} of a client at {@code address}, as this resolver counts clients: IPv6
     * grouped by {@link #ipv6PrefixLength()}, an address in one of {@link #nat64Prefixes()} (or
     * another form that carries an IPv4 host, see {@link ClientKey}) as the IPv4 address it embeds.
     *
     * @throws IllegalArgumentException if the address is multicast (never the source of a connection)
     */
    public long key(IpAddress address) {
        ClientKey.checkClient(address);
        return ClientKey.ofUnchecked(address, ipv6KeyMask, nat64Values);
    }

    /** The text of a key from {@link #resolveKey}: {@code 203.0.113.7}, {@code 2001:db8::/64}. */
    public String formatKey(long key) {
        return ClientKey.format(key, ipv6PrefixLength);
    }

    public CidrList trustedProxies() {
        return trustedProxies;
    }

    public int ipv6PrefixLength() {
        return ipv6PrefixLength;
    }

    /** The operator's NAT64 prefixes, besides the well-known {@code 64:ff9b::/96}; empty by default. */
    public CidrList nat64Prefixes() {
        return nat64Prefixes;
    }

    public ForwardingHeader forwardingHeader() {
        return forwardingHeader;
    }

    /** @param named whether a fallback to a proxy's own address is {@link #UNNAMED} */
    private IpAddress resolveAddress(
            String remoteAddr, List<String> forwarded, List<String> xForwardedFor, boolean named) {
        IpAddress peer = parsePeer(remoteAddr);
        if (peer == null || !trustedProxies.contains(peer)) {
            return peer;
        }
        return switch (forwardingHeader) {
            case FORWARDED -> walk(peer, new ForwardedScanner(forwarded), false, named);
            case X_FORWARDED_FOR -> walk(peer, new XForwardedForScanner(xForwardedFor), false, named);
            case PREFER_FORWARDED -> {
                IpAddress client = walk(peer, new ForwardedScanner(forwarded), true, named);
                yield client != null ? client : walk(peer, new XForwardedForScanner(xForwardedFor), false, named);
            }
        };
    }

    /**
     * Walks one header from the right, starting from the trusted peer.
     *
     * @param onlyIfFirstIsHop return null, instead of the peer, if the rightmost non-empty element
     *     is not a hop (or there is none): the header was not written by the peer, try the other
     * @param named return {@link #UNNAMED} where the walk would fall back to the address of a trusted
     *     proxy because the header names no client further left (but null as above)
     */
    private IpAddress walk(IpAddress peer, HopScanner hops, boolean onlyIfFirstIsHop, boolean named) {
        IpAddress lastTrusted = peer;
        boolean sawHop = false;
        for (int examined = 0; examined < MAX_HOPS; examined++) {
            HopScanner.Step step = hops.next();
            if (step == HopScanner.Step.EMPTY) {
                continue;
            }
            if (step == HopScanner.Step.END && sawHop) {
                return lastTrusted; // every hop it names is a trusted proxy: the leftmost is the client
            }
            if (step != HopScanner.Step.NODE) { // END before any hop, or UNUSABLE
                break;
            }
            sawHop = true;
            IpAddress hop = IpLiteralParser.parseNode(hops.nodeText, hops.nodeFrom, hops.nodeTo);
            if (hop == null || hop.isMulticast()) {
                // unknown, obfuscated or garbage: nobody vouches further left
                return named ? UNNAMED : lastTrusted;
            }
            if (!trustedProxies.contains(hop)) {
                return hop;
            }
            lastTrusted = hop;
        }
        return onlyIfFirstIsHop && !sawHop ? null : named ? UNNAMED : lastTrusted;
    }

    /**
     * The TCP peer's address as containers report it ({@code getRemoteAddr()}): a literal, possibly
     * bracketed ({@code [::1]}, as Jetty 12 gives IPv6 peers) and with a zone id. Null if unusable,
     * including multicast, which cannot be the peer of a connection.
     */
    public static IpAddress parsePeer(String remoteAddr) {
        if (remoteAddr == null) {
            return null;
        }
        int from = 0;
        int to = remoteAddr.length();
        if (to - from >= 2 && remoteAddr.charAt(0) == '[' && remoteAddr.charAt(to - 1) == ']') {
            from++;
            to--;
        }
        IpAddress peer = IpLiteralParser.parse(remoteAddr, from, to, true, false);
        return peer == null || peer.isMulticast() ? null : peer;
    }

    @Override
    public String toString() {
        return "ClientIpResolver[trustedProxies=[" + trustedProxies + "], ipv6PrefixLength=" + ipv6PrefixLength
                + ", nat64Prefixes=[" + nat64Prefixes + "], forwardingHeader=" + forwardingHeader + "]";
    }

    /** Validates each setting as it is set. Not thread-safe; build once, share the resolver. */
    public static final class Builder {

        private CidrList trustedProxies = CidrList.empty();
        private int ipv6PrefixLength = ClientKey.DEFAULT_IPV6_PREFIX_LENGTH;
        private CidrList nat64Prefixes = CidrList.empty();
        private ForwardingHeader forwardingHeader = ForwardingHeader.X_FORWARDED_FOR;

        private Builder() {}

        /**
         * The proxies whose forwarding headers are believed: only the ones in front of this server
         * that you operate or whose headers you trust (load balancers, CDN ranges). Default: none.
         */
        public Builder trustedProxies(CidrList trustedProxies) {
            this.trustedProxies = Objects.requireNonNull(trustedProxies, "trustedProxies");
            return this;
        }

        /**
         * How IPv6 clients are grouped, from 32 to 64; default 64. See {@link ClientKey}.
         *
         * @throws IllegalArgumentException if out of range
         */
        public Builder ipv6PrefixLength(int ipv6PrefixLength) {
            ClientKey.checkIpv6PrefixLength(ipv6PrefixLength);
            this.ipv6PrefixLength = ipv6PrefixLength;
            return this;
        }

        /**
         * The IPv6 /96 prefixes in which a translator in front of this server (NAT64, SIIT-DC) writes
         * IPv4 clients, besides the well-known {@code 64:ff9b::/96}, which always counts: an address
         * in one is counted as the IPv4 address in its last 32 bits, not with every other IPv4
         * client in the prefix's /64. Default: none.
         *
         * @throws IllegalArgumentException naming a block that is not an IPv6 /96 prefix
         */
        public Builder nat64Prefixes(CidrList nat64Prefixes) {
            ClientKey.nat64Prefixes(Objects.requireNonNull(nat64Prefixes, "nat64Prefixes")); // checks them
            this.nat64Prefixes = nat64Prefixes;
            return this;
        }

        /**
         * Which header to read behind a trusted proxy; default {@link
         * ForwardingHeader#X_FORWARDED_FOR}. Set it to the header your proxies write: see {@link
         * ForwardingHeader} for why reading a header the proxies do not manage lets clients choose
         * their own address.
         */
        public Builder forwardingHeader(ForwardingHeader forwardingHeader) {
            this.forwardingHeader = Objects.requireNonNull(forwardingHeader, "forwardingHeader");
            return this;
        }

        public ClientIpResolver build() {
            return new ClientIpResolver(this);
        }
    }
}
