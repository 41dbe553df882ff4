package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.HttpRequestView;
import dev.leapgate.http.RejectionResponse;
import dev.leapgate.jaxrs.app.UserResource;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * The provider answers exactly what the core's {@link HttpGate} computes, which the servlet filter
 * answers too: a twin gate with the same configuration and clock gives the expected fields.
 */
class RejectionIT {

    private static final Map<String, String> SETTINGS = new LinkedHashMap<>();

    static {
        SETTINGS.put("rule.users.match", "GET /users/{id}");
        SETTINGS.put("rule.users.limit", "2/1m");
        SETTINGS.put("rule.users.scope", "per-origin");
        SETTINGS.put("rule.all.match", "/**");
        SETTINGS.put("rule.all.limit", "100/10s");
    }

    private record View(String method, String rawPath, String remoteAddr) implements HttpRequestView {
        @Override
        public List<String> headers(String name) {
            return List.of();
        }

        @Override
        public String principal() {
            return null;
        }
    }

    @Test
    void admittedAndRejectedResponses_carryTheCoresFields_byteForByte() throws Exception {
        ManualClock serverClock = new ManualClock();
        ManualClock twinClock = new ManualClock();
        LeapgateConfig config = ConfigParser.parse(SETTINGS, "test");
        HttpGate twin = HttpGate.builder(config).clock(twinClock).build();
        View request = new View("GET", "/users/{id}", "203.0.113.9");

        ResourceConfig app = new ResourceConfig(UserResource.class)
                .register(LeapgateFeature.class)
                .property(ProviderSettings.CLOCK, serverClock)
                .property(ProviderSettings.CLIENT_IP_HEADER, "X-Real-IP");
        SETTINGS.forEach((key, value) -> app.property("leapgate." + key, value));

        try (TestServer server = TestServer.grizzly(app)) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> admitted = server.get("/users/" + i, "X-Real-IP", "203.0.113.9");
                Decision expected = twin.enter(request);
                ((Entry) expected).close();
                Map<String, String> fields = new LinkedHashMap<>();
                twin.admittedHeaders(expected, fields::put);

                assertThat(admitted.statusCode()).isEqualTo(200);
                assertThat(fields).containsKeys("RateLimit-Policy", "RateLimit");
                fields.forEach((name, value) ->
                        assertThat(admitted.headers().allValues(name)).containsExactly(value));
                serverClock.advance(Duration.ofSeconds(7));
                twinClock.advance(Duration.ofSeconds(7));
            }

            HttpResponse<byte[]> rejected = JaxrsServer.CLIENT.send(
                    java.net.http.HttpRequest.newBuilder(server.base.resolve("/users/99"))
                            .header("X-Real-IP", "203.0.113.9")
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            RejectionResponse expected = twin.rejection((Rejection) twin.enter(request));

            assertThat(rejected.statusCode()).isEqualTo(expected.status()).isEqualTo(429);
            assertThat(expected.headers()).containsKeys("Retry-After", "RateLimit-Policy", "RateLimit");
            expected.headers()
                    .forEach((name, value) -> assertThat(rejected.headers().allValues(name))
                            .as(name)
                            .containsExactly(value));
            assertThat(rejected.headers().firstValue("Retry-After"))
                    .hasValue("52"); // strict window: 60 s and one 6 s bucket, less 14 s elapsed
            assertThat(rejected.headers().firstValue("Content-Type")).hasValue(expected.contentType());
            assertThat(new String(rejected.body(), StandardCharsets.UTF_8))
                    .isEqualTo(new String(expected.body(), StandardCharsets.UTF_8));
            assertThat(rejected.body()).isEqualTo(expected.body());
        }
    }
}
