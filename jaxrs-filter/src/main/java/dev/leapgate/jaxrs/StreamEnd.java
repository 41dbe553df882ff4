package dev.leapgate.jaxrs;

import dev.leapgate.http.HttpGate;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;

/**
 * The end of a stream of server-sent events in a servlet container: the end of its request's
 * asynchronous cycle, when the application closes the stream (the runtime completes the cycle), or
 * when the container reports an error (the client gone, seen by a write). Finishes the request's
 * {@link RequestTracker} with the status its response filter saw, or as failed after an error.
 * Loaded only in a servlet container ({@link ServletGateFilter}).
 *
 * <p>Concurrency: the container calls it on any thread; the tracker finishes once.
 */
final class StreamEnd implements AsyncListener {

    private final RequestTracker tracker;

    StreamEnd(RequestTracker tracker) {
        this.tracker = tracker;
    }

    @Override
    public void onComplete(AsyncEvent event) {
        tracker.streamEnded(tracker.status());
    }

    /** The container completes the cycle after a timeout (the runtime or its error handling answers). */
    @Override
    public void onTimeout(AsyncEvent event) {}

    @Override
    public void onError(AsyncEvent event) {
        tracker.streamEnded(HttpGate.NO_RESPONSE);
    }

    /** A container drops the listeners when the request goes asynchronous again: stay registered. */
    @Override
    public void onStartAsync(AsyncEvent event) {
        event.getAsyncContext().addListener(this);
    }
}
