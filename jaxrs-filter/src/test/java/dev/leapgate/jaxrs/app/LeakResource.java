package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Every way a JAX-RS request can end. */
@Path("leak")
public class LeakResource {

    /** Completes asynchronous responses on threads other than the request's. */
    public static final ExecutorService EXECUTOR = Executors.newFixedThreadPool(4, runnable -> {
        Thread thread = new Thread(runnable, "leak-resource");
        thread.setDaemon(true);
        return thread;
    });

    /** Suspended {@code /leak/hold} requests, for the test to resume. */
    public static final BlockingQueue<AsyncResponse> HELD = new LinkedBlockingQueue<>();

    /** Per {@code /leak/disconnect} id: counted down when the request is in the resource. */
    public static final ConcurrentHashMap<Integer, CountDownLatch> ENTERED = new ConcurrentHashMap<>();
    /** Per {@code /leak/disconnect} id: the test counts it down once the client is gone. */
    public static final ConcurrentHashMap<Integer, CountDownLatch> RELEASE = new ConcurrentHashMap<>();

    private static final String LARGE = "x".repeat(1 << 20);

    public static CountDownLatch latch(ConcurrentHashMap<Integer, CountDownLatch> latches, int id) {
        return latches.computeIfAbsent(id, k -> new CountDownLatch(1));
    }

    @GET
    @Path("normal")
    public String normal() {
        return "ok";
    }

    @GET
    @Path("mapped")
    public String mapped() {
        throw new MappedException();
    }

    @GET
    @Path("unmapped")
    public String unmapped() {
        throw new IllegalStateException("unmapped, on purpose");
    }

    @GET
    @Path("async")
    public void async(@Suspended AsyncResponse response) {
        EXECUTOR.execute(() -> response.resume("ok"));
    }

    @GET
    @Path("async-mapped")
    public void asyncMapped(@Suspended AsyncResponse response) {
        EXECUTOR.execute(() -> response.resume(new MappedException()));
    }

    @GET
    @Path("timeout")
    public void timeout(@Suspended AsyncResponse response) {
        // Never resumed: the runtime answers 503. CXF loses a short timeout under load (1 ms often;
        // 50 ms now and then while other builds share the machine's two cores): see BUILD-NOTES.
        response.setTimeout(200, TimeUnit.MILLISECONDS);
    }

    @GET
    @Path("stage")
    public CompletionStage<String> stage() {
        return CompletableFuture.supplyAsync(() -> "ok", EXECUTOR);
    }

    @GET
    @Path("stage-failed")
    public CompletionStage<String> stageFailed() {
        return CompletableFuture.supplyAsync(
                () -> {
                    throw new IllegalStateException("failed stage, on purpose");
                },
                EXECUTOR);
    }

    @GET
    @Path("disconnect")
    public String disconnect(@QueryParam("id") int id) throws InterruptedException {
        latch(ENTERED, id).countDown();
        if (!latch(RELEASE, id).await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never released: " + id);
        }
        return LARGE; // written to a client that has gone
    }

    @GET
    @Path("hold")
    public void hold(@Suspended AsyncResponse response) {
        HELD.add(response);
    }
}
