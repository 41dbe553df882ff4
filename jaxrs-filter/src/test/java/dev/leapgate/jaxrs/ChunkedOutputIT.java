package dev.leapgate.jaxrs;

import static dev.leapgate.jaxrs.StreamingIT.awaitInFlight;
import static dev.leapgate.jaxrs.StreamingIT.resetMidStream;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.ChunksResource;
import dev.leapgate.jaxrs.app.StreamingResource;
import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsSnapshot;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Jersey's own streamed response, a {@code ChunkedOutput} that the application writes to after the
 * resource method returned, deployed as a servlet in Jetty (Jersey only: the class is Jersey's),
 * with the servlet listener and without. Jersey reports the request's end when the output's
 * response has started, and only then starts the servlet request's asynchronous cycle: the request
 * holds its in-flight slot until the output closes all the same, and ends once, also when its
 * client goes away.
 */
class ChunkedOutputIT {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static JaxrsServer start(boolean servletListener, ManualClock clock) {
        StreamingResource.reset();
        ChunksResource.reset();
        JaxrsServer.App app = new JaxrsServer.App(StreamingResource.class, ChunksResource.class)
                .property(ProviderSettings.CLOCK, clock)
                .property("leapgate.rule.streams.match", "/stream/**")
                .property("leapgate.rule.streams.in-flight", "1");
        return JaxrsServer.start(app, servletListener);
    }

    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aChunkedOutput_holdsItsSlot_untilItCloses(boolean servletListener) throws Exception {
        ManualClock clock = new ManualClock();
        try (JaxrsServer server = start(servletListener, clock)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            CompletableFuture<HttpResponse<String>> streaming = JaxrsServer.CLIENT.sendAsync(
                    HttpRequest.newBuilder(server.base.resolve("/stream/chunks"))
                            .timeout(PATIENCE)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            try {
                awaitFirstChunk();
                clock.advance(ProviderSettings.DEFAULT_MAX_REQUEST_TIME.plusMinutes(1));
                assertThat(server.get("/stream/quick").statusCode())
                        .as("a second request while the output is open, past max-request-time, over in-flight 1")
                        .isEqualTo(429);
                assertThat(metrics.inFlight()).as("the open output in flight").isEqualTo(1);
                assertThat(server.leases().expired())
                        .as("released by the safety net")
                        .isZero();
            } finally {
                ChunksResource.release.countDown();
            }
            HttpResponse<String> streamed = streaming.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(streamed.body()).isEqualTo("first;last");
            assertThat(awaitInFlight(metrics, 0))
                    .as("nothing in flight once the output closed")
                    .isTrue();
            assertThat(server.get("/stream/quick").statusCode()).isEqualTo(200);
            assertThat(awaitInFlight(metrics, 0)).as("nothing in flight").isTrue();

            // The last minute of the test's clock: the output's admission is older, its end is not.
            StatsSnapshot counts = metrics.lastMinute();
            assertThat(counts.admitted()).as("admitted in the last minute").isEqualTo(1);
            assertThat(counts.rejected()).isEqualTo(1);
            assertThat(counts.succeeded()).as("succeeded, each request once").isEqualTo(2);
            assertThat(counts.failed()).as("failed").isZero();
            assertThat(counts.responseNanos())
                    .as("the response times, the output's as long as it was open on the test's clock")
                    .isGreaterThanOrEqualTo(ProviderSettings.DEFAULT_MAX_REQUEST_TIME
                            .plusMinutes(1)
                            .toNanos());
            assertThat(server.leases().open()).as("leases").isZero();
        }
    }

    /** A client that resets its connection while the output is open: its request ends once. */
    @ParameterizedTest(name = "servlet listener: {0}")
    @ValueSource(booleans = {true, false})
    void aChunkedOutputWhoseClientGoesAway_endsOnce(boolean servletListener) throws Exception {
        try (JaxrsServer server = start(servletListener, new ManualClock())) {
            resetMidStream(server, "/stream/chunks", null, ChunksResource.sent, ChunksResource.release);
        }
    }

    private static void awaitFirstChunk() throws InterruptedException {
        assertThat(ChunksResource.sent.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .as("the first chunk written")
                .isTrue();
    }
}
