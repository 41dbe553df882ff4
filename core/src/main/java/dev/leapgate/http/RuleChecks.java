package dev.leapgate.http;

import dev.leapgate.net.Cidr;
import dev.leapgate.net.ClientIpResolver;
import dev.leapgate.net.ClientKey;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Finds rules that can never match, where an adapter knows enough about the application to tell,
 * and says why: a rule that starts silently and limits nothing is a limit the operator believes is
 * there. Adapters run these checks when the gate starts and at every reload ({@link
 * HttpGate.Builder#check}), and the gate logs what they find at WARN. The gate runs one check of
 * its own on every rule set: IPv6 origins narrower than a client ({@link #narrowerThanAClient}).
 */
public final class RuleChecks {

    private RuleChecks() {}

    /**
     * Rules written with a path prefix that requests never carry: the servlet filter keys a request
     * by its path below the context path, so a rule for {@code POST /app/login} in an application
     * deployed at {@code /app} matches {@code /app/app/login}, not {@code /app/login}. A rule is
     * reported when its pattern begins with {@code prefix} and the application serves nothing
     * below it (per {@code served}, given the path below the context path), since then the rule
     * can only have been meant for the path without the prefix.
     *
     * @param prefix the path requests are keyed below, e.g. the context path {@code /app}; nothing
     *     is reported for the root
     * @param what what the prefix is, for the message: {@code "the context path"}
     * @param served whether the application serves a path (below the prefix), e.g. {@code /app/x}
     */
    public static List<String> writtenWithPrefix(RuleSet rules, String prefix, String what, Predicate<String> served) {
        Objects.requireNonNull(rules, "rules");
        List<String> problems = new ArrayList<>();
        String key = RequestPath.normalize(prefix);
        if (key.equals("/")) {
            return problems;
        }
        for (FlowRule rule : rules.rules()) {
            String path = rule.match().path();
            if ((path.equals(key) || path.startsWith(key + "/")) && !served.test(path)) {
                String fixed = path.equals(key) ? "/" : path.substring(key.length());
                String method = rule.match().method().map(m -> m + " ").orElse("");
                problems.add("rule '" + rule.name() + "' (" + rule.match() + ") can never match: rules match the"
                        + " path below " + what + " " + key + ", so it applies to " + key + key
                        + (fixed.equals("/") ? "" : fixed) + "; write " + method + fixed);
            }
        }
        return problems;
    }

    /**
     * {@code deny} entries and {@code scope = origin:<address>} rules that name less of the IPv6
     * address space than one client holds: a subscriber is given a whole /64 (the configured {@code
     * ipv6-prefix}), and picks any address in it, so a denial of one of its addresses, or a rule for
     * one, is escaped by the next address it takes. Per-client rules count such a client once (its
     * prefix is its key); these name one address of it. Valid, so a warning and not an error: on a
     * network that hands out single addresses, or for one server's address, it is what is meant.
     *
     * @param clients how clients are counted ({@code ipv6-prefix}, {@code nat64-prefixes})
     */
    static List<String> narrowerThanAClient(RuleSet rules, ClientIpResolver clients) {
        Objects.requireNonNull(rules, "rules");
        int ipv6PrefixLength = clients.ipv6PrefixLength();
        List<String> problems = new ArrayList<>();
        String counted = " (per-client rules count each /" + ipv6PrefixLength + " as one client: ipv6-prefix = "
                + ipv6PrefixLength + ")";
        for (Cidr block : rules.deny().ranges().cidrs()) {
            String client = clientBlock(block.isIpv4(), block.prefixLength(), block.network(), clients);
            if (client != null) {
                problems.add("deny: " + block
                        + (block.prefixLength() == 128
                                ? " is one IPv6 address"
                                : " is narrower than /" + ipv6PrefixLength)
                        + ", but an IPv6 client holds a whole /" + ipv6PrefixLength
                        + " and escapes the denial by taking another address in " + client + counted
                        + "; to deny that client, write " + client);
            }
        }
        for (FlowRule rule : rules.rules()) {
            if (rule.scope().kind() != Scope.Kind.ORIGIN) {
                continue;
            }
            IpAddress address;
            try {
                address = IpAddress.parse(rule.scope().origin());
            } catch (IllegalArgumentException anIdentifier) {
                continue;
            }
            String client = clientBlock(address.isIpv4(), 128, address, clients);
            if (client != null) {
                problems.add("rule '" + rule.name() + "': scope " + rule.scope() + " limits one IPv6 address, but an"
                        + " IPv6 client holds a whole /" + ipv6PrefixLength + " and escapes the rule by taking another"
                        + " address in " + client + counted + "; a per-origin rule counts " + client
                        + " as one client");
            }
        }
        return problems;
    }

    /**
     * The client block ({@code 2001:db8:1:2::/64}) that an IPv6 block of {@code prefixLength} bits
     * starting at {@code first} lies in, when it is narrower than that block; else null. Not for
     * IPv4 (also written in a NAT64 prefix), multicast (never a client) or addresses in ::/64
     * (loopback, unspecified: no subscriber holds them).
     */
    private static String clientBlock(boolean ipv4, int prefixLength, IpAddress first, ClientIpResolver clients) {
        int ipv6PrefixLength = clients.ipv6PrefixLength();
        if (ipv4 || prefixLength <= ipv6PrefixLength) {
            return null;
        }
        long key;
        try {
            key = clients.key(first);
        } catch (IllegalArgumentException multicast) {
            return null;
        }
        // A key shown without a prefix length is an IPv4 host's (an address in a NAT64 prefix, see
        // ClientKey): a client of one address, which no block is narrower than.
        String client = key == 0 ? null : ClientKey.format(key, ipv6PrefixLength);
        return client == null || client.indexOf('/') < 0 ? null : client;
    }

    /**
     * Rules whose pattern matches none of an application's routes: the JAX-RS provider keys a
     * request by its route template ({@code GET /users/{id}}), so a rule written for a concrete URL
     * ({@code GET /users/42}) or with the servlet's mapping ({@code /api/users/**}) matches nothing.
     *
     * @param routes every route, as method and template: {@code "GET /users/{id}"}
     * @param hint what to add to each message, e.g. how templates are written
     */
    public static List<String> matchingNoRoute(RuleSet rules, Collection<String> routes, String hint) {
        Objects.requireNonNull(rules, "rules");
        List<String> problems = new ArrayList<>();
        for (FlowRule rule : rules.rules()) {
            if (routes.stream().noneMatch(route -> matches(rule, route))) {
                problems.add("rule '" + rule.name() + "' (" + rule.match() + ") matches none of the application's "
                        + routes.size() + " routes, so it can never apply" + hint);
            }
        }
        return problems;
    }

    /**
     * In-flight rules over routes whose requests end before the work they start does: a stream of
     * server-sent events where nothing reports its end (a JAX-RS runtime off a servlet container),
     * whose request ends when its response has started, while the application goes on sending on
     * its own thread. Such a rule bounds the requests that open a
     * stream at one time, not the streams open, which a reader of the rule may believe it bounds.
     *
     * @param routes the routes whose requests end early, as method and template: {@code "GET
     *     /events"}
     * @param what what such a route serves and when its request ends, for the message
     */
    public static List<String> inFlightOverEarlyEnds(RuleSet rules, Collection<String> routes, String what) {
        Objects.requireNonNull(rules, "rules");
        List<String> problems = new ArrayList<>();
        for (FlowRule rule : rules.rules()) {
            if (rule.window() != null) {
                continue; // a rate limit counts a stream once, when it opens, as it counts any request
            }
            for (String route : routes) {
                if (matches(rule, route)) {
                    problems.add("rule '" + rule.name() + "' (" + rule.match() + ", in-flight " + rule.limit()
                            + ") matches " + route + ", " + what + ": it bounds the requests opening such streams"
                            + " at one time, not the streams open");
                }
            }
        }
        return problems;
    }

    /** Whether {@code rule} matches {@code route}, a method and a template: {@code "GET /users/{id}"}. */
    private static boolean matches(FlowRule rule, String route) {
        int space = route.indexOf(' ');
        return rule.match().matches(route.substring(0, space), RequestPath.normalize(route.substring(space + 1)));
    }
}
