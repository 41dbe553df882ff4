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
 * on the request's thread), or at once when the test says so ({@link First}); the last when the
 * test lets it, then the stream is closed.
 */
@Path("stream/events")
public class EventsResource {

    /** When the stream sends its first event. */
    public enum First {
        /** Once the response has started, which the runtime then starts on the request's thread. */
        AFTER_THE_RESPONSE_STARTED,
        /** At once, racing the start of the response (RESTEasy starts it on whichever thread is first). */
        AT_ONCE,
        /**
         * At once, and the resource method returns only once the response has started (within 30 s):
         * on RESTEasy the stream's thread starts it; Jersey and CXF start it when the method returns.
         */
        BEFORE_THE_METHOD_RETURNS
    }

    /** Counted down when the first event has been sent. */
    public static volatile CountDownLatch sent = new CountDownLatch(1);
    /** The test counts it down to let the stream send its last event and close. */
    public static volatile CountDownLatch release = new CountDownLatch(1);
    /** Counted down by {@link Started} when the stream's response has started. */
    private static volatile CountDownLatch started = new CountDownLatch(1);

    private static volatile First first = First.AFTER_THE_RESPONSE_STARTED;
    /** The thread that ran the resource method, and the one that started the response. */
    private static volatile Thread methodThread;

    private static volatile Thread startingThread;

    /** Fresh latches, before a test; the first event is sent once the response has started. */
    public static void reset() {
        reset(First.AFTER_THE_RESPONSE_STARTED);
    }

    /** Fresh latches, before a test; {@code first}: when the first event is sent. */
    public static void reset(First first) {
        sent = new CountDownLatch(1);
        release = new CountDownLatch(1);
        started = new CountDownLatch(1);
        methodThread = null;
        startingThread = null;
        EventsResource.first = first;
    }

    /** Whether the last stream's response was started by another thread than its resource method's. */
    public static boolean startedByTheStream() {
        return startingThread != null && methodThread != null && startingThread != methodThread;
    }

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void events(@Context SseEventSink sink, @Context Sse sse) throws InterruptedException {
        methodThread = Thread.currentThread();
        CountDownLatch sentFirst = sent;
        CountDownLatch last = release;
        CountDownLatch responseStarted = started;
        CountDownLatch responded = first == First.AFTER_THE_RESPONSE_STARTED ? responseStarted : new CountDownLatch(0);
        Thread stream = new Thread(() -> {
            try (sink) {
                if (responded.await(30, TimeUnit.SECONDS)) {
                    sink.send(sse.newEvent("first")).toCompletableFuture().get(30, TimeUnit.SECONDS);
                    sentFirst.countDown();
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
        if (first == First.BEFORE_THE_METHOD_RETURNS) {
            responseStarted.await(30, TimeUnit.SECONDS);
        }
    }

    /** Says when the stream's response has started: its response filters run, on the thread that starts it. */
    public static class Started implements ContainerResponseFilter {
        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            if (MediaType.SERVER_SENT_EVENTS_TYPE.isCompatible(response.getMediaType())) {
                startingThread = Thread.currentThread();
                started.countDown();
            }
        }
    }
}
