package dev.leapgate.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.stats.ResourceStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * A stream of server-sent events in Spring MVC (an asynchronous request) holds its in-flight slot
 * until the application completes it, and the next stream is admitted once it has.
 */
class EventStreamTest {

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** A stream of server-sent events at {@code GET /events}: sends one event and stays open until completed. */
    static class Events {
        static final Queue<ServerResponse.SseBuilder> OPEN = new ConcurrentLinkedQueue<>();

        @Bean
        RouterFunction<ServerResponse> eventRoutes() {
            return RouterFunctions.route()
                    .GET(
                            "/events",
                            request -> ServerResponse.sse(stream -> {
                                // Before the event: once a client has read it, the test completes the stream.
                                OPEN.add(stream);
                                try {
                                    stream.send("first");
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            }))
                    .build();
        }
    }

    @Test
    void aStreamOfServerSentEvents_holdsItsInFlightSlot_untilItIsCompleted() throws Exception {
        Map<String, String> rules = Map.of(
                "leapgate.rule.events.match", "GET /events",
                "leapgate.rule.events.in-flight", "1");
        try (BootApps.Running app = BootApps.start(rules, new ManualClock(), Events.class)) {
            try {
                ResourceStats events =
                        app.bean(HttpGate.class).stats("GET /events").orElseThrow();
                HttpResponse<InputStream> first = open(app);
                try (BufferedReader lines = reader(first)) {
                    assertThat(first.statusCode()).isEqualTo(200);
                    assertThat(lines.readLine()).as("the first event").isEqualTo("data:first");
                    assertThat(events.inFlight())
                            .as("the open stream in flight")
                            .isEqualTo(1);
                    assertThat(CLIENT.send(request(app), HttpResponse.BodyHandlers.ofString())
                                    .statusCode())
                            .as("a second stream beside the open one, over in-flight 1")
                            .isEqualTo(429);

                    Events.OPEN.remove().complete();
                    while (lines.readLine() != null) {
                        // to the end of the stream
                    }
                }
                assertThat(awaitInFlight(events, 0))
                        .as("nothing in flight once the stream completed")
                        .isTrue();

                HttpResponse<InputStream> next = open(app);
                try (BufferedReader lines = reader(next)) {
                    assertThat(next.statusCode()).as("the next stream").isEqualTo(200);
                    assertThat(lines.readLine()).isEqualTo("data:first");
                    Events.OPEN.remove().complete();
                }
                assertThat(awaitInFlight(events, 0)).isTrue();
                assertThat(events.lastMinute().admitted()).isEqualTo(2);
                assertThat(events.lastMinute().rejected()).isEqualTo(1);
                assertThat(events.lastMinute().succeeded())
                        .as("each stream once")
                        .isEqualTo(2);
            } finally {
                // A stream the test left open would hold the application's shutdown for 30 s.
                Events.OPEN.forEach(ServerResponse.SseBuilder::complete);
                Events.OPEN.clear();
            }
        }
    }

    private static HttpRequest request(BootApps.Running app) {
        return HttpRequest.newBuilder(app.uri("/events"))
                .header("Accept", "text/event-stream")
                .build();
    }

    private static HttpResponse<InputStream> open(BootApps.Running app) throws Exception {
        return CLIENT.send(request(app), HttpResponse.BodyHandlers.ofInputStream());
    }

    private static BufferedReader reader(HttpResponse<InputStream> response) {
        return new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    }

    /** Whether {@code stats} shows {@code expected} in flight within 30 s: a stream ends on the server's thread. */
    private static boolean awaitInFlight(ResourceStats stats, long expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (stats.inFlight() != expected && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return stats.inFlight() == expected;
    }
}
