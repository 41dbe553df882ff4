package dev.leapgate.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which client a request is counted for, over real HTTP. The test client connects from
 * 127.0.0.1, which is configured as a trusted proxy. Each case sends one request with its
 * forwarding headers (admitted: a per-origin limit of 1), then probes: a request that is surely
 * counted for the expected origin must now be rejected, and one for another origin admitted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientIpFilterTest {

    private JettyHarness xff;
    private JettyHarness forwarded;
    private JettyHarness untrusted;

    private static JettyHarness server(String... extra) throws Exception {
        Map<String, String> params = new java.util.HashMap<>(Map.of(
                "rule.per-ip.match", "/api/**",
                "rule.per-ip.limit", "1/1m",
                "rule.per-ip.scope", "per-origin"));
        for (int i = 0; i < extra.length; i += 2) {
            params.put(extra[i], extra[i + 1]);
        }
        return new JettyHarness(params)
                .servlet("/api/*", new TestServlets.Text("ok"))
                .start();
    }

    @BeforeAll
    void start() throws Exception {
        xff = server("trusted-proxies", "127.0.0.1, ::1");
        forwarded = server("trusted-proxies", "127.0.0.1, ::1", "forwarded-header", "forwarded");
        untrusted = server("trusted-proxies", "10.0.0.0/8");
    }

    @AfterAll
    void stop() throws Exception {
        xff.close();
        forwarded.close();
        untrusted.close();
    }

    static Stream<Arguments> xForwardedForCases() {
        return Stream.of(
                Arguments.of("no header: the peer", new String[] {}, "127.0.0.1"),
                Arguments.of("one client", new String[] {"X-Forwarded-For", "203.0.113.7"}, "203.0.113.7"),
                Arguments.of(
                        "spoofed leftmost entry ignored",
                        new String[] {"X-Forwarded-For", "198.51.100.1, 203.0.113.7"},
                        "203.0.113.7"),
                Arguments.of(
                        "trusted hop skipped",
                        new String[] {"X-Forwarded-For", "203.0.113.7, 127.0.0.1"},
                        "203.0.113.7"),
                Arguments.of(
                        "repeated headers, rightmost counts",
                        new String[] {"X-Forwarded-For", "198.51.100.1", "X-Forwarded-For", "203.0.113.7"},
                        "203.0.113.7"),
                Arguments.of("port stripped", new String[] {"X-Forwarded-For", "203.0.113.7:4711"}, "203.0.113.7"),
                Arguments.of(
                        "bracketed IPv6 with port",
                        new String[] {"X-Forwarded-For", "[2001:db8::7]:443"},
                        "2001:db8::7"),
                Arguments.of(
                        "IPv4-mapped IPv6 is IPv4",
                        new String[] {"X-Forwarded-For", "::ffff:203.0.113.7"},
                        "203.0.113.7"),
                Arguments.of(
                        "IPv6 grouped by /64", new String[] {"X-Forwarded-For", "2001:db8:1:2::99"}, "2001:db8:1:2::1"),
                Arguments.of(
                        "unknown: falls back to the peer", new String[] {"X-Forwarded-For", "unknown"}, "127.0.0.1"),
                Arguments.of(
                        "garbage: falls back to the peer", new String[] {"X-Forwarded-For", "not-an-ip"}, "127.0.0.1"),
                Arguments.of(
                        "garbage before a real client stops the walk",
                        new String[] {"X-Forwarded-For", "203.0.113.7, junk"},
                        "127.0.0.1"),
                Arguments.of(
                        "Forwarded is not read in x-forwarded-for mode",
                        new String[] {"Forwarded", "for=203.0.113.9"},
                        "127.0.0.1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("xForwardedForCases")
    void xForwardedFor_behindATrustedProxy(String name, String[] headers, String expectedOrigin) throws Exception {
        assertCountedFor(xff, headers, expectedOrigin, ClientIpFilterTest::xForwardedFor);
    }

    static Stream<Arguments> forwardedCases() {
        return Stream.of(
                Arguments.of(
                        "quoted IPv6 with port",
                        new String[] {"Forwarded", "for=\"[2001:db8::7]:4711\""},
                        "2001:db8::7"),
                Arguments.of(
                        "rightmost element, other parameters ignored",
                        new String[] {"Forwarded", "for=198.51.100.1;proto=http, for=203.0.113.7;by=10.0.0.1"},
                        "203.0.113.7"),
                Arguments.of(
                        "obfuscated identifier: falls back to the peer",
                        new String[] {"Forwarded", "for=_hidden"},
                        "127.0.0.1"),
                Arguments.of(
                        "X-Forwarded-For is not read in forwarded mode",
                        new String[] {"X-Forwarded-For", "203.0.113.7"},
                        "127.0.0.1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("forwardedCases")
    void forwarded_behindATrustedProxy(String name, String[] headers, String expectedOrigin) throws Exception {
        assertCountedFor(forwarded, headers, expectedOrigin, ClientIpFilterTest::forwardedFor);
    }

    @Test
    void forgedXForwardedFor_fromAnUntrustedPeer_isIgnored() throws Exception {
        untrusted.clock.advance(Duration.ofMinutes(2));

        assertThat(untrusted.get("/api/x", "X-Forwarded-For", "203.0.113.1").statusCode())
                .isEqualTo(200);
        assertThat(untrusted.get("/api/x", "X-Forwarded-For", "203.0.113.2").statusCode())
                .as("a second forged address gets no extra quota")
                .isEqualTo(429);
    }

    /**
     * A request as an earlier filter shows it: the field {@code name} answers {@code value} (none
     * if null), and the peer is {@code peer} (the real one if null).
     */
    private static final class Rewritten extends HttpServletRequestWrapper {
        private final String name;
        private final String value;
        private final String peer;

        Rewritten(HttpServletRequest request, String name, String value, String peer) {
            super(request);
            this.name = name;
            this.value = value;
            this.peer = peer;
        }

        @Override
        public String getRemoteAddr() {
            return peer != null ? peer : super.getRemoteAddr();
        }

        @Override
        public String getHeader(String field) {
            return field.equalsIgnoreCase(name) ? value : super.getHeader(field);
        }

        @Override
        public Enumeration<String> getHeaders(String field) {
            return !field.equalsIgnoreCase(name)
                    ? super.getHeaders(field)
                    : value == null ? Collections.emptyEnumeration() : Collections.enumeration(List.of(value));
        }
    }

    /**
     * An earlier filter that answers for the peer as Spring's {@code ForwardedHeaderFilter} does:
     * the first address of {@code X-Forwarded-For} is the peer's, and the header is hidden.
     */
    private static final class ForwardedHeaderRewriting implements Filter {
        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            HttpServletRequest http = (HttpServletRequest) request;
            String forwarded = http.getHeader("X-Forwarded-For");
            chain.doFilter(
                    forwarded == null
                            ? request
                            : new Rewritten(http, "X-Forwarded-For", null, forwarded.split(",")[0].strip()),
                    response);
        }
    }

    @Test
    void behindAFilterThatRewritesThePeer_theClientIsWhoSentTheRequest() throws Exception {
        try (JettyHarness trusting = new JettyHarness(Map.of(
                                "rule.per-ip.match", "/api/**",
                                "rule.per-ip.limit", "1/1m",
                                "rule.per-ip.scope", "per-origin",
                                "trusted-proxies", "127.0.0.1, ::1"))
                        .upstream(new ForwardedHeaderRewriting())
                        .servlet("/api/*", new TestServlets.Text("ok"))
                        .start();
                JettyHarness notTrusting = new JettyHarness(Map.of(
                                "rule.per-ip.match", "/api/**",
                                "rule.per-ip.limit", "1/1m",
                                "rule.per-ip.scope", "per-origin"))
                        .upstream(new ForwardedHeaderRewriting())
                        .servlet("/api/*", new TestServlets.Text("ok"))
                        .start()) {
            // Behind a trusted proxy: the rightmost address the proxy added, not the first the
            // client wrote, though the earlier filter names that one and hides the header.
            assertCountedFor(
                    trusting,
                    xForwardedFor("198.51.100.1, 203.0.113.7"),
                    "203.0.113.7",
                    ClientIpFilterTest::xForwardedFor);

            assertThat(notTrusting
                            .get("/api/x", "X-Forwarded-For", "203.0.113.1")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(notTrusting
                            .get("/api/x", "X-Forwarded-For", "203.0.113.2")
                            .statusCode())
                    .as("no trusted proxy: the peer, whatever the earlier filter says")
                    .isEqualTo(429);
        }
    }

    /**
     * An earlier filter that says which tenant a request is for, as an authentication filter of the
     * application may: whatever {@code X-Tenant} the client wrote, the application sees the tenant
     * of its credentials ({@code Authorization: Bearer <tenant>} here, standing for a verified token).
     */
    private static final class TenantFromCredentials implements Filter {
        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            HttpServletRequest http = (HttpServletRequest) request;
            String tenant = http.getHeader("Authorization").substring("Bearer ".length());
            chain.doFilter(new Rewritten(http, "X-Tenant", tenant, null), response);
        }
    }

    @Test
    void anOriginHeader_isReadAsTheApplicationSeesIt_notAsTheClientWroteIt() throws Exception {
        try (JettyHarness jetty = new JettyHarness(Map.of(
                        "rule.per-tenant.match", "/api/**",
                        "rule.per-tenant.limit", "1/1m",
                        "rule.per-tenant.scope", "per-origin",
                        "origin", "header:X-Tenant"))
                .upstream(new TenantFromCredentials())
                .servlet("/api/*", new TestServlets.Text("ok"))
                .start()) {
            assertThat(jetty.get("/api/x", "Authorization", "Bearer acme", "X-Tenant", "t-1")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(jetty.get("/api/x", "Authorization", "Bearer acme", "X-Tenant", "t-2")
                            .statusCode())
                    .as("the tenant the application sees, acme, whatever X-Tenant the client wrote")
                    .isEqualTo(429);
            assertThat(jetty.get("/api/x", "Authorization", "Bearer other", "X-Tenant", "acme")
                            .statusCode())
                    .as("nor can a client write itself into another tenant")
                    .isEqualTo(200);
        }
    }

    /** A header that a server in X-Forwarded-For mode surely counts for {@code ip}. */
    private static String[] xForwardedFor(String ip) {
        return new String[] {"X-Forwarded-For", ip};
    }

    /** A header that a server in Forwarded mode surely counts for {@code ip}. */
    private static String[] forwardedFor(String ip) {
        return new String[] {"Forwarded", ip.contains(":") ? "for=\"[" + ip + "]\"" : "for=" + ip};
    }

    private static void assertCountedFor(
            JettyHarness jetty, String[] headers, String expectedOrigin, Function<String, String[]> header)
            throws Exception {
        jetty.clock.advance(Duration.ofMinutes(2)); // every earlier case's window has passed
        assertThat(jetty.get("/api/x", headers).statusCode()).isEqualTo(200);

        String[] probe = expectedOrigin.equals("127.0.0.1") ? new String[] {} : header.apply(expectedOrigin);
        assertThat(jetty.get("/api/x", probe).statusCode())
                .as("the request was counted for %s", expectedOrigin)
                .isEqualTo(429);
        assertThat(jetty.get("/api/x", header.apply("192.0.2.200")).statusCode())
                .as("another client is not affected")
                .isEqualTo(200);
    }
}
