package dev.leapgate.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An item's price as a stream of server-sent events, sent from a thread of the application's as
 * soon as the resource method is called: the first event at once, the last when the test lets the
 * streams close ({@link #close}).
 */
@Path("items/{id}/events")
public class ItemEventsResource {

    private static final ExecutorService STREAMS = Executors.newCachedThreadPool(Workers.daemon("item-events"));

    /** Counted down as each stream has sent its first event. */
    public static volatile CountDownLatch opened = new CountDownLatch(0);
    /** The test counts it down to let the open streams send their last event and close. */
    public static volatile CountDownLatch close = new CountDownLatch(0);

    /** Before a test: {@code streams} streams are expected to open, and held open until {@link #close}. */
    public static void expect(int streams) {
        opened = new CountDownLatch(streams);
        close = new CountDownLatch(1);
    }

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void events(@PathParam("id") String id, @Context SseEventSink sink, @Context Sse sse) {
        CountDownLatch first = opened;
        CountDownLatch last = close;
        STREAMS.execute(() -> {
            try (sink) {
                sink.send(sse.newEvent("item " + id + " costs 10 EUR"))
                        .toCompletableFuture()
                        .get(30, TimeUnit.SECONDS);
                first.countDown();
                if (last.await(30, TimeUnit.SECONDS)) {
                    sink.send(sse.newEvent("item " + id + " costs 11 EUR"))
                            .toCompletableFuture()
                            .get(30, TimeUnit.SECONDS);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
