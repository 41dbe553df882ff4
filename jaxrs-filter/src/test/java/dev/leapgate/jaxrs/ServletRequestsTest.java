package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Entry;
import dev.leapgate.Limiter;
import dev.leapgate.ManualClock;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServletRequestsTest {

    private final ManualClock clock = new ManualClock();
    private final Limiter slots =
            Limiter.builder("slots").concurrency(1).clock(clock).build();
    private final Leases leases = new Leases(clock, Duration.ofMinutes(10));
    private final ServletRequests listener = new ServletRequests();

    @Test
    void aRequestThatTheContainerNoLongerCallsAsynchronous_isFinishedWhenDestroyed() {
        // Tomcat, for a request whose async cycle ended in an error (startAsync, dispatch, throw):
        // isAsyncStarted() throws.
        ServletRequest request = request(() -> {
            throw new IllegalStateException("Calling [isAsyncStarted()] is not valid after onError() had returned");
        });
        listener.requestInitialized(event(request));
        RequestTracker tracker = admitted(request);

        listener.requestDestroyed(event(request));

        assertThat(tracker.isFinished()).isTrue();
        assertThat(slots.tryEnter().admitted()).as("the slot is back").isTrue();
    }

    @Test
    void anAsynchronousRequest_isLeftToTheProvider_whenItsDispatchEnds() {
        ServletRequest request = request(() -> true);
        listener.requestInitialized(event(request));
        RequestTracker tracker = admitted(request);

        listener.requestDestroyed(event(request));

        assertThat(tracker.isFinished()).isFalse();
        tracker.ended(200); // the provider's response filter sees the asynchronous response
        assertThat(tracker.isFinished()).isTrue();
    }

    /**
     * A stream of server-sent events: its dispatch ends (Jetty) or the container ends the request
     * (Tomcat, when its asynchronous cycle completes) with the stream's end reported apart, by the
     * cycle's listener: neither finishes it, nor gives it a lease that the safety net would expire.
     */
    @Test
    void aStreamingRequest_isFinishedByItsStreamsEnd_only() {
        for (boolean asynchronous : new boolean[] {true, false}) {
            ServletRequest request = request(() -> asynchronous);
            listener.requestInitialized(event(request));
            RequestTracker tracker = admitted(request);
            tracker.responded(200);
            tracker.streams();

            listener.requestDestroyed(event(request));

            assertThat(tracker.isFinished())
                    .as("finished when the request left, asynchronous: " + asynchronous)
                    .isFalse();
            assertThat(leases.open()).as("leases").isZero();
            assertThat(slots.tryEnter().admitted()).as("the slot still held").isFalse();
            tracker.streamEnded(tracker.status());
            assertThat(tracker.isFinished()).isTrue();
        }
    }

    private RequestTracker admitted(ServletRequest request) {
        Entry entry = (Entry) slots.tryEnter();
        return new RequestTracker(
                entry, (RequestEnd) request.getAttribute(RequestEnd.PROPERTY), leases, null, URI.create("/test"));
    }

    private static ServletRequest request(java.util.function.BooleanSupplier asyncStarted) {
        Map<String, Object> attributes = new HashMap<>();
        return (ServletRequest) Proxy.newProxyInstance(
                ServletRequestsTest.class.getClassLoader(),
                new Class<?>[] {ServletRequest.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "getAttribute":
                            return attributes.get((String) args[0]);
                        case "setAttribute":
                            attributes.put((String) args[0], args[1]);
                            return null;
                        case "isAsyncStarted":
                            return asyncStarted.getAsBoolean();
                        default:
                            throw new UnsupportedOperationException(method.getName());
                    }
                });
    }

    private static ServletRequestEvent event(ServletRequest request) {
        ServletContext context = (ServletContext) Proxy.newProxyInstance(
                ServletRequestsTest.class.getClassLoader(),
                new Class<?>[] {ServletContext.class},
                (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        return new ServletRequestEvent(context, request);
    }
}
