package dev.leapgate.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The filter answers the status path itself, to allowed peers only; everyone else reaches the application. */
class StatusEndpointTest {

    private static JettyHarness server(String... extra) throws Exception {
        Map<String, String> params = new java.util.HashMap<>(Map.of(
                "rule.api.match", "/**",
                "rule.api.limit", "2/1m",
                "rule.api.scope", "per-origin",
                "trusted-proxies", "127.0.0.1, ::1"));
        for (int i = 0; i < extra.length; i += 2) {
            params.put(extra[i], extra[i + 1]);
        }
        return new JettyHarness(params)
                .servlet("/*", new TestServlets.Text("app"))
                .start();
    }

    @Test
    void anAllowedPeer_getsTheStatusAsJson_withoutBeingLimited() throws Exception {
        try (JettyHarness jetty = server("status-path", "/leapgate/status")) {
            jetty.get("/orders", "X-Forwarded-For", "203.0.113.9");
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> status = jetty.get("/leapgate/status");
                assertThat(status.statusCode()).isEqualTo(200);
                assertThat(status.headers().firstValue("Content-Type"))
                        .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
                assertThat(status.headers().firstValue("Cache-Control")).hasValue("no-store");
                assertThat(status.body())
                        .startsWith("{\"rules\":[{\"name\":\"api\"")
                        .contains("\"trackedClients\":1")
                        .doesNotContain("203.0.113.9");
            }
        }
    }

    @Test
    void aBrowser_getsTheLivePage_underItsContentSecurityPolicy() throws Exception {
        try (JettyHarness jetty = server("status-path", "/leapgate/status")) {
            HttpResponse<String> page = jetty.get("/leapgate/status", "Accept", "text/html,*/*;q=0.8");

            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
            assertThat(page.headers().firstValue("Content-Security-Policy"))
                    .hasValueSatisfying(csp -> assertThat(csp).startsWith("default-src 'none'; script-src 'sha256-"));
            assertThat(page.headers().firstValue("Content-Length"))
                    .hasValue(String.valueOf(page.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length));
            assertThat(page.body()).contains("<title>Leapgate status</title>");
            assertThat(jetty.get("/leapgate/%73tatus").body())
                    .as("spelled otherwise, as the container routes it")
                    .startsWith("{\"rules\":");
        }
    }

    /**
     * The harness's client connects from 127.0.0.1, the trusted proxy: a request it relays for a
     * client on the Internet reaches the application, as if there were no status path.
     */
    @Test
    void aClientBehindAProxyOnThisMachine_reachesTheApplication_notTheStatus() throws Exception {
        try (JettyHarness jetty = server("status-path", "/leapgate/status")) {
            HttpResponse<String> relayed = jetty.get("/leapgate/status", "X-Forwarded-For", "203.0.113.9");
            assertThat(relayed.body()).as("the application's answer").isEqualTo("app");
            HttpResponse<String> forged = jetty.get("/leapgate/status", "X-Forwarded-For", "127.0.0.1, 203.0.113.9");
            assertThat(forged.body()).isEqualTo("app");
            assertThat(jetty.get("/leapgate/status", "X-Forwarded-For", "203.0.113.9")
                            .statusCode())
                    .as("limited like any other request of that client")
                    .isEqualTo(429);
            assertThat(jetty.get("/leapgate/status", "X-Forwarded-For", "127.0.0.1")
                            .body())
                    .as("a browser on this machine, through the proxy")
                    .startsWith("{\"rules\":");
        }
    }

    @Test
    void aPeerNotAllowed_reachesTheApplication_underTheRules() throws Exception {
        try (JettyHarness jetty = server("status-path", "/leapgate/status", "status-allow", "10.0.0.0/8")) {
            HttpResponse<String> first = jetty.get("/leapgate/status", "X-Forwarded-For", "127.0.0.1");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).as("the application's answer").isEqualTo("app");
            jetty.get("/leapgate/status");
            assertThat(jetty.get("/leapgate/status").statusCode())
                    .as("limited like any other request")
                    .isEqualTo(429);
        }
    }
}
