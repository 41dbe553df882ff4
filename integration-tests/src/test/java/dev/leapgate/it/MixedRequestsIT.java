package dev.leapgate.it;

import static dev.leapgate.it.TestWebApp.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.testing.Together;
import java.io.EOFException;
import java.io.IOException;
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
        /** Requests the server closed the connection on without answering: decided, outcome unseen. */
        final LongAdder unanswered = new LongAdder();
    }

    @Test
    void thousandsOfMixedRequests_leaveNothingInFlight_andEveryCountAddsUp() throws Exception {
        Map<String, Seen> seen = new ConcurrentHashMap<>();
        seen.put(SERVLETS, new Seen());
        seen.put(ITEMS, new Seen());

        Together.run(CLIENTS, client -> {
            for (int i = 0; i < requestsPerClient(container); i++) {
                Endpoint endpoint = ENDPOINTS.get((client * 5 + i) % ENDPOINTS.size());
                Seen s = seen.get(endpoint.resource());
                s.requests.increment();
                RawHttp.Response response;
                try {
                    // Raw, so that a request is sent once: HttpClient silently sends a GET again when
                    // the server closes a kept-alive connection without answering (Tomcat does, now
                    // and then, in its asynchronous error path), and the server would see two.
                    response = RawHttp.get(
                            web.port(), web.uri(endpoint.path()).getRawPath(), "X-Forwarded-For: 203.0.113." + client);
                } catch (EOFException unanswered) {
                    s.unanswered.increment();
                    continue;
                } catch (IOException e) {
                    throw new AssertionError(endpoint.path(), e);
                }
                int status = response.status();
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
            // An unanswered request was decided, but its client saw no outcome: it may be any one.
            long unanswered = s.unanswered.sum();
            assertThat(unanswered).as("%s: requests never answered", resource).isLessThanOrEqualTo(2);
            assertThat(m.rejected())
                    .as("%s: rejections", resource)
                    .isBetween(s.rejected.sum(), s.rejected.sum() + unanswered);
            assertThat(m.failed())
                    .as("%s: failures (5xx, thrown, timed out)", resource)
                    .isBetween(s.failed.sum(), s.failed.sum() + unanswered);
            assertThat(m.succeeded())
                    .as("%s: successes (2xx, mapped 404)", resource)
                    .isBetween(s.succeeded.sum(), s.succeeded.sum() + unanswered);
            assertThat(m.rejected() + m.failed() + m.succeeded())
                    .as("%s: every request rejected, failed or succeeded", resource)
                    .isEqualTo(s.requests.sum());
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
