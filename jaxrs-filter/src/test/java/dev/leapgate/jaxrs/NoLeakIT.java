package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.LeakResource;
import dev.leapgate.jaxrs.app.MappedException;
import dev.leapgate.jaxrs.app.SecondDispatchResource;
import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsSnapshot;
import jakarta.ws.rs.container.AsyncResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An in-flight limit over every way a JAX-RS request can end, on the runtime under test ({@link
 * JaxrsServer}) with parallel clients: afterwards nothing is in flight, every admitted request
 * completed exactly once, and the full limit can be taken again. Twice: with the servlet
 * container reporting each request's end ({@link LeapgateServletInitializer}), and without, where
 * the provider sees the end itself and the safety net ({@link Leases}, after {@code
 * max-request-time}) releases what it cannot see (on RESTEasy and CXF, exceptions that no mapper
 * handles; Jersey reports every end itself).
 */
class NoLeakIT {

    private static final int LIMIT = 64;
    private static final int CLIENTS = 8;
    private static final int REQUESTS_PER_CLIENT = 360;
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    /** How a request ends, what the client should see, and whether the server counts it failed. */
    enum Ending {
        NORMAL("/leak/normal", 200, false),
        MAPPED_EXCEPTION("/leak/mapped", 409, false),
        UNMAPPED_EXCEPTION("/leak/unmapped", 500, true),
        ASYNC_RESUMED("/leak/async", 200, false),
        ASYNC_RESUMED_WITH_EXCEPTION("/leak/async-mapped", 409, false),
        ASYNC_TIMED_OUT("/leak/timeout", 503, true),
        COMPLETION_STAGE("/leak/stage", 200, false),
        COMPLETION_STAGE_FAILED("/leak/stage-failed", 500, true),
        CLIENT_DISCONNECTED("/leak/disconnect", -1, false);

        final String path;
        final int status;
        final boolean failed;

        Ending(String path, int status, boolean failed) {
            this.path = path;
            this.status = status;
            this.failed = failed;
        }
    }

