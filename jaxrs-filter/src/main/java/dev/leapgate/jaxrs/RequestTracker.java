package dev.leapgate.jaxrs;

import dev.leapgate.Entry;
import dev.leapgate.http.HttpGate;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One admitted request: its {@link Entry}, the status its response filter saw, and whether it has
 * been finished. Whoever sees the end of the request first finishes it, exactly once: a runtime
 * hook ({@link RequestEnd}), the provider's own writer interceptor or response filter, or the
 * safety net ({@link Leases}) when nothing else did within {@code max-request-time}.
 *
 * <p>Whether the request failed is {@link HttpGate#complete}'s rule: no response ({@link
 * HttpGate#NO_RESPONSE}) or a 5xx response.
 *
 * <p>Concurrency: written by the request's threads (an asynchronous response finishes on another
 * thread than the one that admitted it) and read by the safety net on any request thread; the
 * status is volatile, finishing is a compare-and-set.
 */
final class RequestTracker {

    private final Entry entry;
    private final boolean watched;
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile int status = HttpGate.NO_RESPONSE;

    /** Tracks {@code entry}; {@code end} is the runtime's view of the request's end, or null. */
    RequestTracker(Entry entry, RequestEnd end) {
        this.entry = entry;
        this.watched = end != null;
        if (end != null) {
            end.watch(this);
        }
    }

    /** Whether the runtime reports this request's end ({@link RequestEnd}). */
    boolean isWatched() {
        return watched;
    }

    Entry entry() {
        return entry;
    }

    /** The response's status, as the response filter saw it. */
    void responded(int status) {
        this.status = status;
    }

    /** The status the response filter saw, or {@link HttpGate#NO_RESPONSE}. */
    int status() {
        return status;
    }

    boolean isFinished() {
        return finished.get();
    }

    /**
     * Completes the entry with {@code status}, if nobody has; returns whether this call did.
     */
    boolean finish(int status) {
        if (!finished.compareAndSet(false, true)) {
            return false;
        }
        HttpGate.complete(entry, status);
        return true;
    }
}
