package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Forged forwarding headers buy no extra quota. At {@code /exposed} the test client is an untrusted
 * peer (that deployment trusts only 10.0.0.0/8, in the filter's and the JAX-RS provider's
 * settings), so its {@code X-Forwarded-For} and {@code Forwarded} are ignored and every request
 * counts against its own address. At {@code /app}, behind
 * the trusted proxy, a client that prepends forged entries is still known by the address the proxy
 * appended.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForgedForwardingIT {

    private static final String RULES = """
            rule.greet-per-ip.match = GET /hello
            rule.greet-per-ip.limit = 5/1m
            rule.greet-per-ip.scope = per-origin
            """;

    private TestWebApp web;

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        web = TestWebApp.withRules(RULES)
                .alsoExposedDirectly()
                .on(container, contextPath)
                .start();
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    @Test
    void untrustedPeer_forgingAnotherAddressOnEveryRequest_getsOnlyItsOwnQuota() throws Exception {
        for (int i = 1; i <= 5; i++) {
            HttpResponse<String> admitted = web.get(
                    web.exposedUri("/hello"), "X-Forwarded-For", "203.0.113." + i, "Forwarded", "for=198.51.100." + i);
            assertThat(admitted.statusCode()).isEqualTo(200);
            assertThat(admitted.headers().firstValue("RateLimit"))
                    .as("request %d counts against the peer", i)
                    .hasValue("\"greet-per-ip\";r=" + (5 - i) + ";t=66");
        }

        HttpResponse<String> rejected =
                web.get(web.exposedUri("/hello"), "X-Forwarded-For", "192.0.2.77", "Forwarded", "for=192.0.2.78");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.body()).contains("\"rule\":\"greet-per-ip\"");
        assertThat(web.exposedGate().trackedOrigins("greet-per-ip"))
                .as("one origin: the peer, 127.0.0.1")
                .hasValue(1);
    }

    @Test
    void untrustedPeer_forgingAddresses_toTheJaxrsApi_getsOnlyItsOwnQuota() throws Exception {
        for (int i = 1; i <= 5; i++) {
            HttpResponse<String> admitted =
                    web.get(web.exposedUri("/api/items/" + i + "/price"), "X-Forwarded-For", "203.0.113." + i);
            assertThat(admitted.statusCode()).isEqualTo(200);
        }

        HttpResponse<String> rejected = web.get(web.exposedUri("/api/items/6/price"), "X-Forwarded-For", "192.0.2.77");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.body()).contains("\"rule\":\"price-per-ip\"");
        assertThat(web.exposedJaxrsGate().trackedOrigins("price-per-ip")).hasValue(1);
    }

    @Test
    void clientBehindTheTrustedProxy_prependingForgedEntries_isKnownByTheAddressTheProxyAppended() throws Exception {
        String real = "203.0.113.50";
        for (int i = 1; i <= 5; i++) {
            // The client sent "X-Forwarded-For: 192.0.2.i"; the proxy appended the address it saw.
            HttpResponse<String> admitted = web.get("/hello", "X-Forwarded-For", "192.0.2." + i + ", " + real);
            assertThat(admitted.statusCode()).isEqualTo(200);
        }

        HttpResponse<String> rejected = web.get("/hello", "X-Forwarded-For", "192.0.2.200, " + real);
        assertThat(rejected.statusCode()).isEqualTo(429);

        // While another client behind the same proxy has its full quota.
        HttpResponse<String> other = web.get("/hello", "X-Forwarded-For", "192.0.2.1, 203.0.113.51");
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.headers().firstValue("RateLimit")).hasValue("\"greet-per-ip\";r=4;t=66");
    }
}