    private final AtomicInteger disconnectIds = new AtomicInteger();

    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void inFlightCount_returnsToZero_afterThousandsOfRequestsEndingEveryWay(boolean servletListener) throws Exception {
        LeakResource.ENTERED.clear();
        LeakResource.RELEASE.clear();
        LeakResource.HELD.clear();
        ManualClock clock = new ManualClock();
        JaxrsServer.App app = new JaxrsServer.App(LeakResource.class, MappedException.Mapper.class)
                .property(ProviderSettings.CLOCK, clock)
                .property(ProviderSettings.MAX_REQUEST_TIME, "1s")
                .property("leapgate.rule.inflight.match", "/leak/**")
                .property("leapgate.rule.inflight.in-flight", Integer.toString(LIMIT));

        try (JaxrsServer server = JaxrsServer.start(app, servletListener)) {
            ResourceStats metrics = server.gate().stats("/leak/**").orElseThrow();

            // Phase 1: every ending, mixed, from parallel clients; without the servlet listener, every
            // ending but an unmapped exception (phase 1b), which a runtime may not report.
            List<Ending> endings = new ArrayList<>(List.of(Ending.values()));
            if (!servletListener) {
                endings.remove(Ending.UNMAPPED_EXCEPTION);
            }
            Map<Ending, LongAdder> sent = new EnumMap<>(Ending.class);
            for (Ending ending : Ending.values()) {
                sent.put(ending, new LongAdder());
            }
            ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
            CountDownLatch go = new CountDownLatch(1);
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    go.await();
                    for (int i = 0; i < REQUESTS_PER_CLIENT; i++) {
                        Ending ending = endings.get((i + client) % endings.size());
                        sent.get(ending).increment();
                        if (ending == Ending.CLIENT_DISCONNECTED) {
                            disconnectMidRequest(server);
                        } else {
                            int status = server.get(ending.path).statusCode();
                            if (status != ending.status) {
                                unexpected.add(ending + " answered " + status);
                            }
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            try {
                for (Future<?> client : done) {
                    client.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                }
            } finally {
                clients.shutdownNow(); // also when a client failed: no thread outlives the test
            }

            int total = CLIENTS * REQUESTS_PER_CLIENT;
            assertThat(awaitInFlight(metrics, 0, PATIENCE))
                    .as("nothing in flight")
                    .isTrue();
            if (!servletListener) {
                // Phase 1b: unmapped exceptions, one after the other. Where nothing reports their end
                // (CXF), their slots stay taken until their leases expire after max-request-time (1
                // s), at the next request.
                int unmapped = 10;
                for (int i = 0; i < unmapped; i++) {
                    assertThat(server.get(Ending.UNMAPPED_EXCEPTION.path).statusCode())
                            .isEqualTo(500);
                }
                sent.get(Ending.UNMAPPED_EXCEPTION).add(unmapped);
                total += unmapped;
                if (!awaitInFlight(metrics, 0, Duration.ofSeconds(2))) {
                    awaitQuiet(metrics);
                    assertThat(metrics.inFlight())
                            .as("unmapped exceptions nobody reported")
                            .isEqualTo(unmapped);
                    assertThat(JaxrsServer.runtime())
                            .as("Jersey reports every end")
                            .isNotEqualTo("jersey");
                    clock.advance(Duration.ofSeconds(2));
                    assertThat(server.get("/leak/normal").statusCode()).isEqualTo(200);
                    total++;
                    assertThat(server.leases().expired())
                            .as("released by the safety net")
                            .isEqualTo(unmapped);
                    assertThat(awaitInFlight(metrics, 0, PATIENCE))
                            .as("nothing in flight")
                            .isTrue();
                }
            }
            // A runtime that hands an unmapped exception to the container can leave a 500 on the
            // connection that a later request reads. The statistics below are the server's own and
            // must add up regardless.
            assertThat(unexpected).allMatch(mismatch -> mismatch.endsWith("answered 500"));

            StatsSnapshot counts = metrics.lastMinute();
            long mustFail = sent.entrySet().stream()
                    .filter(e -> e.getKey().failed)
                    .mapToLong(e -> e.getValue().sum())
                    .sum();
            long disconnected = sent.get(Ending.CLIENT_DISCONNECTED).sum();
            assertThat(counts.admitted()).isEqualTo(total);
            assertThat(counts.rejected()).isZero();
            assertThat(counts.succeeded() + counts.failed())
                    .as("every admitted request completed exactly once")
                    .isEqualTo(total);
            // A write to a client that has gone may fail or land in a socket buffer first.
            long mismatched = unexpected.size();
            assertThat(counts.failed()).isBetween(mustFail - mismatched, mustFail + disconnected + mismatched);
            assertThat(counts.inFlight()).isZero();

            // Phase 2: the whole limit is free again: exactly LIMIT requests are admitted at once.
            List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
            for (int i = 0; i < LIMIT; i++) {
                held.add(JaxrsServer.CLIENT.sendAsync(
                        HttpRequest.newBuilder(server.base.resolve("/leak/hold"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            List<AsyncResponse> suspended = new ArrayList<>();
            for (int i = 0; i < LIMIT; i++) {
                AsyncResponse response = LeakResource.HELD.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(response).as("held request %d admitted", i).isNotNull();
                suspended.add(response);
            }
            assertThat(metrics.inFlight()).isEqualTo(LIMIT);
            HttpResponse<String> oneMore = server.get("/leak/normal");
            assertThat(oneMore.statusCode()).isEqualTo(429);
            assertThat(oneMore.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"inflight\";q=" + LIMIT + ";qu=\"concurrent-requests\"");

            suspended.forEach(response -> response.resume("ok"));
            for (CompletableFuture<HttpResponse<String>> response : held) {
                assertThat(response.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).statusCode())
                        .isEqualTo(200);
            }
            assertThat(awaitInFlight(metrics, 0, PATIENCE))
                    .as("nothing in flight")
                    .isTrue();
            assertThat(metrics.lastMinute().admitted()).isEqualTo(total + LIMIT);
        }
    }

    /**
     * One servlet request admitted twice, with the servlet listener: an unmapped exception whose
     * container error page (an ERROR dispatch) is a resource of the same application, under a rule
     * on every route; and a resource that forwards the servlet request to another. Both admissions
     * are finished when the servlet request ends; the safety net is not needed (and could not see a
     * request the listener watches). RESTEasy answers an unmapped exception itself (its default
     * exception mapper, a 500), so there the error page is never dispatched to.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/second/unmapped", "/second/forward"})
    void aServletRequestAdmittedTwice_releasesBothSlots(String path) {
        SecondDispatchResource.SECOND.set(0);
        ManualClock clock = new ManualClock();
        JaxrsServer.App app = new JaxrsServer.App(SecondDispatchResource.class)
                .property(ProviderSettings.CLOCK, clock)
                .property(ProviderSettings.MAX_REQUEST_TIME, "1s")
                .property("leapgate.rule.all.match", "/**")
                .property("leapgate.rule.all.in-flight", "8")
                .errorPage("/second/error")
                .servletFilter(new SecondDispatchResource.Exposer());
        boolean once = path.equals("/second/unmapped") && JaxrsServer.runtime().equals("resteasy");

        try (JaxrsServer server = JaxrsServer.start(app)) {
            ResourceStats metrics = server.gate().stats("/**").orElseThrow();
            int requests = 3;
            for (int i = 0; i < requests; i++) {
                HttpResponse<String> response = server.get(path);
                assertThat(response.body())
                        .isEqualTo(
                                once
                                        ? "unmapped, on purpose"
                                        : path.equals("/second/unmapped") ? "error page" : "forwarded");
            }
            int admitted = once ? requests : 2 * requests;
            assertThat(SecondDispatchResource.SECOND.get())
                    .as("second entries into the application")
                    .isEqualTo(admitted - requests);
            assertThat(metrics.lastMinute().admitted()).isEqualTo(admitted);

            // Past max-request-time, a request runs the safety net's sweep.
            clock.advance(Duration.ofSeconds(2));
            assertThat(server.get("/second/ok").statusCode()).isEqualTo(200);
            assertThat(awaitInFlight(metrics, 0, Duration.ofSeconds(5)))
                    .as("nothing in flight (in flight: %d)", metrics.inFlight())
                    .isTrue();
            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(admitted + 1);
            assertThat(counts.succeeded() + counts.failed())
                    .as("every admitted request completed exactly once")
                    .isEqualTo(admitted + 1);
            assertThat(server.leases().expired())
                    .as("released by the safety net")
                    .isZero();
        }
    }

    /**
     * A resource that forwards the servlet request to another resource of the application: the
     * forward's response is filtered first, then the forwarding resource's, and each must find its
     * own admission (a servlet request's attributes are the request properties of both). With the
     * listener or without, both admissions are released when the request ends, each a success, and
     * the safety net is not needed.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aForwardedRequest_completesBothAdmissions_whenItEnds(boolean servletListener) {
        SecondDispatchResource.SECOND.set(0);
        JaxrsServer.App app = new JaxrsServer.App(SecondDispatchResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.all.match", "/**")
                .property("leapgate.rule.all.in-flight", "8")
                .servletFilter(new SecondDispatchResource.Exposer());

        try (JaxrsServer server = JaxrsServer.start(app, servletListener)) {
            ResourceStats metrics = server.gate().stats("/**").orElseThrow();
            int requests = 3;
            for (int i = 0; i < requests; i++) {
                assertThat(server.get("/second/forward").body()).isEqualTo("forwarded");
            }

            assertThat(awaitInFlight(metrics, 0, Duration.ofSeconds(5)))
                    .as("nothing in flight (in flight: %d)", metrics.inFlight())
                    .isTrue();
            assertThat(server.leases().open()).isZero();
            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(2 * requests);
            assertThat(counts.succeeded()).as("succeeded").isEqualTo(2 * requests);
            assertThat(counts.failed()).as("failed").isZero();
        }
    }

    /**
     * An unmapped exception whose error page, a resource of the application, the limit rejects:
     * the rejection's response is not the failed request's, which stays failed (released by the
     * servlet listener, or else by the safety net, as any unmapped exception). RESTEasy answers an
     * unmapped exception itself (500), so there the error page is never dispatched to, and the
     * request is failed by its own response.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void anErrorPageThatTheLimitRejects_leavesTheFailedRequestFailed(boolean servletListener) {
        boolean errorPage = !JaxrsServer.runtime().equals("resteasy");
        ManualClock clock = new ManualClock();
        JaxrsServer.App app = new JaxrsServer.App(SecondDispatchResource.class)
                .property(ProviderSettings.CLOCK, clock)
                .property(ProviderSettings.MAX_REQUEST_TIME, "1s")
                .property("leapgate.rule.all.match", "/**")
                .property("leapgate.rule.all.limit", "1/1h")
                .errorPage("/second/error")
                .servletFilter(new SecondDispatchResource.Exposer());

        try (JaxrsServer server = JaxrsServer.start(app, servletListener)) {
            ResourceStats metrics = server.gate().stats("/**").orElseThrow();
            assertThat(server.get("/second/unmapped").statusCode())
                    .as(errorPage ? "the error page, rejected" : "RESTEasy's own answer")
                    .isEqualTo(errorPage ? 429 : 500);

            // Past max-request-time, a request (rejected too) runs the safety net's sweep.
            assertOneFailedOnceSwept(server, clock, metrics, 429);
        }
    }

    /**
     * An unmapped exception whose container error page the application does not serve (no
     * resource at that path: the runtime answers 404 in the error dispatch, through its response
     * filters, where Leapgate's request filter did not run): the failed request stays failed,
     * released by the servlet listener or the safety net, not finished by the error page's
     * response as a success.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void anErrorPageTheApplicationDoesNotServe_leavesTheFailedRequestFailed(boolean servletListener) {
        ManualClock clock = new ManualClock();
        JaxrsServer.App app = new JaxrsServer.App(SecondDispatchResource.class)
                .property(ProviderSettings.CLOCK, clock)
                .property(ProviderSettings.MAX_REQUEST_TIME, "1s")
                .property("leapgate.rule.unmapped.match", "/second/unmapped")
                .property("leapgate.rule.unmapped.in-flight", "8")
                .errorPage("/second/absent")
                .servletFilter(new SecondDispatchResource.Exposer());

        try (JaxrsServer server = JaxrsServer.start(app, servletListener)) {
            ResourceStats metrics = server.gate().stats("/second/unmapped").orElseThrow();
            server.get("/second/unmapped");

            // Past max-request-time, a request runs the safety net's sweep.
            assertOneFailedOnceSwept(server, clock, metrics, 200);
        }
    }

    /**
     * A resource that forwards the servlet request to a path no resource serves: the forward's 404
     * goes through the response filters, where Leapgate's request filter did not run. The
     * forwarding request keeps its slot until it ends itself.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aForwardToAPathNoResourceServes_keepsTheForwardingRequestInFlightUntilItEnds(boolean servletListener) {
        SecondDispatchResource.IN_FLIGHT_AFTER_FORWARD.set(-1);
        JaxrsServer.App app = new JaxrsServer.App(SecondDispatchResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.forwarding.match", "/second/forward-absent")
                .property("leapgate.rule.forwarding.in-flight", "8")
                .servletFilter(new SecondDispatchResource.Exposer());

        try (JaxrsServer server = JaxrsServer.start(app, servletListener)) {
            ResourceStats metrics =
                    server.gate().stats("/second/forward-absent").orElseThrow();
            assertThat(server.get("/second/forward-absent").statusCode()).isEqualTo(404);

            // The client has the forward's response as soon as the forward returns: wait for the
            // resource to go on.
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (SecondDispatchResource.IN_FLIGHT_AFTER_FORWARD.get() < 0 && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            assertThat(SecondDispatchResource.IN_FLIGHT_AFTER_FORWARD.get())
                    .as("in flight while the forwarding resource still ran")
                    .isEqualTo(1);
            assertThat(awaitInFlight(metrics, 0, Duration.ofSeconds(5)))
                    .as("nothing in flight (in flight: %d)", metrics.inFlight())
                    .isTrue();
            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(1);
            assertThat(counts.succeeded() + counts.failed()).isEqualTo(1);
        }
    }

    /**
     * Queries that are no URI (characters a URI may not hold, which Jetty takes): each request is
     * served as it would be without Leapgate, and ends, releasing its slot. CXF and RESTEasy make
     * the request URI when asked, and throw for such a query: asked for it after the admission, the
     * provider answered 500 and nothing ever released the slot.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aQueryThatIsNoUri_isServed_andReleasesItsSlot(boolean servletListener) {
        JaxrsServer.App app = new JaxrsServer.App(LeakResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.inflight.match", "/leak/**")
                .property("leapgate.rule.inflight.in-flight", "1");

        try (JaxrsServer server = JaxrsServer.start(app, servletListener)) {
            ResourceStats metrics = server.gate().stats("/leak/**").orElseThrow();
            List<String> queries = List.of("a|b", "a^b", "{x}", "a\"b", "a`b", "a[0]", "a\\b", "a<b");
            for (String query : queries) {
                assertThat(server.raw("GET /leak/normal?q=" + query))
                        .as("?q=%s", query)
                        .startsWith("HTTP/1.1 200");
                assertThat(awaitInFlight(metrics, 0, Duration.ofSeconds(5)))
                        .as("nothing in flight after ?q=%s (in flight: %d)", query, metrics.inFlight())
                        .isTrue();
            }
            assertThat(server.get("/leak/normal").statusCode()).isEqualTo(200);
            assertThat(awaitInFlight(metrics, 0, Duration.ofSeconds(5))).isTrue(); // ends after the response
            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(queries.size() + 1);
            assertThat(counts.succeeded()).as("succeeded").isEqualTo(queries.size() + 1);
            assertThat(server.leases().open()).as("leases held").isZero();
        }
    }

    /**
     * Sends a request, waits until the resource has it, resets the connection, then lets the
     * resource answer into the void.
     */
    private void disconnectMidRequest(JaxrsServer server) throws InterruptedException {
        int id = disconnectIds.incrementAndGet();
        try (Socket socket = new Socket(server.base.getHost(), server.base.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(
                    ("GET /leak/disconnect?id=" + id + " HTTP/1.1\r\nHost: " + server.base.getAuthority() + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            if (!LeakResource.latch(LeakResource.ENTERED, id).await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("request " + id + " never reached the resource");
            }
            socket.setSoLinger(true, 0); // close with a reset, as a client that crashed
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            LeakResource.latch(LeakResource.RELEASE, id).countDown();
        }
    }

    /**
     * Whether the in-flight count reaches {@code expected} within {@code patience}: the last
     * requests finish on the server's threads just after their clients read the response. Bounded
     * polling, not a wait for a window.
     */
    /**
     * Moves the clock past max-request-time (1 s), sends a request to {@code /second/ok} (answered
     * {@code status}), whose admission runs the safety net's sweep, and checks that the one request
     * admitted under {@code metrics} has ended as a failure and holds nothing.
     */
    private static void assertOneFailedOnceSwept(
            JaxrsServer server, ManualClock clock, ResourceStats metrics, int status) {
        clock.advance(Duration.ofSeconds(2));
        assertThat(server.get("/second/ok").statusCode()).isEqualTo(status);
        assertThat(awaitInFlight(metrics, 0, Duration.ofSeconds(5)))
                .as("nothing in flight (in flight: %d)", metrics.inFlight())
                .isTrue();
        StatsSnapshot counts = metrics.lastMinute();
        assertThat(counts.admitted()).isEqualTo(1);
        assertThat(counts.succeeded()).as("succeeded").isZero();
        assertThat(counts.failed()).as("failed").isEqualTo(1);
    }

    private static boolean awaitInFlight(ResourceStats metrics, long expected, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (metrics.inFlight() != expected && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return metrics.inFlight() == expected;
    }

    /** Waits until the in-flight count has not moved for 300 ms (bounded by {@code PATIENCE}). */
    private static void awaitQuiet(ResourceStats metrics) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        long last = metrics.inFlight();
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < TimeUnit.MILLISECONDS.toNanos(300)
                && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            long now = metrics.inFlight();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            }
        }
    }
}
