package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.UserResource;
import java.net.http.HttpResponse;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/** The provider answers status-path before resource matching, to allowed servlet peers only. */
class StatusIT {

    private static ResourceConfig app(String... settings) {
        ResourceConfig config = new ResourceConfig(UserResource.class)
                .register(LeapgateFeature.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.per-ip.match", "GET /users/{id}")
                .property("leapgate.rule.per-ip.limit", "1/1h")
                .property("leapgate.rule.per-ip.scope", "per-origin")
                .property("leapgate.status-path", "/leapgate/status");
        for (int i = 0; i < settings.length; i += 2) {
            config.property(settings[i], settings[i + 1]);
        }
        return config;
    }

    @Test
    void inAServletContainer_anAllowedPeer_getsTheStatus() throws Exception {
        try (TestServer server = TestServer.jetty(app())) {
            server.get("/users/1");
            server.get("/users/1");

            HttpResponse<String> status = server.get("/leapgate/status");

            assertThat(status.statusCode()).isEqualTo(200);
            assertThat(status.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
            assertThat(status.headers().firstValue("Cache-Control")).hasValue("no-store");
            assertThat(status.body())
                    .startsWith("{\"rules\":[{\"name\":\"per-ip\",\"resource\":\"GET /users/{id}\"")
                    .contains("\"trackedClients\":1")
                    .contains("\"totals\":{\"admitted\":1,\"rejected\":1,");
        }
    }

    @Test
    void aBrowser_getsTheLivePage_underItsContentSecurityPolicy() throws Exception {
        try (TestServer server = TestServer.jetty(app())) {
            HttpResponse<String> page = server.get("/leapgate/status", "Accept", "text/html");

            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
            assertThat(page.headers().firstValue("Content-Security-Policy"))
                    .hasValueSatisfying(csp -> assertThat(csp).startsWith("default-src 'none'; script-src 'sha256-"));
            assertThat(page.body()).contains("<title>Leapgate status</title>");
        }
    }

    @Test
    void aPeerNotAllowed_orNoServletRequest_getsNoStatus() throws Exception {
        try (TestServer jetty = TestServer.jetty(app("leapgate.status-allow", "10.0.0.0/8"));
                TestServer grizzly = TestServer.grizzly(app())) {
            assertThat(jetty.get("/leapgate/status").statusCode())
                    .as("no such resource")
                    .isEqualTo(404);
            assertThat(grizzly.get("/leapgate/status").statusCode())
                    .as("no peer address to check")
                    .isEqualTo(404);
        }
    }
}
