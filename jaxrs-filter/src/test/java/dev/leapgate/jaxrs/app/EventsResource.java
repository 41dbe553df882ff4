package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A stream of server-sent events that the test holds open, on a thread of the application's: the
 * first event is sent once the response has started ({@link Started}, so that the runtime starts it
 * on the request's thread), or at once when the test says so; the last when the test lets it, then
 * the stream is closed.
 */
@Path("stream/events")
public class EventsResource {

    /** Counted down when the first event has been sent. */
    public static volatile CountDownLatch sent = new CountDownLatch(1);
    /** The test counts it down to let the stream send its last event and close. */
    public static volatile CountDownLatch release = new CountDownLatch(1);
    /** Counted down by {@link Started} when the stream's response has started. */
    private static volatile CountDownLatch started = new CountDownLatch(1);
    /** Whether the first event is sent at once, racing the start of the response (RESTEasy starts it on either thread). */
    private static volatile boolean sendAtOnce;

    /** Fresh latches, before a test; the first event is sent once the response has started. */
    public static void reset() {
        reset(false);
    }

    /** Fresh latches, before a test; {@code sendAtOnce}: whether the first event is sent at once. */
    public static void reset(boolean sendAtOnce) {
        sent = new CountDownLatch(1);
        release = new CountDownLatch(1);
        started = new CountDownLatch(1);
        EventsResource.sendAtOnce = sendAtOnce;
    }

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void events(@Context SseEventSink sink, @Context Sse sse) {
        CountDownLatch first = sent;
        CountDownLatch last = release;
        CountDownLatch responded = sendAtOnce ? new CountDownLatch(0) : started;
        Thread stream = new Thread(() -> {
            try (sink) {
                if (responded.await(30, TimeUnit.SECONDS)) {
                    sink.send(sse.newEvent("first")).toCompletableFuture().get(30, TimeUnit.SECONDS);
                    first.countDown();
                }
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

    /** Says when the stream's response has started: its response filters run, on the thread that starts it. */
    public static class Started implements ContainerResponseFilter {
        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            if (MediaType.SERVER_SENT_EVENTS_TYPE.isCompatible(response.getMediaType())) {
                started.countDown();
            }
        }
    }
}
