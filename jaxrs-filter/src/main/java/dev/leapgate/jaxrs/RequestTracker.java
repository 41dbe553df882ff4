package dev.leapgate.jaxrs;

import dev.leapgate.Entry;
import dev.leapgate.http.HttpGate;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;

/**
 * Follows one request and closes its {@link Entry}, if it was admitted with one, when Jersey
 * reports the request {@link RequestEvent.Type#FINISHED}. See {@link ApplicationGate} for why this
 * releases exactly once on every path.
 *
 * <p>Whether the request failed is {@link HttpGate#complete}'s rule: no response written (an
 * exception that even Jersey's default mapping could not answer, a client gone before the response
 * was sent), or a 5xx response.
 *
 * <p>Concurrency: {@code entry} is written by the request filter and read by the thread that
 * finishes the request, which may be another one (an asynchronous response); it is volatile.
 */
final class RequestTracker implements RequestEventListener {

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
        HttpGate.complete(
                admitted, event.isResponseWritten() && response != null ? response.getStatus() : HttpGate.NO_RESPONSE);
    }
}
