package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.ChunksResource;
import dev.leapgate.jaxrs.app.EventsResource;
import dev.leapgate.jaxrs.app.StreamingResource;
import dev.leapgate.stats.ResourceStats;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * A stream of server-sent events, and Jersey's {@code ChunkedOutput}, off a servlet container
 * (Jersey on Grizzly): nothing reports the stream's end, so its request ends when its response has
 * started (Jersey's own end of the request), its slot is free while it streams, and an in-flight
 * rule over its route is warned of, once, naming the rule and the route. In a servlet container
 * the stream holds its slot (StreamingIT, ChunkedOutputIT).
 */
class EventStreamOnGrizzlyIT {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void aStreamEndsItsRequestWhenItsResponseHasStarted_andAnInFlightRuleOverItIsWarnedOfOnce() throws Exception {
        endsWhenItsResponseHasStarted_andIsWarnedOfOnce(
                "/stream/events",
                "text/event-stream",
                EventsResource::reset,
                () -> EventsResource.sent,
                () -> EventsResource.release,
                "rule 'streams' (/stream/**, in-flight 1) matches GET /stream/events, a stream of server-sent events",
                "data: last");
    }

    @Test
    void aChunkedOutputEndsItsRequestWhenItsResponseHasStarted_andAnInFlightRuleOverItIsWarnedOfOnce()
            throws Exception {
        endsWhenItsResponseHasStarted_andIsWarnedOfOnce(
                "/stream/chunks",
                "text/plain",
                ChunksResource::reset,
                () -> ChunksResource.sent,
                () -> ChunksResource.release,
                "rule 'streams' (/stream/**, in-flight 1) matches GET /stream/chunks, Jersey's ChunkedOutput",
                "first;last");
    }

    /**
     * Opens {@code path} twice in a row, each time requesting another route while it is open (its
     * slot is free), then lets it close ({@code release}); the log holds {@code warning} once, and
     * each request ended once.
     */
    private static void endsWhenItsResponseHasStarted_andIsWarnedOfOnce(
            String path,
            String accept,
            Runnable reset,
            Supplier<CountDownLatch> firstSent,
            Supplier<CountDownLatch> release,
            String warning,
            String lastPart)
            throws Exception {
        ResourceConfig app = new ResourceConfig(
                        StreamingResource.class,
                        EventsResource.class,
                        EventsResource.Started.class,
                        ChunksResource.class)
                .register(LeapgateFeature.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.streams.match", "/stream/**")
                .property("leapgate.rule.streams.in-flight", "1");
        try (TestServer server = TestServer.grizzly(app)) {
            ResourceStats metrics = server.gate().stats("/stream/**").orElseThrow();
            String log = StandardError.capturedWhile(() -> {
                for (int stream = 0; stream < 2; stream++) {
                    reset.run();
                    CompletableFuture<HttpResponse<String>> streaming = JaxrsServer.CLIENT.sendAsync(
                            HttpRequest.newBuilder(server.base.resolve(path))
                                    .header("Accept", accept)
                                    .timeout(PATIENCE)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    try {
                        assertThat(firstSent.get().await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                                .as("the first part sent")
                                .isTrue();
                        assertThat(StreamingIT.awaitInFlight(metrics, 0))
                                .as("the stream's slot free while it streams")
                                .isTrue();
                        assertThat(server.get("/stream/quick").statusCode())
                                .as("a second request while the stream is open, under in-flight 1")
                                .isEqualTo(200);
                    } finally {
                        release.get().countDown();
                    }
                    assertThat(streaming
                                    .get(PATIENCE.toSeconds(), TimeUnit.SECONDS)
                                    .body())
                            .contains(lastPart);
                }
            });
            assertThat(log).as("warned of, once").containsOnlyOnce(warning);
            // Jersey reports a request's end after its client has the response.
            assertThat(StreamingIT.await(() -> metrics.lastMinute().succeeded() == 4))
                    .as("each request once: " + metrics.lastMinute())
                    .isTrue();
        }
    }
}
