package dev.leapgate.jaxrs;

import dev.leapgate.Entry;
import dev.leapgate.http.HttpGate;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One admitted request: its {@link Entry}, the status its response filter saw, and whether it has
 * been finished. Whoever sees the end of the request first finishes it, exactly once: a runtime
 * hook ({@link RequestEnd}) while the request is watched by one, else the provider (its response
 * filter, {@link #ended}, or for a response with an entity its writer interceptor, {@link
 * #written}), or the safety net ({@link Leases}) when nothing did within {@code max-request-time}.
 * A request that holds a slot holds a lease when no hook watches it, or when its hook {@link
 * RequestEnd#mayMissTheEnd may miss the end} (a request no rule applies to holds nothing, and
 * needs none). A response that streams on after the request's dispatch (server-sent events, or
 * Jersey's {@code ChunkedOutput}, in a servlet container) is the exception: its end is the end of
 * the servlet request's asynchronous cycle ({@link #streams}), which the container reports to a
 * listener of it, and until then no other hook finishes the request and no lease expires it. The
 * listener is added when the response filter runs, or, where the runtime starts the cycle after it
 * (Jersey's {@code ChunkedOutput}), by the first hook that would finish the request ({@link
 * #mayStreamOn}).
 *
 * <p>Whether the request failed is {@link HttpGate#complete}'s rule: no response ({@link
 * HttpGate#NO_RESPONSE}) or a 5xx response.
 *
 * <p>Concurrency: written by the request's threads (an asynchronous response finishes on another
 * thread than the one that admitted it, possibly while the hook lets go of it) and by the safety
 * net on any request thread. The fields are volatile; a hook letting go ({@link #unwatch}) and the
 * provider seeing the end ({@link #ended}) each write their own field, then read the other's, so
 * that at least one of them finishes; finishing is a compare-and-set.
 */
final class RequestTracker {

    /** {@link #endStatus} before the provider saw the end. */
    private static final int NOT_SEEN = Integer.MIN_VALUE;

    private final Entry entry;
    private final Leases leases;
    /**
     * The request property {@link GateFilter} found when it admitted this request: null, or what an
     * earlier dispatch of the same servlet request into the application left (a resource that
     * forwards the request, an error page the application serves), put back when this dispatch's
     * response is filtered, so that the earlier dispatch finds its own tracker again.
     */
    private final Object enclosing;
    /**
     * The dispatch that admitted this request ({@link GateFilter#dispatch}: its request URI, as
     * JAX-RS gives it). Another dispatch of the same servlet request into the application (a
     * forward, an error page) sees this tracker in the request's properties too, also where
     * Leapgate's request filter did not run (no resource matched it: the runtime answers 404
     * through its response filters); its response is not this request's.
     */
    private final Object dispatch;
    /** The runtime's view of the request's end, or null. */
    private final RequestEnd end;

    private static final VarHandle FINISHED;
    private static final VarHandle LATER;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            FINISHED = lookup.findVarHandle(RequestTracker.class, "finished", boolean.class);
            LATER = lookup.findVarHandle(RequestTracker.class, "later", LaterStream.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A response that may go on after the runtime reports the request's end (Jersey's {@code
     * ChunkedOutput}, whose asynchronous cycle Jersey starts after its response filters):
     * whether it holds the request until it really ends, asked by the first hook that would
     * finish it ({@link #finish}), once.
     */
    interface LaterStream {
        /** Whether {@code tracker}'s response goes on, now held until its end ({@link #streams}). */
        boolean holds(RequestTracker tracker);
    }

    /** Set once, by {@link #finish} (a compare-and-set on this field, no object per request). */
    private volatile boolean finished;

    private volatile boolean watched;
    /** Set by {@link #streams}: only {@link #streamEnded} finishes the request. */
    private volatile boolean streaming;
    /**
     * The container's own request, where the provider keeps it for a response filter that the
     * application's thread may run ({@link #keep}), else null.
     */
    private volatile Object containerRequest;
    /** Set by {@link #mayStreamOn}, taken by the first {@link #finish}: null otherwise. */
    private volatile LaterStream later;

    private volatile int status = HttpGate.NO_RESPONSE;
    private volatile int endStatus = NOT_SEEN;

    /**
     * Tracks {@code entry}: watched by {@code end}, the runtime's view of the request's end, and
     * holding a lease in {@code leases} if that is null or {@link RequestEnd#mayMissTheEnd may miss
     * the end}; {@code enclosing} is what the request
     * property held before (see {@link #enclosing}); {@code dispatch} what tells the dispatch
     * that admitted it (see {@link #admittedAt}).
     */
    RequestTracker(Entry entry, RequestEnd end, Leases leases, Object enclosing, Object dispatch) {
        this.entry = entry;
        this.end = end;
        this.leases = leases;
        this.enclosing = enclosing;
        this.dispatch = dispatch;
        this.watched = end != null;
        if ((end == null || end.mayMissTheEnd()) && holds()) {
            leases.add(this);
        }
        if (end != null) {
            end.watch(this);
        }
    }

    /**
     * Whether the entry holds anything to give back: the entry of a request no rule applies to (no
     * rule matched, or an exempt origin) holds nothing and has no start time (0), so a lease for it
     * would only look expired to the safety net, which would report a leak that is none.
     */
    boolean holds() {
        return entry.permits() > 0;
    }

    Entry entry() {
        return entry;
    }

    /**
     * Whether a response of the dispatch {@code dispatch} ({@link GateFilter#dispatch}) is this
     * request's: the dispatch that admitted it (see {@link #dispatch}).
     */
    boolean admittedAt(Object dispatch) {
        return this.dispatch.equals(dispatch);
    }

    /**
     * Whether the runtime's hook sees the request's response still going (Vert.x's, neither ended
     * nor closed: a stream, a long write): then the safety net leaves its lease alone ({@link
     * RequestEnd#responseGoesOn}).
     */
    boolean responseGoesOn() {
        return end != null && end.responseGoesOn();
    }

    /**
     * Keeps {@code request}, the container's own request behind the runtime's proxy to it, for the
     * response filter of a stream of server-sent events, which the application's thread may run
     * (RESTEasy's, whose proxy reaches the request on the request's thread only).
     */
    void keep(Object request) {
        containerRequest = request;
    }

    /** The container's request {@link #keep kept}, or null. */
    Object containerRequest() {
        return containerRequest;
    }

    /** What the request property held before this admission, or null. */
    Object enclosing() {
        return enclosing;
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
        return finished;
    }

    /**
     * The provider saw the request's response, with {@code status}: finishes it, unless a runtime
     * hook watches it.
     */
    void ended(int status) {
        endStatus = status;
        if (!watched) {
            finish(status);
        }
    }

    /**
     * The response's entity has been written ({@code ok}), or its write failed ({@link WriteEnd}):
     * finishes the request, unless a runtime hook watches it; a failed write makes it failed (no
     * response) for whoever finishes it.
     */
    void written(boolean ok) {
        if (!ok) {
            status = HttpGate.NO_RESPONSE;
        }
        ended(status);
    }

    /**
     * The runtime hook lets go of the request before its end (a servlet container whose request
     * listener sees an asynchronous request leave before it completes): from now on the provider
     * finishes it, or the safety net.
     */
    void unwatch() {
        watched = false;
        if (streaming) {
            return;
        }
        if (holds()) {
            leases.add(this);
            if (finished) {
                // Finished by the provider meanwhile, which found no lease to give back then.
                leases.remove(this);
            }
        }
        int seen = endStatus;
        if (seen != NOT_SEEN) {
            finish(seen);
        }
    }

    /**
     * The response streams on after the request's dispatch, until the servlet request's
     * asynchronous cycle ends, which a listener of it reports ({@link #streamEnded}): the request
     * holds its slots until then. From now on no other hook finishes it (a runtime that reports the
     * request's end when the stream's response has started), and it holds no lease: a stream may
     * rightly last longer than {@code max-request-time}, and the container reports its end.
     */
    void streams() {
        streaming = true;
        leases.remove(this);
    }

    /**
     * The response may go on after the runtime reports the request's end ({@link LaterStream}):
     * the first hook to finish the request asks {@code stream} first whether it is held.
     */
    void mayStreamOn(LaterStream stream) {
        later = stream;
    }

    /** The stream's asynchronous cycle has ended ({@link #streams}): finishes the request with {@code status}. */
    void streamEnded(int status) {
        complete(status);
    }

    /**
     * Completes the entry with {@code status}, if nobody has, and gives back its lease, unless the
     * request's response streams on ({@link #streams}), or goes on after this hook saw its end and
     * is now held ({@link #mayStreamOn}); returns whether this call completed it.
     */
    boolean finish(int status) {
        // Read before it is taken: most requests have none, and pay no atomic write for it.
        LaterStream stream = later == null ? null : (LaterStream) LATER.getAndSet(this, (LaterStream) null);
        if (stream != null && stream.holds(this)) {
            return false;
        }
        return !streaming && complete(status);
    }

    /**
     * The safety net's end of a request no hook finished within {@code max-request-time}: finishes
     * it as failed, without asking whether its response goes on (its container's request may be
     * another's by now); returns whether this call completed it.
     */
    boolean expire() {
        later = null;
        return finish(HttpGate.NO_RESPONSE);
    }

    private boolean complete(int status) {
        if (!FINISHED.compareAndSet(this, false, true)) {
            return false;
        }
        leases.remove(this);
        HttpGate.complete(entry, status);
        return true;
    }
}
