package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.EventsResource;
import dev.leapgate.jaxrs.app.StreamingResource;
import dev.leapgate.jaxrs.app.UserResource;
import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.stats.StatsTotals;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServerResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.resteasy.plugins.server.vertx.VertxJaxrsServer;
import org.jboss.resteasy.plugins.server.vertx.VertxResteasyDeployment;
import org.junit.jupiter.api.Test;

/**
 * RESTEasy on Vert.x (as Quarkus runs it), outside any servlet container: the provider reads the
 * peer's address from RESTEasy's own request ({@link ResteasyPeer}), so the trusted-proxy rules
 * work there as in a servlet container. A request ends when Vert.x ends its response ({@link
 * VertxEnd}), after its entity is written: a writer interceptor, which sees that elsewhere, would
 * break blocking writes here. Runs in the RESTEasy execution only.
 */
class VertxPeerIT {

    private static int status(URI base, String forwardedFor) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/users/1"))
                .timeout(Duration.ofSeconds(30))
                .header("X-Forwarded-For", forwardedFor)
                .build();
        return JaxrsServer.CLIENT
                .send(request, HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static VertxJaxrsServer start(String... settings) throws IOException {
        return start(new JaxrsServer.App(UserResource.class), settings);
    }

    private static VertxJaxrsServer start(JaxrsServer.App app, String... settings) throws IOException {
        if (!app.getProperties().containsKey(ProviderSettings.CLOCK)) {
            app.property(ProviderSettings.CLOCK, new ManualClock());
        }
        app.property("leapgate.rule.per-ip.match", "GET /users/{id}")
                .property("leapgate.rule.per-ip.limit", "1/1h")
                .property("leapgate.rule.per-ip.scope", "per-origin");
        for (int i = 0; i < settings.length; i += 2) {
            app.property(settings[i], settings[i + 1]);
        }
        VertxResteasyDeployment deployment = new VertxResteasyDeployment();
        deployment.setApplication(app);
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        VertxJaxrsServer server = new VertxJaxrsServer();
        server.setVertxOptions(new VertxOptions().setEventLoopPoolSize(1));
        server.setDeployment(deployment);
        server.setHostname("127.0.0.1");
        server.setPort(port);
        return server.start();
    }

    private static URI base(VertxJaxrsServer server) {
        return URI.create("http://127.0.0.1:" + server.getPort());
    }

    @Test
    void thePeerIsKnown_soForwardingIsBelievedFromATrustedProxy() throws Exception {
        VertxJaxrsServer server = start("leapgate.trusted-proxies", "127.0.0.1");
        try {
            assertThat(status(base(server), "203.0.113.1")).isEqualTo(200);
            assertThat(status(base(server), "203.0.113.2"))
                    .as("another client behind the trusted proxy on loopback")
                    .isEqualTo(200);
            assertThat(status(base(server), "203.0.113.1")).isEqualTo(429);
        } finally {
            server.stop();
        }
    }

    /**
     * A {@code StreamingOutput}, whose blocking write RESTEasy moves off the I/O thread, is served
     * (RESTEasy on Vert.x refuses a blocking write on its I/O thread when any writer interceptor is
     * registered: a 500, "Cannot use blocking IO with interceptors when we're on the IO thread", so
     * the provider registers none here), and holds its in-flight slot until Vert.x has ended the
     * response ({@link VertxEnd}): a second request meanwhile is over {@code in-flight = 1}. The
     * request ended in the response filter, before its entity was written, and the second request
     * was let in.
     */
    @Test
    void aStreamingOutput_isWritten_andHoldsItsSlotUntilVertxEndsTheResponse() throws Exception {
        StreamingResource.reset();
        JaxrsServer.App app = new JaxrsServer.App(StreamingResource.class);
        VertxJaxrsServer server =
                start(app, "leapgate.rule.streams.match", "/stream/**", "leapgate.rule.streams.in-flight", "1");
        try {
            CompletableFuture<HttpResponse<String>> streaming = JaxrsServer.CLIENT.sendAsync(
                    HttpRequest.newBuilder(base(server).resolve("/stream/held"))
                            .timeout(Duration.ofSeconds(30))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            try {
                assertThat(StreamingResource.writing.await(30, TimeUnit.SECONDS))
                        .as("the entity's write started")
                        .isTrue();
                assertThat(JaxrsServer.get(base(server), "/stream/quick").statusCode())
                        .as("a second request while the first still streams, over in-flight 1")
                        .isEqualTo(429);
            } finally {
                StreamingResource.release.countDown();
            }
            HttpResponse<String> streamed = streaming.get(30, TimeUnit.SECONDS);
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(streamed.body()).isEqualTo("streamed");
            ResourceStats streams =
                    app.feature.gate().orElseThrow().stats("/stream/**").orElseThrow();
            assertThat(StreamingIT.awaitInFlight(streams, 0)).isTrue();
            assertThat(JaxrsServer.get(base(server), "/stream/quick").statusCode())
                    .isEqualTo(200);
            assertThat(StreamingIT.awaitInFlight(streams, 0)).isTrue();
            StatsSnapshot counts = streams.lastMinute();
            assertThat(counts.admitted()).isEqualTo(2);
            assertThat(counts.rejected()).isEqualTo(1);
            assertThat(counts.succeeded()).as("succeeded").isEqualTo(2);
            assertThat(app.feature.application().leases().open()).as("leases").isZero();
        } finally {
            server.stop();
        }
    }

    /** A {@code StreamingOutput} whose write throws: counted as failed, once, when Vert.x ends the response. */
    @Test
    void aStreamingOutputWhoseWriteThrows_isCountedAsFailed() throws Exception {
        JaxrsServer.App app = new JaxrsServer.App(StreamingResource.class);
        VertxJaxrsServer server =
                start(app, "leapgate.rule.streams.match", "/stream/**", "leapgate.rule.streams.in-flight", "1");
        try {
            try {
                JaxrsServer.get(base(server), "/stream/failing");
            } catch (UncheckedIOException brokenResponse) {
                // a response already committed can only be broken off
            }
            ResourceStats streams =
                    app.feature.gate().orElseThrow().stats("/stream/**").orElseThrow();
            assertThat(StreamingIT.awaitInFlight(streams, 0)).isTrue();
            StatsSnapshot counts = streams.lastMinute();
            assertThat(counts.admitted()).isEqualTo(1);
            assertThat(counts.succeeded()).as("succeeded").isZero();
            assertThat(counts.failed()).as("failed").isEqualTo(1);
            assertThat(app.feature.application().leases().open()).as("leases").isZero();
        } finally {
            server.stop();
        }
    }

    /**
     * The client goes away while its {@code StreamingOutput} is still being written: Vert.x ends the
     * response closed rather than ended, and {@link VertxEnd} counts the request as failed, when the
     * connection closes (while the write still waits) and once (not again when the write then
     * fails), giving back its slot.
     */
    @Test
    void aClientGoneWhileItsEntityIsWritten_isCountedAsFailed_whenTheConnectionCloses() throws Exception {
        StreamingResource.reset();
        JaxrsServer.App app = new JaxrsServer.App(StreamingResource.class);
        VertxJaxrsServer server =
                start(app, "leapgate.rule.streams.match", "/stream/**", "leapgate.rule.streams.in-flight", "1");
        try {
            ResourceStats streams =
                    app.feature.gate().orElseThrow().stats("/stream/**").orElseThrow();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getPort())) {
                client.getOutputStream()
                        .write("GET /stream/held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                                .getBytes(StandardCharsets.US_ASCII));
                client.getOutputStream().flush();
                assertThat(StreamingResource.writing.await(30, TimeUnit.SECONDS))
                        .as("the entity's write started")
                        .isTrue();
                assertThat(streams.inFlight()).isEqualTo(1);
                client.setSoLinger(true, 0);
            }
            try {
                assertThat(StreamingIT.awaitInFlight(streams, 0))
                        .as("the slot given back when the connection closed, the write still waiting")
                        .isTrue();
            } finally {
                StreamingResource.release.countDown();
            }
            assertThat(JaxrsServer.get(base(server), "/stream/quick").statusCode())
                    .isEqualTo(200);
            assertThat(StreamingIT.awaitInFlight(streams, 0)).isTrue();
            StatsSnapshot counts = streams.lastMinute();
            assertThat(counts.admitted()).isEqualTo(2);
            assertThat(counts.failed()).as("failed").isEqualTo(1);
            assertThat(counts.succeeded()).as("succeeded").isEqualTo(1);
            assertThat(app.feature.application().leases().open()).as("leases").isZero();
        } finally {
            server.stop();
        }
    }

    /**
     * A stream of server-sent events holds its in-flight slot until Vert.x has ended its response,
     * when the stream closes (as in a servlet container: StreamingIT), also open longer than {@code
     * max-request-time} (on the test's clock: the safety net left it alone, where it released the
     * slot of the open stream and counted it failed), so an in-flight rule over it is not warned of.
     */
    @Test
    void aStreamOfServerSentEvents_holdsItsSlotUntilItCloses_andNoWarningSaysOtherwise() throws Exception {
        EventsResource.reset();
        ManualClock clock = new ManualClock();
        JaxrsServer.App app = new JaxrsServer.App(
                        StreamingResource.class, EventsResource.class, EventsResource.Started.class)
                .property(ProviderSettings.CLOCK, clock);
        VertxJaxrsServer server = start(
                app,
                "leapgate.rule.streams.match",
                "/stream/**",
                "leapgate.rule.streams.in-flight",
                "1",
                "leapgate.max-request-time",
                "1m");
        try {
            ResourceStats streams =
                    app.feature.gate().orElseThrow().stats("/stream/**").orElseThrow();
            String log = StandardError.capturedWhile(() -> {
                CompletableFuture<HttpResponse<String>> streaming = StreamingIT.openEvents(base(server));
                try {
                    StreamingIT.awaitFirstEvent();
                    assertThat(JaxrsServer.get(base(server), "/stream/quick").statusCode())
                            .as("a second request while the stream is open, over in-flight 1")
                            .isEqualTo(429);
                    clock.advance(Duration.ofMinutes(1).plusSeconds(1));
                    assertThat(JaxrsServer.get(base(server), "/stream/quick").statusCode())
                            .as("open longer than max-request-time, the stream still holds its slot")
                            .isEqualTo(429);
                    assertThat(app.feature.application().leases().expired())
                            .as("leases expired")
                            .isZero();
                } finally {
                    EventsResource.release.countDown();
                }
                HttpResponse<String> streamed = streaming.get(30, TimeUnit.SECONDS);
                assertThat(streamed.statusCode()).isEqualTo(200);
                assertThat(streamed.body()).contains("data: first").contains("data: last");
            });
            assertThat(StreamingIT.awaitInFlight(streams, 0)).isTrue();
            StatsTotals counts = streams.totals(); // the clock has moved on by more than a minute
            assertThat(counts.admitted()).isEqualTo(1);
            assertThat(counts.succeeded()).as("succeeded").isEqualTo(1);
            assertThat(counts.failed()).as("failed").isZero();
            assertThat(log).as("nothing warned of").doesNotContain("server-sent events");
        } finally {
            server.stop();
        }
    }

    /** A resource that sets the Vert.x response's end handler itself, replacing {@link VertxEnd}'s. */
    @Path("replaced")
    public static class ReplacesTheEndHandler {
        @GET
        public String get(@Context HttpServerResponse response) {
            response.endHandler(ended -> {});
            return "mine";
        }
    }

    /**
     * An application that sets the response's end handler replaces {@link VertxEnd}'s, which then
     * never sees the end: the request's lease stays, and the safety net releases its slot once
     * {@code max-request-time} has passed (on the test's clock). Without the lease its slot was
     * never given back, and {@code in-flight = 1} rejected every later request.
     */
    @Test
    void anEndHandlerTheApplicationSets_leavesTheRequestToTheSafetyNet() throws Exception {
        ManualClock clock = new ManualClock();
        JaxrsServer.App app = new JaxrsServer.App(ReplacesTheEndHandler.class).property(ProviderSettings.CLOCK, clock);
        VertxJaxrsServer server = start(
                app,
                "leapgate.rule.replaced.match",
                "/replaced",
                "leapgate.rule.replaced.in-flight",
                "1",
                "leapgate.max-request-time",
                "1m");
        try {
            HttpResponse<String> first = JaxrsServer.get(base(server), "/replaced");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("mine");
            assertThat(app.feature.application().leases().open()).as("leases").isEqualTo(1);
            assertThat(JaxrsServer.get(base(server), "/replaced").statusCode())
                    .as("the first request still holds its slot")
                    .isEqualTo(429);

            clock.advance(Duration.ofMinutes(1).plusSeconds(1));
            assertThat(JaxrsServer.get(base(server), "/replaced").statusCode())
                    .as("after max-request-time, the safety net has released the first one")
                    .isEqualTo(200);
            assertThat(app.feature.application().leases().expired()).isEqualTo(1);
        } finally {
            server.stop();
        }
    }

    @Test
    void withoutTrustedProxies_forwardingIsIgnored_andThePeerIsTheClient() throws Exception {
        VertxJaxrsServer server = start();
        try {
            assertThat(status(base(server), "203.0.113.1")).isEqualTo(200);
            assertThat(status(base(server), "203.0.113.2"))
                    .as("the peer 127.0.0.1, whatever it forwards")
                    .isEqualTo(429);
        } finally {
            server.stop();
        }
    }
}
