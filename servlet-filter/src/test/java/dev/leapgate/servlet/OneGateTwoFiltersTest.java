package dev.leapgate.servlet;

import static dev.leapgate.servlet.JettyHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.stats.StatsSnapshot;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two Leapgate filters on one gate ({@link LeapgateFilter#forGate} called twice, or a filter of the
 * application's beside the Spring Boot starter's) that both see a request: the gate decides it
 * once, in whichever filter sees it first, and its concurrency slot is released once. A filter on
 * another gate still decides the request by that gate's rules.
 */
class OneGateTwoFiltersTest {

    private JettyHarness jetty;
    private HttpGate gate;
    private HttpGate other;

    @AfterEach
    void stop() throws Exception {
        if (jetty != null) {
            jetty.close();
        }
        if (gate != null) {
            gate.close();
        }
        if (other != null) {
            other.close();
        }
    }

    private static HttpGate gate(String... settings) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (int i = 0; i < settings.length; i += 2) {
            map.put(settings[i], settings[i + 1]);
        }
        return HttpGate.builder(ConfigParser.parse(map, "test")).build();
    }

    /** A harness with a filter on {@link #gate} on every path, and a second one on {@code second}. */
    private JettyHarness twoFilters(String name, HttpGate second, String mapping, EnumSet<DispatcherType> dispatches) {
        return new JettyHarness(LeapgateFilter.forGate(gate, BlockHandler.STANDARD))
                .alsoFiltered(name, LeapgateFilter.forGate(second, BlockHandler.STANDARD), mapping, dispatches);
    }

    /** Requests to {@code path}: the first 4 admitted, the fifth refused. */
    private void fourAdmittedThenRefused(String path) throws Exception {
        for (int i = 1; i <= 4; i++) {
            assertThat(jetty.get(path).statusCode()).as("request %d of 4", i).isEqualTo(200);
        }
        assertThat(jetty.get(path).statusCode()).as("request 5 of 4").isEqualTo(429);
    }

    @Test
    void twoFiltersOnOneGate_bothOnTheRequest_countItOnce() throws Exception {
        gate = gate("rule.api.match", "/api/**", "rule.api.limit", "4/10s");
        jetty = twoFilters("second", gate, "/api/*", EnumSet.allOf(DispatcherType.class))
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .start();

        fourAdmittedThenRefused("/api/hello");
        StatsSnapshot m = gate.stats("/api/**").orElseThrow().lastMinute();
        assertThat(m.admitted()).as("admitted").isEqualTo(4);
        assertThat(m.succeeded()).as("succeeded").isEqualTo(4);
        assertThat(m.inFlight()).as("in flight").isZero();
    }

    /**
     * The second filter mapped for FORWARD only (a filter that guards the pages forwarded to): the
     * forward of a request the first one let through is the same request.
     */
    @Test
    void aForwardReachingASecondFilterOnTheSameGate_isNotCountedAgain() throws Exception {
        gate = gate("rule.api.match", "/**", "rule.api.limit", "4/10s");
        jetty = twoFilters("second", gate, "/*", EnumSet.of(DispatcherType.FORWARD))
                .servlet("/api/old", new TestServlets.Forward("/api/hello"))
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .start();

        fourAdmittedThenRefused("/api/old");
        StatsSnapshot m = gate.stats("/**").orElseThrow().lastMinute();
        assertThat(m.admitted()).as("admitted").isEqualTo(4);
        assertThat(m.inFlight()).as("in flight").isZero();
    }

    /**
     * An asynchronous request under an in-flight limit of 1, seen by both filters: one slot, taken
     * once and released once when the request completes (a slot taken twice would refuse the
     * request itself; released twice, a second request would run beside a first).
     */
    @Test
    void anAsyncRequestThroughTwoFiltersOnOneGate_takesAndReleasesOneSlot() throws Exception {
        gate = gate("rule.api.match", "/api/**", "rule.api.in-flight", "1");
        java.util.concurrent.CompletableFuture<AsyncContext> started = new java.util.concurrent.CompletableFuture<>();
        jetty = twoFilters("second", gate, "/api/*", EnumSet.allOf(DispatcherType.class))
                .servlet("/api/slow", new HttpServlet() {
                    @Override
                    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                        if (req.getDispatcherType() == DispatcherType.ASYNC) {
                            resp.getWriter().write("done");
                            return;
                        }
                        started.complete(req.startAsync());
                    }
                })
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .start();

        var slow = jetty.client.sendAsync(
                java.net.http.HttpRequest.newBuilder(jetty.uri("/api/slow")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        AsyncContext async = started.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(gate.stats("/api/**").orElseThrow().lastMinute().inFlight())
                .as("in flight while the first request waits")
                .isEqualTo(1);
        assertThat(jetty.get("/api/hello").statusCode())
                .as("a second request beside the first, under in-flight 1")
                .isEqualTo(429);
        async.dispatch(); // dispatched again through both filters
        assertThat(slow.get(10, java.util.concurrent.TimeUnit.SECONDS).statusCode())
                .isEqualTo(200);
        eventually(() -> gate.stats("/api/**").orElseThrow().lastMinute().inFlight() == 0);
        assertThat(jetty.get("/api/hello").statusCode())
                .as("after the first completed")
                .isEqualTo(200);
        eventually(() -> gate.stats("/api/**").orElseThrow().lastMinute().inFlight() == 0);
        StatsSnapshot m = gate.stats("/api/**").orElseThrow().lastMinute();
        assertThat(m.admitted()).as("admitted").isEqualTo(2);
        assertThat(m.succeeded()).as("succeeded").isEqualTo(2);
    }

    /** A filter on another gate is no part of the first gate's decision: it limits by its own rules. */
    @Test
    void aFilterOnAnotherGate_stillDecides() throws Exception {
        gate = gate("rule.api.match", "/api/**", "rule.api.limit", "4/10s");
        other = gate("rule.tight.match", "/api/**", "rule.tight.limit", "2/10s");
        jetty = twoFilters("other", other, "/api/*", EnumSet.allOf(DispatcherType.class))
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .start();

        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);
        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);
        assertThat(jetty.get("/api/hello").statusCode())
                .as("refused by the other gate's 2/10s")
                .isEqualTo(429);
        assertThat(other.stats("/api/**").orElseThrow().lastMinute().admitted()).isEqualTo(2);
        assertThat(gate.stats("/api/**").orElseThrow().lastMinute().admitted()).isEqualTo(3);
    }
}
