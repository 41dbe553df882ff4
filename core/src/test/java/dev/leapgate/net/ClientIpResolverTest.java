package dev.leapgate.net;

import static dev.leapgate.net.ForwardingHeader.FORWARDED;
import static dev.leapgate.net.ForwardingHeader.PREFER_FORWARDED;
import static dev.leapgate.net.ForwardingHeader.X_FORWARDED_FOR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ClientIpResolverTest {

    /** Two IPv4 proxy networks and one IPv6 one; 198.51.100.0/24 and 203.0.113.0/24 are clients. */
    private static final CidrList TRUSTED = CidrList.parse("10.0.0.0/8, 192.168.0.0/16, 2001:db8:cafe::/48");

    private static final String PROXY = "10.0.0.1";
    private static final String CLIENT = "198.51.100.7";
    private static final String STRANGER = "203.0.113.66";
    private static final String UNKNOWN = "unknown";
    private static final List<String> NONE = List.of();

    private static ClientIpResolver resolver(ForwardingHeader header) {
        return ClientIpResolver.builder()
                .trustedProxies(TRUSTED)
                .forwardingHeader(header)
                .build();
    }

    private static String resolve(
            ForwardingHeader header, String remoteAddr, List<String> forwarded, List<String> xForwardedFor) {
        return resolver(header)
                .resolve(remoteAddr, forwarded, xForwardedFor)
                .map(IpAddress::toString)
                .orElse(UNKNOWN);
    }

    static Stream<Arguments> xForwardedForCases() {
        return Stream.of(
                // The peer decides whether headers count at all.
                xff("untrusted peer, no header", STRANGER, NONE, STRANGER),
                xff("untrusted peer forges XFF", STRANGER, List.of("1.1.1.1"), STRANGER),
                xff("untrusted peer forges a trusted XFF", STRANGER, List.of("10.0.0.2"), STRANGER),
                xff("untrusted peer forges a chain", STRANGER, List.of(CLIENT + ", 10.0.0.2"), STRANGER),
                xff("trusted peer, no header: the proxy itself", PROXY, NONE, PROXY),
                xff("trusted peer, one entry", PROXY, List.of(CLIENT), CLIENT),
                // Chains and spoofing.
                xff("chain of trusted proxies", PROXY, List.of(CLIENT + ", 10.0.0.2, 192.168.1.1"), CLIENT),
                xff("spoofed leftmost entry", PROXY, List.of("1.1.1.1, " + CLIENT), CLIENT),
                xff(
                        "spoofed entries before a chain",
                        PROXY,
                        List.of("1.1.1.1, 5.5.5.5, " + CLIENT + ", 10.0.0.2"),
                        CLIENT),
                xff("client claims a trusted address", PROXY, List.of("10.9.9.9, " + CLIENT), CLIENT),
                xff("rightmost untrusted wins", PROXY, List.of(CLIENT + ", " + STRANGER), STRANGER),
                xff("all trusted: the leftmost", PROXY, List.of("10.0.0.2, 192.168.0.3"), "10.0.0.2"),
                xff("all trusted, one entry", PROXY, List.of("10.0.0.2"), "10.0.0.2"),
                // Repeated header lines are one list, in order.
                xff("repeated: proxy line last", PROXY, List.of("1.1.1.1, " + CLIENT, "10.0.0.2"), CLIENT),
                xff("repeated: chain split", PROXY, List.of(CLIENT, "10.0.0.2, 10.0.0.3"), CLIENT),
                xff("repeated: rightmost line wins", PROXY, List.of(STRANGER, CLIENT), CLIENT),
                xff("repeated: blank line skipped", PROXY, List.of(CLIENT, "", "  "), CLIENT),
                // Garbage, unknown, obfuscated: stop at the proxy that reported it.
                xff("garbage from the peer", PROXY, List.of(CLIENT + ", garbage"), PROXY),
                xff("garbage after a trusted hop", PROXY, List.of(CLIENT + ", garbage, 10.0.0.2"), "10.0.0.2"),
                xff("unknown from the peer", PROXY, List.of(CLIENT + ", unknown"), PROXY),
                xff("unknown after a trusted hop", PROXY, List.of(CLIENT + ", unknown, 10.0.0.2"), "10.0.0.2"),
                xff("obfuscated", PROXY, List.of(CLIENT + ", _hidden"), PROXY),
                xff("host name is never resolved", PROXY, List.of("localhost"), PROXY),
                xff("host name with port", PROXY, List.of("evil.example.com:80"), PROXY),
                xff("quoted entry", PROXY, List.of("\"" + CLIENT + "\""), PROXY),
                xff("leading-zero entry", PROXY, List.of("198.051.100.7"), PROXY),
                xff("multicast IPv4", PROXY, List.of("224.0.0.1"), PROXY),
                xff("multicast IPv6", PROXY, List.of("ff02::1"), PROXY),
                xff("garbage left of the client is never reached", PROXY, List.of("<script>, " + CLIENT), CLIENT),
                // Ports and brackets.
                xff("IPv4 with port", PROXY, List.of(CLIENT + ":5678"), CLIENT),
                xff("ports on every hop", PROXY, List.of(CLIENT + ":5678, 10.0.0.2:443"), CLIENT),
                xff("port out of range", PROXY, List.of(CLIENT + ":65536"), PROXY),
                xff("empty port", PROXY, List.of(CLIENT + ":"), PROXY),
                xff("non-numeric port", PROXY, List.of(CLIENT + ":http"), PROXY),
                xff("highest port", PROXY, List.of(CLIENT + ":65535"), CLIENT),
                xff("one-digit port", PROXY, List.of(CLIENT + ":9"), CLIENT),
                xff("six-digit port", PROXY, List.of(CLIENT + ":000080"), PROXY),
                xff("obfuscated port", PROXY, List.of(CLIENT + ":_09.az_AZ-x"), CLIENT),
                xff("obfuscated port without a name", PROXY, List.of(CLIENT + ":_"), PROXY),
                xff("obfuscated port with a foreign character", PROXY, List.of(CLIENT + ":_a$b"), PROXY),
                xff("unspecified address with port", PROXY, List.of("0.0.0.0:80"), "0.0.0.0"),
                xff("IPv6 bare", PROXY, List.of("2001:db8:1::7"), "2001:db8:1::7"),
                xff("IPv6 bracketed", PROXY, List.of("[2001:db8:1::7]"), "2001:db8:1::7"),
                xff("IPv6 bracketed with port", PROXY, List.of("[2001:db8:1::7]:80"), "2001:db8:1::7"),
                xff("IPv6 with zone", PROXY, List.of("[fe80::7%eth0]:80"), "fe80::7"),
                xff("IPv6 bare with zone", PROXY, List.of("::7%eth0"), "::7"),
                xff("IPv6 unclosed bracket", PROXY, List.of("[2001:db8:1::7:80"), PROXY),
                xff("IPv4 in brackets", PROXY, List.of("[" + CLIENT + "]"), PROXY),
                xff("whitespace", PROXY, List.of("  " + CLIENT + "  ,\t10.0.0.2 \t"), CLIENT),
                // Mixed families and IPv4-mapped IPv6.
                xff("IPv6 trusted proxy in an IPv4 chain", PROXY, List.of(CLIENT + ", 2001:db8:cafe::5"), CLIENT),
                xff("IPv6 peer and client", "2001:db8:cafe::1", List.of("2001:db8:1::7"), "2001:db8:1::7"),
                xff("IPv6 peer, IPv4 client", "2001:db8:cafe::1", List.of(CLIENT), CLIENT),
                xff("mapped client is IPv4", PROXY, List.of("::ffff:" + CLIENT), CLIENT),
                xff("mapped proxy is trusted", PROXY, List.of(CLIENT + ", [::ffff:10.0.0.2]:80"), CLIENT),
                xff("mapped peer is trusted", "::ffff:10.0.0.1", List.of(CLIENT), CLIENT),
                xff("mapped untrusted peer", "::ffff:203.0.113.66", List.of(CLIENT), STRANGER),
                xff("IPv4-compatible is not mapped", PROXY, List.of("::10.0.0.2"), "::a00:2"),
                // The peer as containers report it.
                xff("bracketed peer", "[2001:db8:cafe::1]", List.of(CLIENT), CLIENT),
                xff("peer with zone", "fe80::1%eth0", List.of(CLIENT), "fe80::1"),
                xff("null peer", null, List.of(CLIENT), UNKNOWN),
                xff("empty peer", "", List.of(CLIENT), UNKNOWN),
                xff("host name peer", "localhost", List.of(CLIENT), UNKNOWN),
                xff("unix socket peer", "/run/app.sock", List.of(CLIENT), UNKNOWN),
                xff("multicast peer", "224.0.0.1", List.of(CLIENT), UNKNOWN),
                // Empty, blank and null values.
                xff("empty value", PROXY, List.of(""), PROXY),
                xff("blank value", PROXY, List.of(" \t "), PROXY),
                xff("null value", PROXY, Collections.singletonList(null), PROXY),
                xff("null list", PROXY, null, PROXY),
                xff("null value before the client", PROXY, Arrays.asList(null, CLIENT), CLIENT),
                xff("null value after the client", PROXY, Arrays.asList(CLIENT, null), CLIENT),
                xff("trailing comma", PROXY, List.of(CLIENT + ","), CLIENT),
                xff("empty elements around", PROXY, List.of(",, " + CLIENT + " ,,"), CLIENT),
                xff("only commas", PROXY, List.of(",,,"), PROXY),
                xff("empty element then a trusted hop", PROXY, List.of(", ,10.0.0.2"), "10.0.0.2"));
    }

    private static Arguments xff(String name, String remoteAddr, List<String> xForwardedFor, String expected) {
        return arguments(name, remoteAddr, xForwardedFor, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("xForwardedForCases")
    void resolve_xForwardedFor(String name, String remoteAddr, List<String> xForwardedFor, String expected) {
        assertThat(resolve(X_FORWARDED_FOR, remoteAddr, NONE, xForwardedFor)).isEqualTo(expected);
        // With no Forwarded header, the default mode reads X-Forwarded-For the same way.
        assertThat(resolve(PREFER_FORWARDED, remoteAddr, NONE, xForwardedFor)).isEqualTo(expected);
        // And a Forwarded-only resolver ignores it.
        String peerOnly = resolve(X_FORWARDED_FOR, remoteAddr, NONE, NONE);
        assertThat(resolve(FORWARDED, remoteAddr, NONE, xForwardedFor)).isEqualTo(peerOnly);
    }

    static Stream<Arguments> forwardedCases() {
        return Stream.of(
                fwd("untrusted peer forges Forwarded", STRANGER, List.of("for=1.1.1.1"), STRANGER),
                fwd("trusted peer, one element", PROXY, List.of("for=" + CLIENT), CLIENT),
                fwd("quoted", PROXY, List.of("for=\"" + CLIENT + "\""), CLIENT),
                fwd("quoted IPv6 with port", PROXY, List.of("for=\"[2001:db8:1::7]:4711\""), "2001:db8:1::7"),
                fwd("quoted IPv6", PROXY, List.of("for=\"[2001:db8:1::7]\""), "2001:db8:1::7"),
                fwd("unquoted bracketed IPv6 (lenient)", PROXY, List.of("for=[2001:db8:1::7]"), "2001:db8:1::7"),
                fwd("quoted IPv4 with port", PROXY, List.of("for=\"" + CLIENT + ":8080\""), CLIENT),
                fwd("unquoted IPv4 with port (lenient)", PROXY, List.of("for=" + CLIENT + ":8080"), CLIENT),
                fwd("obfuscated port", PROXY, List.of("for=\"[2001:db8:1::7]:_abc\""), "2001:db8:1::7"),
                fwd("parameter name case", PROXY, List.of("For=" + CLIENT), CLIENT),
                fwd("parameter name upper case", PROXY, List.of("FOR=" + CLIENT), CLIENT),
                fwd(
                        "other parameters ignored",
                        PROXY,
                        List.of("for=" + CLIENT + ";proto=https;by=10.0.0.1;host=a.example"),
                        CLIENT),
                fwd("for after other parameters", PROXY, List.of("proto=https; for=" + CLIENT), CLIENT),
                fwd("untrusted by is ignored", PROXY, List.of("by=" + STRANGER + ";for=" + CLIENT), CLIENT),
                fwd("spaces around pairs", PROXY, List.of(" for = " + CLIENT + " ; proto=http "), CLIENT),
                fwd("empty pairs", PROXY, List.of(";for=" + CLIENT + ";;"), CLIENT),
                fwd("chain", PROXY, List.of("for=" + CLIENT + ", for=10.0.0.2"), CLIENT),
                fwd(
                        "spoofed leftmost",
                        PROXY,
                        List.of("for=1.1.1.1, for=" + CLIENT + ";proto=http, for=10.0.0.2"),
                        CLIENT),
                fwd("all trusted: the leftmost", PROXY, List.of("for=10.0.0.2, for=10.0.0.3"), "10.0.0.2"),
                fwd("repeated lines", PROXY, List.of("for=1.1.1.1, for=" + CLIENT, "for=10.0.0.2"), CLIENT),
                fwd("repeated: blank line skipped", PROXY, List.of("for=" + CLIENT, " "), CLIENT),
                fwd("unknown from the peer", PROXY, List.of("for=" + CLIENT + ", for=unknown"), PROXY),
                fwd(
                        "unknown after a trusted hop",
                        PROXY,
                        List.of("for=" + CLIENT + ", for=unknown, for=10.0.0.2"),
                        "10.0.0.2"),
                fwd("quoted unknown", PROXY, List.of("for=\"unknown\""), PROXY),
                fwd("obfuscated", PROXY, List.of("for=" + CLIENT + ", for=_hidden"), PROXY),
                fwd("quoted obfuscated", PROXY, List.of("for=\"_gazonk\""), PROXY),
                fwd("empty quoted for", PROXY, List.of("for=\"\""), PROXY),
                fwd("garbage for", PROXY, List.of("for=garbage"), PROXY),
                fwd("host name for", PROXY, List.of("for=localhost"), PROXY),
                fwd("comma inside quotes", PROXY, List.of("for=" + CLIENT + ";ext=\"a,b\", for=10.0.0.2"), CLIENT),
                fwd(
                        "escaped quote inside quotes",
                        PROXY,
                        List.of("for=" + CLIENT + ";ext=\"a\\\",b\", for=10.0.0.2"),
                        CLIENT),
                fwd(
                        "escaped backslash before the closing quote",
                        PROXY,
                        List.of("for=" + CLIENT + ";ext=\"a\\\\\", for=10.0.0.2"),
                        CLIENT),
                fwd("escaped for value", PROXY, List.of("for=\"\\[2001:db8:1::7\\]\""), "2001:db8:1::7"),
                fwd(
                        "client's unbalanced quote cannot swallow the proxy's element",
                        PROXY,
                        List.of("for=\"1.1.1.1, for=" + CLIENT),
                        CLIENT),
                fwd(
                        "client's trailing backslash cannot either",
                        PROXY,
                        List.of("for=\"1.1.1.1\\, for=" + CLIENT),
                        CLIENT),
                fwd(
                        "client's unbalanced quote on an earlier line",
                        PROXY,
                        List.of("for=\"1.1.1.1", "for=" + CLIENT),
                        CLIENT),
                fwd(
                        "unbalanced quote after a trusted hop",
                        PROXY,
                        List.of("for=\"" + CLIENT + ", for=10.0.0.2"),
                        "10.0.0.2"),
                fwd(
                        "no for after a trusted hop",
                        PROXY,
                        List.of("for=" + CLIENT + ", proto=https, for=10.0.0.2"),
                        "10.0.0.2"),
                fwd(
                        "duplicate for after a trusted hop",
                        PROXY,
                        List.of("for=1.1.1.1;for=" + CLIENT + ", for=10.0.0.2"),
                        "10.0.0.2"),
                fwd("IPv4-mapped", PROXY, List.of("for=\"[::ffff:" + CLIENT + "]\""), CLIENT),
                fwd(
                        "mixed families",
                        "2001:db8:cafe::1",
                        List.of("for=" + CLIENT + ", for=\"[2001:db8:cafe::2]\""),
                        CLIENT));
    }

    private static Arguments fwd(String name, String remoteAddr, List<String> forwarded, String expected) {
        return arguments(name, remoteAddr, forwarded, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forwardedCases")
    void resolve_forwarded(String name, String remoteAddr, List<String> forwarded, String expected) {
        assertThat(resolve(FORWARDED, remoteAddr, forwarded, NONE)).isEqualTo(expected);
        // Preferred over a conflicting X-Forwarded-For by default...
        assertThat(resolve(PREFER_FORWARDED, remoteAddr, forwarded, List.of("192.0.2.99")))
                .isEqualTo(expected);
        // ...and ignored by an X-Forwarded-For-only resolver.
        String peerOnly = resolve(X_FORWARDED_FOR, remoteAddr, NONE, NONE);
        assertThat(resolve(X_FORWARDED_FOR, remoteAddr, forwarded, NONE)).isEqualTo(peerOnly);
    }

    /**
     * Forwarded headers whose rightmost element is not a hop: the nearest proxy did not write it,
     * so the default mode reads X-Forwarded-For instead, and Forwarded-only mode stops at the peer.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "  ",
                ",",
                "garbage",
                "proto=https",
                "for=" + CLIENT + ", proto=https",
                "for=" + CLIENT + ", for=\"10.0.0.2",
                "for=1.1.1.1;for=" + CLIENT,
                "for",
                "for=",
                "=" + CLIENT,
                "for=" + CLIENT + " x",
                "for=" + CLIENT + "\"x\"",
                "for=\"" + CLIENT + "\"x",
                "for=\"" + CLIENT + "\\\"" // the closing quote is escaped: unterminated
            })
    void resolve_forwardedWithoutAHopOnTheRight_fallsBackToXForwardedFor(String forwarded) {
        assertThat(resolve(PREFER_FORWARDED, PROXY, List.of(forwarded), List.of(STRANGER)))
                .isEqualTo(STRANGER);
        assertThat(resolve(FORWARDED, PROXY, List.of(forwarded), List.of(STRANGER)))
                .isEqualTo(PROXY);
    }

    @Test
    void resolve_forwardedHopThatIsGarbage_stillUsesForwarded() {
        // A well-formed element with a for parameter is the proxy's word, even if it names no one.
        assertThat(resolve(PREFER_FORWARDED, PROXY, List.of("for=unknown"), List.of(STRANGER)))
                .isEqualTo(PROXY);
    }

    @Test
    void resolve_onlyOneHeaderIsEverWalked() {
        // Forwarded ends in a trusted hop; X-Forwarded-For must not continue the chain.
        assertThat(resolve(PREFER_FORWARDED, PROXY, List.of("for=10.0.0.2"), List.of(CLIENT)))
                .isEqualTo("10.0.0.2");
        assertThat(resolve(X_FORWARDED_FOR, PROXY, List.of("for=" + CLIENT), List.of(STRANGER)))
                .isEqualTo(STRANGER);
    }

    @ParameterizedTest
    @EnumSource(ForwardingHeader.class)
    void resolve_withoutTrustedProxies_alwaysThePeer(ForwardingHeader header) {
        ClientIpResolver resolver =
                ClientIpResolver.builder().forwardingHeader(header).build();

        assertThat(resolver.resolve(PROXY, List.of("for=" + CLIENT), List.of(CLIENT)))
                .contains(IpAddress.parse(PROXY));
    }

    // ---- Bounded work ------------------------------------------------------------------------

    @Test
    void resolve_longTrustedChain_stopsAfterMaxHops() {
        // 7000 distinct trusted hops (about 85 KB) behind a client on the far left.
        StringBuilder header = new StringBuilder(CLIENT);
        for (int i = 0; i < 7000; i++) {
            header.append(", 10.0.").append(i / 256).append('.').append(i % 256);
        }
        assertThat(header.length()).isGreaterThan(80_000);

        // Walking from the right, the last hop examined is number MAX_HOPS from the end.
        int lastExamined = 7000 - ClientIpResolver.MAX_HOPS;
        String expected = "10.0." + lastExamined / 256 + "." + lastExamined % 256;
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of(header.toString())))
                .isEqualTo(expected);
        assertThat(resolve(
                        X_FORWARDED_FOR, PROXY, NONE, List.of(header.toString().replace(", ", ",for="))))
                .isEqualTo(PROXY); // "for=..." is not an XFF entry
        assertThat(resolve(FORWARDED, PROXY, List.of("for=" + header.toString().replace(", ", ", for=")), NONE))
                .isEqualTo(expected);
    }

    @Test
    void resolve_chainOfExactlyMaxHops_isWalkedToTheEnd() {
        List<String> hops = new ArrayList<>();
        hops.add(CLIENT);
        for (int i = 1; i < ClientIpResolver.MAX_HOPS; i++) {
            hops.add("10.0.0." + (i + 1));
        }
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of(String.join(", ", hops))))
                .isEqualTo(CLIENT);

        hops.add(1, "10.0.0.99"); // one more trusted hop pushes the client out of reach
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of(String.join(", ", hops))))
                .isEqualTo("10.0.0.99");
    }

    @Test
    void resolve_hugeElement_isNotRead() {
        String huge = "1".repeat(100_000);
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of(CLIENT + ", " + huge)))
                .isEqualTo(PROXY);
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of(huge + ", " + CLIENT)))
                .isEqualTo(CLIENT);
        // A long element of whitespace is still long.
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of(CLIENT + " ".repeat(600))))
                .isEqualTo(PROXY);
        // A long quoted extension: in Forwarded-only mode the element is unusable.
        String longQuoted = "for=" + CLIENT + ";ext=\"" + "a".repeat(100_000) + "\"";
        assertThat(resolve(FORWARDED, PROXY, List.of(longQuoted), NONE)).isEqualTo(PROXY);
        String longEscapes = "for=" + CLIENT + ";ext=\"" + "\\".repeat(100_000) + "\"";
        assertThat(resolve(FORWARDED, PROXY, List.of(longEscapes), NONE)).isEqualTo(PROXY);
        String openQuote = "for=\"" + "a".repeat(100_000);
        assertThat(resolve(FORWARDED, PROXY, List.of(openQuote), NONE)).isEqualTo(PROXY);
    }

    @Test
    void resolve_elementOfExactlyTheMaximumLength_isRead() {
        String padded = " ".repeat(HopScanner.MAX_ELEMENT_LENGTH - CLIENT.length()) + CLIENT;
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of("1.1.1.1," + padded)))
                .isEqualTo(CLIENT);
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of("1.1.1.1, " + padded)))
                .isEqualTo(PROXY);
        String element = "for=" + CLIENT + ";ext=\"";
        element += "a".repeat(ForwardedScanner.MAX_FORWARDED_ELEMENT_LENGTH - element.length() - 1) + "\"";
        assertThat(element).hasSize(ForwardedScanner.MAX_FORWARDED_ELEMENT_LENGTH);
        assertThat(resolve(FORWARDED, PROXY, List.of("for=1.1.1.1," + element), NONE))
                .isEqualTo(CLIENT);
        assertThat(resolve(FORWARDED, PROXY, List.of("for=1.1.1.1, " + element), NONE))
                .isEqualTo(PROXY);
    }

    /**
     * A proxy that writes the client's Host into its own element (HAProxy's option forwarded host,
     * YARP, Spring Cloud Gateway): a client sending a Host of 600 characters made that element
     * longer than a node's bound, unusable, and was taken for the proxy (its exemption, its key),
     * or under prefer-forwarded chose its own address in X-Forwarded-For.
     */
    @Test
    void resolve_aProxysElementWithTheClientsLongHost_isRead() {
        String element = "for=" + CLIENT + ";host=" + "h".repeat(600) + ".example;proto=https";
        assertThat(resolve(FORWARDED, PROXY, List.of(element), NONE)).isEqualTo(CLIENT);
        assertThat(resolve(FORWARDED, PROXY, List.of("for=192.0.2.99, " + element), NONE))
                .isEqualTo(CLIENT);
        assertThat(resolve(PREFER_FORWARDED, PROXY, List.of(element), List.of("198.51.100.1")))
                .isEqualTo(CLIENT);
        String quotedHost = "for=" + CLIENT + ";host=\"" + "h".repeat(8_000) + ":443\";proto=https";
        assertThat(resolve(FORWARDED, PROXY, List.of(quotedHost), NONE)).isEqualTo(CLIENT);
    }

    @Test
    void resolve_quotedValueLongerThanAnElement_isNotRead() {
        // The quoted string alone is one character too long: its opening quote lies beyond the
        // bound, so the element is not read even though its quotes are balanced.
        String quoted =
                "\"" + " ".repeat(ForwardedScanner.MAX_FORWARDED_ELEMENT_LENGTH - 1 - CLIENT.length()) + CLIENT + "\"";
        assertThat(quoted).hasSize(ForwardedScanner.MAX_FORWARDED_ELEMENT_LENGTH + 1);
        assertThat(resolve(FORWARDED, PROXY, List.of("for=" + quoted), NONE)).isEqualTo(PROXY);
        assertThat(resolve(FORWARDED, PROXY, List.of("for=1.1.1.1, for=" + quoted), NONE))
                .isEqualTo(PROXY);
        // Short enough for the element to fit, the same value is the client.
        String fits = "for=\"" + quoted.substring(6);
        assertThat(fits).hasSize(ForwardedScanner.MAX_FORWARDED_ELEMENT_LENGTH);
        assertThat(resolve(FORWARDED, PROXY, List.of(fits), NONE)).isEqualTo(CLIENT);
    }

    @Test
    void resolve_emptyFirstElementOfALine_countsTowardsTheBound() {
        List<String> trusted = new ArrayList<>();
        for (int i = 1; i < ClientIpResolver.MAX_HOPS; i++) {
            trusted.add("10.0.0." + (i + 1));
        }
        // MAX_HOPS - 1 trusted hops, then the empty element before the leading comma: the bound
        // is reached before the line with the client.
        List<String> lines = List.of(CLIENT, "," + String.join(",", trusted));
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, lines)).isEqualTo("10.0.0.2");
        // Without the comma the client is the last element examined.
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of(CLIENT, String.join(",", trusted))))
                .isEqualTo(CLIENT);
    }

    @Test
    void resolve_manyEmptyElements_countTowardsTheBound() {
        String commas = ",".repeat(100_000);
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of(CLIENT + commas)))
                .isEqualTo(PROXY);
        assertThat(resolve(X_FORWARDED_FOR, PROXY, NONE, List.of(commas + CLIENT)))
                .isEqualTo(CLIENT);
    }

    @Test
    void resolve_manyHeaderLines_readsOnlyTheLastFew() {
        List<String> lines = new ArrayList<>(Collections.nCopies(100_000, ""));
        lines.set(0, CLIENT);
        CountingList counting = new CountingList(lines);

        assertThat(resolver(X_FORWARDED_FOR).resolve(PROXY, NONE, counting)).contains(IpAddress.parse(PROXY));
        assertThat(counting.reads).isLessThanOrEqualTo(ClientIpResolver.MAX_HOPS);
    }

    /** Counts element reads, to show the resolver does not touch every header line. */
    private static final class CountingList extends AbstractList<String> {
        private final List<String> delegate;
        int reads;

        CountingList(List<String> delegate) {
            this.delegate = delegate;
        }

        @Override
        public String get(int index) {
            reads++;
            return delegate.get(index);
        }

        @Override
        public int size() {
            return delegate.size();
        }
    }

    /** No request content may throw; an untrusted peer's answer never depends on it. */
    @ParameterizedTest
    @EnumSource(ForwardingHeader.class)
    void resolve_randomContent_neverThrows(ForwardingHeader header) {
        String[] pieces = {
            "for",
            "For",
            "=",
            "\"",
            "\\",
            ",",
            ";",
            " ",
            "\t",
            ":",
            "[",
            "]",
            "%",
            "_",
            ".",
            "1",
            "10.0.0.2",
            CLIENT,
            "::1",
            "2001:db8:cafe::9",
            "ff",
            "unknown",
            "proto=http",
            "\u0000",
            "\u00e9",
            "::ffff:"
        };
        Random random = new Random(2024);
        ClientIpResolver resolver = resolver(header);
        for (int n = 0; n < 20_000; n++) {
            List<String> forwarded = randomValues(random, pieces);
            List<String> xForwardedFor = randomValues(random, pieces);

            Optional<IpAddress> behindProxy = resolver.resolve(PROXY, forwarded, xForwardedFor);
            Optional<IpAddress> direct = resolver.resolve(STRANGER, forwarded, xForwardedFor);
            long key = resolver.resolveKey(PROXY, forwarded, xForwardedFor);

            assertThat(behindProxy).isPresent();
            assertThat(behindProxy.get().isMulticast()).isFalse();
            assertThat(key).isEqualTo(ClientKey.of(behindProxy.get(), 64));
            assertThat(direct).contains(IpAddress.parse(STRANGER));
        }
    }

    private static List<String> randomValues(Random random, String[] pieces) {
        int lines = random.nextInt(4);
        List<String> values = new ArrayList<>();
        for (int l = 0; l < lines; l++) {
            if (random.nextInt(10) == 0) {
                values.add(null);
                continue;
            }
            StringBuilder value = new StringBuilder();
            int length = random.nextInt(12);
            for (int p = 0; p < length; p++) {
                value.append(pieces[random.nextInt(pieces.length)]);
            }
            values.add(value.toString());
        }
        return values;
    }

    // ---- Keys -------------------------------------------------------------------------------

    @Test
    void resolveKey_groupsIpv6ClientsBySlash64ByDefault() {
        ClientIpResolver resolver = resolver(X_FORWARDED_FOR);

        long a = resolver.resolveKey(PROXY, NONE, List.of("2001:db8:1:2::1"));
        long b = resolver.resolveKey(PROXY, NONE, List.of("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        long c = resolver.resolveKey(PROXY, NONE, List.of("2001:db8:1:3::1"));

        assertThat(a).isEqualTo(b).isNotEqualTo(c);
        assertThat(resolver.formatKey(a)).isEqualTo("2001:db8:1:2::/64");
        assertThat(resolver.formatKey(c)).isEqualTo("2001:db8:1:3::/64");
    }

    @Test
    void resolveKey_configuredPrefixLength() {
        ClientIpResolver resolver = ClientIpResolver.builder()
                .trustedProxies(TRUSTED)
                .ipv6PrefixLength(48)
                .build();

        long a = resolver.resolveKey("2001:db8:1:2::1", NONE, NONE);
        long b = resolver.resolveKey("2001:db8:1:3::1", NONE, NONE);
        long c = resolver.resolveKey("2001:db8:2:2::1", NONE, NONE);

        assertThat(a).isEqualTo(b).isNotEqualTo(c);
        assertThat(resolver.formatKey(a)).isEqualTo("2001:db8:1::/48");
    }

    @Test
    void resolveKey_ipv4AndMappedAreOneClient() {
        ClientIpResolver resolver = resolver(X_FORWARDED_FOR);

        long plain = resolver.resolveKey(PROXY, NONE, List.of(CLIENT));
        long mapped = resolver.resolveKey(PROXY, NONE, List.of("::ffff:" + CLIENT));
        long direct = resolver.resolveKey("::ffff:" + CLIENT, NONE, NONE);

        assertThat(plain).isEqualTo(mapped).isEqualTo(direct).isEqualTo(0xFF00_0000_C633_6407L);
        assertThat(resolver.formatKey(plain)).isEqualTo(CLIENT);
        assertThat(resolver.resolveKey(PROXY, NONE, List.of("198.51.100.8"))).isNotEqualTo(plain);
    }

    @Test
    void resolveKey_unusablePeer_isUnknown() {
        ClientIpResolver resolver = resolver(PREFER_FORWARDED);

        assertThat(resolver.resolveKey(null, NONE, List.of(CLIENT))).isEqualTo(ClientKey.UNKNOWN);
        assertThat(resolver.resolveKey("not an address", NONE, NONE)).isEqualTo(ClientKey.UNKNOWN);
        assertThat(resolver.formatKey(ClientKey.UNKNOWN)).isEqualTo("unknown");
        assertThat(resolver.resolve(null, NONE, NONE)).isEmpty();
    }

    // ---- Configuration ----------------------------------------------------------------------

    @Test
    void builder_defaults() {
        ClientIpResolver resolver = ClientIpResolver.builder().build();

        assertThat(resolver.trustedProxies()).isEqualTo(CidrList.empty());
        assertThat(resolver.ipv6PrefixLength()).isEqualTo(64);
        assertThat(resolver.forwardingHeader()).isEqualTo(X_FORWARDED_FOR);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 0, 31, 65, 80, 128})
    void builder_ipv6PrefixLengthOutOfRange_isRejected(int prefixLength) {
        ClientIpResolver.Builder builder = ClientIpResolver.builder();

        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.ipv6PrefixLength(prefixLength))
                .withMessage("ipv6PrefixLength must be between 32 and 64 (a client key holds at most the first 64"
                        + " bits of an IPv6 address), was " + prefixLength);
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 48, 56, 64})
    void builder_ipv6PrefixLengthInRange_isKept(int prefixLength) {
        assertThat(ClientIpResolver.builder()
                        .ipv6PrefixLength(prefixLength)
                        .build()
                        .ipv6PrefixLength())
                .isEqualTo(prefixLength);
    }

    @Test
    void builder_nulls_areRejectedNamingTheSetting() {
        ClientIpResolver.Builder builder = ClientIpResolver.builder();

        assertThatNullPointerException()
                .isThrownBy(() -> builder.trustedProxies(null))
                .withMessage("trustedProxies");
        assertThatNullPointerException()
                .isThrownBy(() -> builder.forwardingHeader(null))
                .withMessage("forwardingHeader");
    }

    @Test
    void toString_showsTheConfiguration() {
        assertThat(resolver(X_FORWARDED_FOR))
                .hasToString("ClientIpResolver[trustedProxies=[10.0.0.0/8, 192.168.0.0/16, 2001:db8:cafe::/48],"
                        + " ipv6PrefixLength=64, nat64Prefixes=[], forwardingHeader=X_FORWARDED_FOR]");
    }

    /**
     * A translator in front of an IPv6-only server (SIIT-DC) with a prefix of the operator's writes
     * every IPv4 client in one /64 of it: without the setting, they are all one client.
     */
    @Test
    void nat64Prefixes_countEachIpv4HostInThem_asItsIpv4Address() {
        ClientIpResolver plain = ClientIpResolver.builder().build();
        ClientIpResolver translated = ClientIpResolver.builder()
                .nat64Prefixes(CidrList.parse("64:ff9b:1::/96, 2001:db8:64::/96"))
                .build();
        IpAddress one = IpAddress.parse("64:ff9b:1::198.51.100.1");
        IpAddress other = IpAddress.parse("64:ff9b:1::203.0.113.7");

        assertThat(plain.key(one)).as("one /64 for every IPv4 host").isEqualTo(plain.key(other));
        assertThat(translated.key(one)).isNotEqualTo(translated.key(other));
        assertThat(translated.key(one))
                .isEqualTo(translated.key(IpAddress.parse("198.51.100.1")))
                .isEqualTo(translated.key(IpAddress.parse("2001:db8:64::198.51.100.1")))
                .isEqualTo(translated.resolveKey("64:ff9b:1::c633:6401", List.of(), List.of()));
        assertThat(translated.key(IpAddress.parse("64:ff9b:1:0:1::198.51.100.1")))
                .as("outside the /96: an IPv6 client of 64:ff9b:1::/64")
                .isEqualTo(plain.key(one));
        assertThat(translated.formatKey(translated.key(one))).isEqualTo("198.51.100.1");
        assertThat(translated.nat64Prefixes()).hasToString("64:ff9b:1::/96, 2001:db8:64::/96");
    }

    /**
     * resolveNamed: a client the trusted proxies name, never a proxy taken for its own client
     * where the header names none (resolve falls back to the proxy there, for counting).
     */
    @Test
    void resolveNamed_isEmpty_whereResolveFallsBackToAProxyThatNamesNoClient() {
        ClientIpResolver xff = ClientIpResolver.builder()
                .trustedProxies(CidrList.parse("127.0.0.1, 10.0.0.0/8"))
                .build();
        for (String value : new String[] {"unknown", "unix:", "_hidden", "203.0.113.9, unknown", ",", "0xcb.0.113.9"}) {
            assertThat(xff.resolve("127.0.0.1", List.of(), List.of(value)))
                    .as("resolve: %s", value)
                    .contains(IpAddress.parse("127.0.0.1"));
            assertThat(xff.resolveNamed("127.0.0.1", List.of(), List.of(value)))
                    .as("resolveNamed: %s", value)
                    .isEmpty();
        }
        assertThat(xff.resolveNamed("127.0.0.1", List.of(), List.of("unknown, 203.0.113.9")))
                .contains(IpAddress.parse("203.0.113.9"));
        assertThat(xff.resolveNamed("127.0.0.1", List.of(), List.of("10.1.1.1, 10.2.2.2")))
                .as("every hop a trusted proxy: the leftmost is the client")
                .contains(IpAddress.parse("10.1.1.1"));
        assertThat(xff.resolveNamed("198.51.100.1", List.of(), List.of("unknown")))
                .as("an untrusted peer is the client")
                .contains(IpAddress.parse("198.51.100.1"));
        assertThat(xff.resolveNamed(
                        "127.0.0.1",
                        List.of(),
                        List.of(String.join(", ", Collections.nCopies(ClientIpResolver.MAX_HOPS + 1, "10.0.0.1")))))
                .as("more trusted hops than are examined")
                .isEmpty();

        ClientIpResolver forwarded = ClientIpResolver.builder()
                .trustedProxies(CidrList.parse("127.0.0.1"))
                .forwardingHeader(FORWARDED)
                .build();
        for (String value :
                new String[] {"for=unknown", "for=_hidden", "for=\"unix:/run/nginx.sock\"", "by=10.0.0.1"}) {
            assertThat(forwarded.resolveNamed("127.0.0.1", List.of(value), List.of()))
                    .as(value)
                    .isEmpty();
        }
        ClientIpResolver prefer = ClientIpResolver.builder()
                .trustedProxies(CidrList.parse("127.0.0.1"))
                .forwardingHeader(PREFER_FORWARDED)
                .build();
        assertThat(prefer.resolveNamed("127.0.0.1", List.of("for=unknown"), List.of("203.0.113.9")))
                .as("Forwarded written by the proxy, naming no client: X-Forwarded-For is not read")
                .isEmpty();
        assertThat(prefer.resolveNamed("127.0.0.1", List.of(), List.of("203.0.113.9")))
                .contains(IpAddress.parse("203.0.113.9"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"64:ff9b:1::/64", "64:ff9b:1::/97", "2001:db8::/32", "198.51.100.0/24"})
    void nat64Prefixes_otherThanIpv6Slash96_areRefused_naming(String prefix) {
        CidrList prefixes = CidrList.parse(prefix);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ClientIpResolver.builder().nat64Prefixes(prefixes))
                .withMessageStartingWith(prefixes + " is not an IPv6 /96 prefix: a translator writes an IPv4 client"
                        + " in the last 32 bits of an address of its /96");
    }
}
