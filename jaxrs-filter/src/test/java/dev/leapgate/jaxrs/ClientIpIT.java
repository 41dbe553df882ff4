package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.UserResource;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * Who the client is on Jersey: the servlet peer in a servlet container, Grizzly's peer on Grizzly
 * ({@link GrizzlyPeer}); the header configured where no adapter knows the peer is {@link
 * PeerAddressTest}'s.
 */
class ClientIpIT {

    private static ResourceConfig app(String... settings) {
        ResourceConfig config = new ResourceConfig(UserResource.class)
                .register(LeapgateFeature.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.per-ip.match", "GET /users/{id}")
                .property("leapgate.rule.per-ip.limit", "1/1h")
                .property("leapgate.rule.per-ip.scope", "per-origin");
        for (int i = 0; i < settings.length; i += 2) {
            config.property(settings[i], settings[i + 1]);
        }
        return config;
    }

    @Test
    void servletContainer_takesThePeerFromTheServletRequest_andTrustsForwardingOnlyFromTrustedProxies()
            throws Exception {
        try (TestServer server = TestServer.jetty(app(
                "leapgate.trusted-proxies", "127.0.0.1, ::1",
                "leapgate.client-ip-header", "X-Real-IP"))) {
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.2").statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(429);
            assertThat(server.get("/users/1", "X-Real-IP", "198.51.100.1").statusCode())
                    .as("the header is for containers without a servlet request; here the peer is 127.0.0.1")
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Real-IP", "198.51.100.2").statusCode())
                    .isEqualTo(429);
        }
    }

    @Test
    void servletContainer_withoutTrustedProxies_ignoresForgedForwardingHeaders() throws Exception {
        try (TestServer server = TestServer.jetty(app())) {
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.2").statusCode())
                    .isEqualTo(429);
        }
    }

    @Test
    void grizzly_givesThePeer_soForwardingIsBelievedFromATrustedProxy_andTheHeaderIsNotNeeded() throws Exception {
        try (TestServer server = TestServer.grizzly(app(
                "leapgate.trusted-proxies", "127.0.0.1",
                "leapgate.client-ip-header", "X-Real-IP"))) {
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.2").statusCode())
                    .as("another client behind the trusted proxy on loopback: Grizzly's request gave the peer")
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(429);
            assertThat(server.get("/users/1", "X-Real-IP", "198.51.100.1").statusCode())
                    .as("the header stands in only where no adapter knows the peer; here it is 127.0.0.1")
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Real-IP", "198.51.100.2").statusCode())
                    .isEqualTo(429);
        }
    }

    @Test
    void grizzly_withoutTrustedProxies_ignoresForgedForwardingHeaders() throws Exception {
        try (TestServer server = TestServer.grizzly(app())) {
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.2").statusCode())
                    .as("the peer 127.0.0.1, whatever it forwards")
                    .isEqualTo(429);
        }
    }
}
