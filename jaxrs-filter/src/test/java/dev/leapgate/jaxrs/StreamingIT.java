package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.EventsResource;
import dev.leapgate.jaxrs.app.MappedException;
import dev.leapgate.jaxrs.app.StreamingResource;
import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsSnapshot;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A response entity written after the resource method returned ({@code StreamingOutput}), on the
 * runtime under test ({@link JaxrsServer}), with the servlet container reporting each request's
 * end and without (RESTEasy and CXF then report none; Jersey reports its own): the request holds
 * its in-flight slot until its entity is written, and a write that fails counts as failed. A
 * stream of server-sent events holds it until the stream closes.
 */
class StreamingIT {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static JaxrsServer start(boolean servletListener) {
        return start(servletListener, new ManualClock());
    }

    private static JaxrsServer start(boolean servletListener, ManualClock clock) {
        StreamingResource.reset();
        EventsResource.reset();
        JaxrsServer.App app = new JaxrsServer.App(
                        StreamingResource.class,
                        EventsResource.class,
                        EventsResource.Started.class,
                        MappedException.Mapper.class)
                .property(ProviderSettings.CLOCK, clock)
                .property("leapgate.rule.streams.match", "/stream/**")
                .property("leapgate.rule.streams.in-flight", "1");
        return JaxrsServer.start(app, servletListener);
    }

    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aStreamingResponse_holdsItsInFlightSlot_untilItsEntityIsWritten(boolean servletListener) throws Exception {
        try (JaxrsServer server = start(servletListener)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            CompletableFuture<HttpResponse<String>> streaming = JaxrsServer.CLIENT.sendAsync(
                    HttpRequest.newBuilder(server.base.resolve("/stream/held"))
                            .timeout(PATIENCE)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            try {
                assertThat(StreamingResource.writing.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                        .as("the entity's write started")
                        .isTrue();

                assertThat(server.get("/stream/quick").statusCode())
                        .as("a second request while the first still streams, over in-flight 1")
                        .isEqualTo(429);
            } finally {
                StreamingResource.release.countDown();
            }
            HttpResponse<String> streamed = streaming.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(streamed.body()).isEqualTo("streamed");
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();
            assertThat(server.get("/stream/quick").statusCode()).isEqualTo(200);
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();

            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(2);
            assertThat(counts.rejected()).isEqualTo(1);
            assertThat(counts.succeeded()).as("succeeded").isEqualTo(2);
            assertThat(counts.failed()).as("failed").isZero();
            assertThat(server.leases().open()).as("leases").isZero();
        }
    }

    /**
     * A stream of server-sent events holds its request's in-flight slot until it closes, on every
     * runtime, with the servlet listener and without: the runtime starts the servlet request's
     * asynchronous cycle and runs the response filters in the request's dispatch, and the cycle
     * ends when the application closes the stream (the stream goes on on the application's thread).
     * It ends once, as a success, leaves no lease, and nothing is warned of.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aStreamOfServerSentEvents_holdsItsSlot_untilItCloses(boolean servletListener) throws Exception {
        try (JaxrsServer server = start(servletListener)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            String log = StandardError.capturedWhile(() -> {
                CompletableFuture<HttpResponse<String>> streaming = openEvents(server.base);
                try {
                    awaitFirstEvent();
                    assertThat(metrics.inFlight())
                            .as("the open stream in flight")
                            .isEqualTo(1);
                    assertThat(server.get("/stream/quick").statusCode())
                            .as("a second request while the stream is open, over in-flight 1")
                            .isEqualTo(429);
                } finally {
                    EventsResource.release.countDown();
                }
                HttpResponse<String> streamed = streaming.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                assertThat(streamed.statusCode()).isEqualTo(200);
                assertThat(streamed.body()).contains("data: first").contains("data: last");
            });
            assertThat(awaitInFlight(metrics, 0))
                    .as("nothing in flight once the stream closed")
                    .isTrue();
            assertThat(server.get("/stream/quick").statusCode()).isEqualTo(200);
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();
            assertThat(log).as("nothing warned of").doesNotContain("server-sent events");

            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(2);
            assertThat(counts.rejected()).isEqualTo(1);
            assertThat(counts.succeeded()).as("succeeded, each request once").isEqualTo(2);
            assertThat(counts.failed()).as("failed").isZero();
            assertThat(server.leases().open()).as("leases").isZero();
        }
    }

    /**
     * The first event sent by the application's thread at once, racing the start of the response:
     * RESTEasy then runs the response filters on whichever thread starts it, where its proxy to the
     * servlet request does not reach it. The provider has the servlet request itself (the one the
     * servlet listener saw start, or else the one it kept when it admitted the request), and the
     * stream holds its slot whichever thread started it, on every runtime. On RESTEasy the resource
     * method returns only once the stream's thread has started the response, so that this case is
     * the one run; Jersey and CXF start the response when the method returns.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aStreamSendingAtOnce_holdsItsSlot_whicheverThreadStartsItsResponse(boolean servletListener) throws Exception {
        boolean resteasy = JaxrsServer.runtime().equals("resteasy");
        try (JaxrsServer server = start(servletListener)) {
            EventsResource.reset(
                    resteasy ? EventsResource.First.BEFORE_THE_METHOD_RETURNS : EventsResource.First.AT_ONCE);
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            CompletableFuture<HttpResponse<String>> streaming = openEvents(server.base);
            try {
                awaitFirstEvent();
                assertThat(server.get("/stream/quick").statusCode())
                        .as("a second request while the stream is open, over in-flight 1")
                        .isEqualTo(429);
            } finally {
                EventsResource.release.countDown();
            }
            assertThat(streaming.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).body())
                    .contains("data: first")
                    .contains("data: last");
            assertThat(awaitInFlight(metrics, 0))
                    .as("nothing in flight once the stream closed")
                    .isTrue();
            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(1);
            assertThat(counts.succeeded()).as("succeeded").isEqualTo(1);
            assertThat(server.leases().open()).as("leases").isZero();
            if (resteasy) {
                assertThat(EventsResource.startedByTheStream())
                        .as("the stream's thread started the response")
                        .isTrue();
            }
        }
    }

    /**
     * A stream may rightly stay open longer than {@code max-request-time}: the container reports its
     * end, so it holds no lease, and the safety net neither releases its slot nor calls it a leak.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aStreamOpenLongerThanMaxRequestTime_keepsItsSlot_andIsNoLeak(boolean servletListener) throws Exception {
        ManualClock clock = new ManualClock();
        try (JaxrsServer server = start(servletListener, clock)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            CompletableFuture<HttpResponse<String>> streaming = openEvents(server.base);
            try {
                awaitFirstEvent();
                clock.advance(ProviderSettings.DEFAULT_MAX_REQUEST_TIME.plusMinutes(1));
                assertThat(server.get("/stream/quick").statusCode())
                        .as("a request after max-request-time (the safety net sweeps), the stream still open")
                        .isEqualTo(429);
                assertThat(server.leases().expired())
                        .as("released by the safety net")
                        .isZero();
                assertThat(metrics.inFlight()).as("the open stream in flight").isEqualTo(1);
            } finally {
                EventsResource.release.countDown();
            }
            assertThat(streaming.get(PATIENCE.toSeconds(), TimeUnit.SECONDS).statusCode())
                    .isEqualTo(200);
            assertThat(awaitInFlight(metrics, 0))
                    .as("nothing in flight once the stream closed")
                    .isTrue();
            assertThat(metrics.lastMinute().minResponseMillis())
                    .as("the stream's response time: as long as it was open, on the test's clock")
                    .isGreaterThanOrEqualTo(ProviderSettings.DEFAULT_MAX_REQUEST_TIME
                            .plusMinutes(1)
                            .toMillis());
            assertThat(server.get("/stream/quick").statusCode()).isEqualTo(200);
            assertThat(server.leases().expired())
                    .as("released by the safety net")
                    .isZero();
            assertThat(server.leases().open()).as("leases").isZero();
        }
    }

    /**
     * A client that resets its connection while its stream is open: the stream ends when the
     * application next sends on it (the write fails, the runtime closes the stream), and its
     * request ends once.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aStreamWhoseClientGoesAway_endsOnce(boolean servletListener) throws Exception {
        try (JaxrsServer server = start(servletListener)) {
            resetMidStream(server, "/stream/events", "text/event-stream", EventsResource.sent, EventsResource.release);
        }
    }

    /**
     * Opens {@code path} on a socket of its own ({@code accept}: the request's {@code Accept}
     * field, or null), waits until the resource has sent its first part ({@code firstSent}), then
     * resets the connection, as a client that crashed, and lets the resource go on ({@code
     * release}): the request ends once, and leaves no lease.
     */
    static void resetMidStream(
            JaxrsServer server, String path, String accept, CountDownLatch firstSent, CountDownLatch release)
            throws Exception {
        ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
        try (Socket socket = new Socket(server.base.getHost(), server.base.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + server.base.getAuthority()
                            + (accept == null ? "" : "\r\nAccept: " + accept) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(firstSent.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("the first part sent")
                    .isTrue();
            assertThat(metrics.inFlight()).as("the open response in flight").isEqualTo(1);
            socket.setSoLinger(true, 0); // close with a reset, as a client that crashed
        } finally {
            release.countDown();
        }
        assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();

        StatsSnapshot counts = metrics.lastMinute();
        assertThat(counts.admitted()).isEqualTo(1);
        assertThat(counts.succeeded() + counts.failed()).as("ended once").isEqualTo(1);
        assertThat(server.leases().open()).as("leases").isZero();
    }

    /** Opens the stream of {@code EventsResource} at {@code base}. */
    static CompletableFuture<HttpResponse<String>> openEvents(URI base) {
        return JaxrsServer.CLIENT.sendAsync(
                HttpRequest.newBuilder(base.resolve("/stream/events"))
                        .header("Accept", "text/event-stream")
                        .timeout(PATIENCE)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Waits for the stream of {@code EventsResource} to have sent its first event. */
    static void awaitFirstEvent() throws InterruptedException {
        assertThat(EventsResource.sent.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .as("the first event sent")
                .isTrue();
    }

    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aStreamingResponseWhoseWriteThrows_isCountedAsFailed(boolean servletListener) {
        try (JaxrsServer server = start(servletListener)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            try {
                server.get("/stream/failing");
            } catch (UncheckedIOException brokenResponse) {
                // a runtime that had committed the response can only break the connection
            }
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();

            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(1);
            assertThat(counts.succeeded()).as("succeeded").isZero();
            assertThat(counts.failed()).as("failed").isEqualTo(1);
            assertThat(server.leases().open()).as("leases").isZero();
        }
    }

    /**
     * A write that throws an exception the application maps: the runtime answers with the mapped
     * response (409) if it can, and the request ends once, the same with the servlet listener and
     * without.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aWriteThrowingAMappedException_endsOnce(boolean servletListener) {
        try (JaxrsServer server = start(servletListener)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            assertThat(server.get("/stream/mapped").statusCode()).isEqualTo(409);
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();
            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(1);
            assertThat(counts.succeeded() + counts.failed()).as("ended").isEqualTo(1);
            assertThat(server.leases().open()).as("leases").isZero();
        }
    }

    /**
     * A HEAD request (no entity written), a 204, and an error status whose entity is written: each
     * ends once, failed only for the 5xx ({@code HttpGate.complete}'s rule).
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void headNoContentAndAnErrorWithAnEntity_endOnceEach(boolean servletListener) {
        try (JaxrsServer server = start(servletListener)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            HttpResponse<Void> head = JaxrsServer.CLIENT
                    .sendAsync(
                            HttpRequest.newBuilder(server.base.resolve("/stream/quick"))
                                    .method("HEAD", HttpRequest.BodyPublishers.noBody())
                                    .timeout(PATIENCE)
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .join();
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(awaitInFlight(metrics, 0))
                    .as("nothing in flight after HEAD")
                    .isTrue();
            assertThat(server.get("/stream/empty").statusCode()).isEqualTo(204);
            assertThat(awaitInFlight(metrics, 0))
                    .as("nothing in flight after 204")
                    .isTrue();
            assertThat(server.get("/stream/unavailable").statusCode()).isEqualTo(503);
            assertThat(awaitInFlight(metrics, 0))
                    .as("nothing in flight after 503")
                    .isTrue();

            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(3);
            assertThat(counts.succeeded()).as("succeeded").isEqualTo(2);
            assertThat(counts.failed()).as("failed").isEqualTo(1);
            assertThat(server.leases().open()).as("leases").isZero();
        }
    }

    /**
     * A client that resets its connection while the entity is being written: the request ends
     * once (whether the container notices before the write returns decides success or failure).
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aClientDisconnectingMidStream_endsOnce(boolean servletListener) throws Exception {
        try (JaxrsServer server = start(servletListener)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            try (Socket socket = new Socket(server.base.getHost(), server.base.getPort())) {
                OutputStream out = socket.getOutputStream();
                out.write(("GET /stream/held HTTP/1.1\r\nHost: " + server.base.getAuthority() + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertThat(StreamingResource.writing.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                        .as("the entity's write started")
                        .isTrue();
                socket.setSoLinger(true, 0); // close with a reset, as a client that crashed
            } finally {
                StreamingResource.release.countDown();
            }
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();
            assertThat(server.get("/stream/quick").statusCode()).isEqualTo(200);
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();

            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(2);
            assertThat(counts.succeeded() + counts.failed()).as("ended").isEqualTo(2);
            assertThat(server.leases().open()).as("leases").isZero();
        }
    }

    /**
     * An entity for which the runtime finds no writer: the runtime answers 500 without running the
     * writer interceptors (CXF), so the request must not wait for WriteEnd; it ends once, failed,
     * and frees its slot at once rather than at max-request-time.
     */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void anEntityWithoutAWriter_endsTheRequestAsFailed(boolean servletListener) {
        try (JaxrsServer server = start(servletListener)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            try {
                assertThat(server.get("/stream/unwritable").statusCode()).isEqualTo(500);
            } catch (UncheckedIOException brokenResponse) {
                // a runtime that had committed the response can only break the connection
            }
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();
            assertThat(server.get("/stream/quick").statusCode()).isEqualTo(200);
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();

            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).isEqualTo(2);
            assertThat(counts.succeeded()).as("succeeded").isEqualTo(1);
            assertThat(counts.failed()).as("failed").isEqualTo(1);
            assertThat(server.leases().open()).as("leases").isZero();
        }
    }

    /**
     * Whether nothing is in flight within {@link #PATIENCE}: a request finishes on the server's
     * thread just after its client has read the response. Bounded polling, not a wait for a window.
     */
    static boolean awaitInFlight(ResourceStats metrics, long expected) {
        return await(() -> metrics.inFlight() == expected);
    }

    /** Whether {@code condition} holds within the test's patience (a runtime may end a request after its client has the response). */
    static boolean await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return condition.getAsBoolean();
    }
}
