package dev.leapgate.servlet;

import static dev.leapgate.servlet.JettyHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.stats.StatsSnapshot;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A concurrency rule over every way a request can end: normal, thrown exception (error page),
 * forward, asynchronous completion on another thread, asynchronous timeout, exception in an async
 * dispatch. After thousands of mixed requests from parallel clients no slot is leaked, and then
 * exactly the limit can be held at once.
 */
class NoLeakTest {

    private static final int LIMIT = 4;

    static final class Async extends HttpServlet {
        private final ExecutorService pool;

        Async(ExecutorService pool) {
            this.pool = pool;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext async = req.startAsync();
            pool.execute(() -> {
                try {
                    async.getResponse().getWriter().write("async");
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } finally {
                    async.complete();
                }
            });
        }
    }

    /** Holds its request until released. */
    static final class Hold extends HttpServlet {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger holding = new AtomicInteger();

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            holding.incrementAndGet();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            resp.getWriter().write("held");
        }
    }

    @Test
    void thousandsOfMixedRequests_leakNoSlot() throws Exception {
        ExecutorService asyncPool = Executors.newFixedThreadPool(4);
        Hold hold = new Hold();
        String[] paths = {
            "/mixed/ok", "/mixed/boom", "/mixed/forward", "/mixed/async", "/mixed/timeout", "/mixed/async-error"
        };
        // What the server received, counted before Leapgate's filter: the JDK's client sends a GET
        // again when the connection it went on closes before the answer (here after a request the
        // server received and rejected), so the server may receive more requests than were made.
        AtomicInteger received = new AtomicInteger();
        AtomicInteger rejectedThere = new AtomicInteger();
        try (JettyHarness jetty = new JettyHarness(
                        Map.of("rule.slots.match", "/mixed/**", "rule.slots.in-flight", "" + LIMIT))
                .upstream((request, response, chain) -> {
                    received.incrementAndGet();
                    chain.doFilter(request, response);
                    if (((jakarta.servlet.http.HttpServletResponse) response).getStatus() == 429) {
                        rejectedThere.incrementAndGet(); // a rejection is answered before the chain returns
                    }
                })
                .servlet("/mixed/ok", new TestServlets.Text("ok"))
                .servlet("/mixed/boom", new TestServlets.Boom())
                .servlet("/mixed/forward", new TestServlets.Forward("/mixed/ok"))
                .servlet("/mixed/async", new Async(asyncPool))
                .servlet("/mixed/timeout", new TestServlets.AsyncTimeout(100, true))
                .servlet("/mixed/async-error", new TestServlets.AsyncError("/mixed/boom"))
                .servlet("/mixed/hold", hold)
                .servlet("/error", new TestServlets.ErrorPage())
                .start()) {
            int clients = 8;
            int perClient = 300;
            Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
            ExecutorService clientPool = Executors.newFixedThreadPool(clients);
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                done.add(clientPool.submit(() -> {
                    for (int i = 0; i < perClient; i++) {
                        String path = paths[(client + i) % paths.length];
                        HttpResponse<String> r;
                        try {
                            r = jetty.get(path);
                        } catch (java.io.IOException e) {
                            throw new AssertionError(
                                    "request " + i + " of client " + client + " to " + path + " failed", e);
                        }
                        statuses.computeIfAbsent(r.statusCode(), s -> new AtomicInteger())
                                .incrementAndGet();
                    }
                    return null;
                }));
            }
            try {
                for (Future<?> f : done) {
                    f.get(5, TimeUnit.MINUTES);
                }
            } finally {
                clientPool.shutdownNow(); // also when a client failed: no thread outlives the test
            }

            eventually(() -> jetty.stats("/mixed/**").inFlight() == 0);
            StatsSnapshot m = jetty.stats("/mixed/**");
            int total = clients * perClient;
            assertThat(statuses.values().stream().mapToInt(AtomicInteger::get).sum())
                    .isEqualTo(total);
            assertThat(received.get()).isBetween(total, total + total / 100);
            assertThat(m.admitted() + m.rejected())
                    .as("every request the server received decided once")
                    .isEqualTo(received.get());
            assertThat(m.rejected()).isEqualTo(rejectedThere.get());
            assertThat(m.succeeded() + m.failed())
                    .as("every admitted request completed once")
                    .isEqualTo(m.admitted());
            assertThat(m.failed()).as("boom, timeout and async-error fail").isPositive();

            // All slots are back: exactly LIMIT requests can be held at once.
            List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
            for (int i = 0; i < LIMIT; i++) {
                held.add(jetty.client.sendAsync(
                        HttpRequest.newBuilder(jetty.uri("/mixed/hold")).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            eventually(() -> hold.holding.get() == LIMIT);
            assertThat(jetty.get("/mixed/ok").statusCode()).isEqualTo(429);
            hold.release.countDown();
            for (CompletableFuture<HttpResponse<String>> r : held) {
                assertThat(r.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            eventually(() -> jetty.stats("/mixed/**").inFlight() == 0);
        } finally {
            asyncPool.shutdownNow();
        }
    }
}
