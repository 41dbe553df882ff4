package dev.leapgate.it;

import static dev.leapgate.it.TestWebApp.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.testing.Together;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Thousands of requests from parallel clients over every way a request can end: servlets that
 * answer at once, asynchronously, by throwing, by timing out; JAX-RS methods that answer at once,
 * asynchronously, with a mapped exception, with an unmapped one (synchronously and asynchronously).
 * Afterwards nothing is in flight and every count adds up exactly with what the clients saw.
 *
 * <p>The servlets are limited by the servlet filter ({@code /hello/**}, in the rules file), the
 * JAX-RS methods by the JAX-RS provider on their route templates ({@code /items/**}, in web.xml,
 * 4 in flight); each keeps its own statistics.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MixedRequestsIT {

    private static final int SLOTS = 4;
    private static final int CLIENTS = 8;
    /**
     * Requests per client: fewer on Tomcat, whose connector checks asynchronous timeouts once a
     * second, so that each of the timing-out requests in the mix takes up to a second there.
     */
    private static int requestsPerClient(Container container) {
        return container == Container.TOMCAT ? 120 : 400;
    }

    private static final String RULES = """
            rule.servlets.match = /hello/**
            rule.servlets.in-flight = 4
            """;

    /** An endpoint, the resource of the rule that protects it, and the status it answers when admitted. */
    private record Endpoint(String path, String resource, int status) {}

    private static final String SERVLETS = "/hello/**"; // the filter's rule
    private static final String ITEMS = "/items/**"; // the JAX-RS provider's rule

    private static final List<Endpoint> ENDPOINTS = List.of(
            new Endpoint("/hello", SERVLETS, 200),
            new Endpoint("/hello/async", SERVLETS, 200),
            new Endpoint("/hello/failing", SERVLETS, 500),
            new Endpoint("/hello/timeout", SERVLETS, 500),
            new Endpoint("/api/items/7", ITEMS, 200),
            new Endpoint("/api/items/7/async", ITEMS, 200),
            new Endpoint("/api/items/7/missing", ITEMS, 404),
            new Endpoint("/api/items/7/broken", ITEMS, 500),
            new Endpoint("/api/items/7/async-broken", ITEMS, 500));

    private TestWebApp web;

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        web = TestWebApp.withRules(RULES).on(container, contextPath).start();
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    /** What the clients saw, per resource. */
    private static final class Seen {
        final LongAdder requests = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder succeeded = new LongAdder();
    }

    @Test
    void thousandsOfMixedRequests_leaveNothingInFlight_andEveryCountAddsUp() throws Exception {
        Map<String, Seen> seen = new ConcurrentHashMap<>();
        seen.put(SERVLETS, new Seen());
        seen.put(ITEMS, new Seen());

        Together.run(CLIENTS, client -> {
            for (int i = 0; i < requestsPerClient(container); i++) {
                Endpoint endpoint = ENDPOINTS.get((client * 5 + i) % ENDPOINTS.size());
                HttpResponse<String> response;
                try {
                    response = web.getFor("203.0.113." + client, endpoint.path());
                } catch (Exception e) {
                    throw new AssertionError(endpoint.path(), e);
                }
                int status = response.statusCode();
                Seen s = seen.get(endpoint.resource());
                s.requests.increment();
                if (status == 429) {
                    s.rejected.increment();
                } else {
                    assertThat(status)
                            .as("%s: %s", endpoint.path(), response.body())
                            .isEqualTo(endpoint.status());
                    (status >= 500 ? s.failed : s.succeeded).increment();
                }
            }
        });

        long total = 0;
        for (Map.Entry<String, Seen> e : seen.entrySet()) {
            String resource = e.getKey();
            Seen s = e.getValue();
            // An entry is closed just after its response is sent (asynchronous requests: by a listener).
            ResourceStats metrics = resource.equals(ITEMS) ? web.jaxrsResource(ITEMS) : web.resource(SERVLETS);
            eventually(() -> metrics.inFlight() == 0);
            StatsSnapshot m = resource.equals(ITEMS) ? web.jaxrsStats(ITEMS) : web.stats(SERVLETS);
            assertThat(m.admitted() + m.rejected())
                    .as("%s: every request decided once", resource)
                    .isEqualTo(s.requests.sum());
            assertThat(m.rejected()).as("%s: rejections", resource).isEqualTo(s.rejected.sum());
            assertThat(m.failed())
                    .as("%s: failures (5xx, thrown, timed out)", resource)
                    .isEqualTo(s.failed.sum());
            assertThat(m.succeeded())
                    .as("%s: successes (2xx, mapped 404)", resource)
                    .isEqualTo(s.succeeded.sum());
            assertThat(m.peakInFlight()).isLessThanOrEqualTo(SLOTS);
            assertThat(s.failed.sum())
                    .as("%s: failing requests were admitted", resource)
                    .isPositive();
            total += s.requests.sum();
        }
        assertThat(total).isEqualTo((long) CLIENTS * requestsPerClient(container));

        // The limiters' own slots are all back too: a lone request sees every other slot free.
        assertThat(web.get("/hello").headers().firstValue("RateLimit")).hasValue("\"servlets\";r=3");
        assertThat(web.get("/api/items/1").headers().firstValue("RateLimit")).hasValue("\"items-in-flight\";r=3");
    }
}
