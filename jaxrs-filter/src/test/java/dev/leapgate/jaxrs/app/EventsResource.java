package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A stream of server-sent events that the test holds open: the first event is sent at once, the
 * last when the test lets it, then the stream is closed.
 */
@Path("stream/events")
public class EventsResource {

    /** Counted down when the first event has been sent. */
    public static volatile CountDownLatch sent = new CountDownLatch(1);
    /** The test counts it down to let the stream send its last event and close. */
    public static volatile CountDownLatch release = new CountDownLatch(1);

    /** Fresh latches, before a test. */
    public static void reset() {
        sent = new CountDownLatch(1);
        release = new CountDownLatch(1);
    }

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void events(@Context SseEventSink sink, @Context Sse sse) {
        CountDownLatch first = sent;
        CountDownLatch last = release;
        Thread stream = new Thread(() -> {
            try (sink) {
                sink.send(sse.newEvent("first")).toCompletableFuture().get(30, TimeUnit.SECONDS);
                first.countDown();
                if (last.await(30, TimeUnit.SECONDS)) {
                    sink.send(sse.newEvent("last")).toCompletableFuture().get(30, TimeUnit.SECONDS);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        stream.setDaemon(true);
        stream.start();
    }
}
