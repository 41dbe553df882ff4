package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.LeakResource;
import dev.leapgate.jaxrs.app.MappedException;
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
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.monitoring.ApplicationEvent;
import org.glassfish.jersey.server.monitoring.ApplicationEventListener;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An in-flight limit over every way a JAX-RS request can end, on a real server with parallel
 * clients: afterwards nothing is in flight, every admitted request completed exactly once, and the
 * full limit can be taken again.
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

    /** Counts finished requests: the latch the test waits on before reading the statistics. */
    static final class FinishedRequests implements ApplicationEventListener {
        final Semaphore finished = new Semaphore(0);

        @Override
        public void onEvent(ApplicationEvent event) {}

        @Override
        public RequestEventListener onRequest(RequestEvent start) {
            return event -> {
                if (event.getType() == RequestEvent.Type.FINISHED) {
                    finished.release();
                }
            };
        }
    }

    private final AtomicInteger disconnectIds = new AtomicInteger();

    @ParameterizedTest
    @EnumSource(TestServer.Kind.class)
    void inFlightCount_returnsToZero_afterThousandsOfRequestsEndingEveryWay(TestServer.Kind kind) throws Exception {
        LeakResource.ENTERED.clear();
        LeakResource.RELEASE.clear();
        LeakResource.HELD.clear();
        ManualClock clock = new ManualClock();
        FinishedRequests finished = new FinishedRequests();
        ResourceConfig app = new ResourceConfig(LeakResource.class, MappedException.Mapper.class)
                .register(LeapgateFeature.class)
                .register(finished)
                .property(ProviderSettings.CLOCK, clock)
                .property("leapgate.rule.inflight.match", "/leak/**")
                .property("leapgate.rule.inflight.in-flight", Integer.toString(LIMIT));

        try (TestServer server = TestServer.start(kind, app)) {
            ResourceStats metrics = server.gate().stats("/leak/**").orElseThrow();

            // Phase 1: every ending, mixed, from parallel clients.
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
                        Ending ending = Ending.values()[(i + client) % Ending.values().length];
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
            for (Future<?> client : done) {
                client.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
            clients.shutdown();

            int total = CLIENTS * REQUESTS_PER_CLIENT;
            assertThat(finished.finished.tryAcquire(total, PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .as("every request finished")
                    .isTrue();
            awaitNothingInFlight(metrics);
            if (kind == TestServer.Kind.GRIZZLY) {
                assertThat(unexpected).isEmpty();
            } else {
                // Jetty: after Jersey hands an unmapped exception to the container, a request on the
                // same connection now and then reads a 500 that Leapgate never saw. The statistics
                // below are the server's own and must add up regardless.
                assertThat(unexpected).allMatch(mismatch -> mismatch.endsWith("answered 500"));
            }

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
                held.add(TestServer.CLIENT.sendAsync(
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
            assertThat(finished.finished.tryAcquire(LIMIT + 1, PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();
            awaitNothingInFlight(metrics);
            assertThat(metrics.lastMinute().admitted()).isEqualTo(total + LIMIT);
        }
    }

    /**
     * Sends a request, waits until the resource has it, resets the connection, then lets the
     * resource answer into the void.
     */
    private void disconnectMidRequest(TestServer server) throws InterruptedException {
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
     * FINISHED reaches the test's listener and Leapgate's in turn on one thread; this covers the
     * moment between the two. Bounded; not a wait for a window.
     */
    private static void awaitNothingInFlight(ResourceStats metrics) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (metrics.inFlight() != 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        assertThat(metrics.inFlight()).as("requests in flight").isZero();
    }
}
