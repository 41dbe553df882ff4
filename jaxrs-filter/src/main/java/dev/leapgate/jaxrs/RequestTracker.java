package dev.leapgate.jaxrs;

import dev.leapgate.Entry;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;

/**
 * Follows one request and closes its {@link Entry}, if it was admitted with one, when Jersey
 * reports the request {@link RequestEvent.Type#FINISHED}. See {@link ApplicationGate} for why this
 * releases exactly once on every path.
 *
 * <p>An admitted request counts as failed when no response was written (an exception that even
 * Jersey's default mapping could not answer, a client gone before the response was sent) or its
 * status is 5xx; a 4xx response, mapped from an exception or not, is the server doing its job.
 *
 * <p>Concurrency: {@code entry} is written by the request filter and read by the thread that
 * finishes the request, which may be another one (an asynchronous response); it is volatile.
 */
final class RequestTracker implements RequestEventListener {

    /** Marks a request failed without an exception of its own (a 5xx response); no stack trace. */
    private static final Throwable SERVER_ERROR = new Throwable("5xx response or no response", null, false, false) {};

    private volatile Entry entry;

    /** Called by the filter with the entry the request was admitted with. */
    void admitted(Entry entry) {
        this.entry = entry;
    }

    /** The entry, for the response filter; null if the request was not admitted (or not limited). */
    Entry entry() {
        return entry;
    }

    @Override
    public void onEvent(RequestEvent event) {
        if (event.getType() != RequestEvent.Type.FINISHED) {
            return;
        }
        Entry admitted = entry;
        if (admitted == null) {
            return;
        }
        ContainerResponse response = event.getContainerResponse();
        if (!event.isResponseWritten() || response == null || response.getStatus() >= 500) {
            admitted.fail(event.getException() != null ? event.getException() : SERVER_ERROR);
        }
        admitted.close();
    }
}
