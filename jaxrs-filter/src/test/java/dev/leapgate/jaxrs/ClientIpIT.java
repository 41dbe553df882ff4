package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.UserResource;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/** Who the client is: the servlet peer, or the configured header elsewhere. */
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
    void otherContainer_takesTheConfiguredHeader_asThePeer_withTheSameTrustedProxyRules() throws Exception {
        try (TestServer server = TestServer.grizzly(app(
                "leapgate.client-ip-header", "X-Real-IP",
                "leapgate.trusted-proxies", "10.0.0.0/8"))) {
            assertThat(server.get("/users/1", "X-Real-IP", "203.0.113.1").statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Real-IP", "203.0.113.2").statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Real-IP", "203.0.113.1").statusCode())
                    .isEqualTo(429);
            assertThat(server.get("/users/1", "X-Real-IP", "10.0.0.7", "X-Forwarded-For", "203.0.113.3")
                            .statusCode())
                    .as("the header names a trusted proxy: the client is found behind it")
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Real-IP", "10.0.0.8", "X-Forwarded-For", "203.0.113.3")
                            .statusCode())
                    .isEqualTo(429);
        }
    }

    @Test
    void otherContainer_withoutTheHeader_cannotTellClientsApart() throws Exception {
        try (TestServer server = TestServer.grizzly(app())) {
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/users/1", "X-Forwarded-For", "203.0.113.2").statusCode())
                    .as("every client is the origin 'unknown'")
                    .isEqualTo(429);
        }
    }
}
