package dev.leapgate.servlet;

import dev.leapgate.Rejection;
import dev.leapgate.http.HttpGate;
import java.util.Map;
import java.util.UUID;
import java.util.WeakHashMap;

/**
 * What the filters on one gate know of the dispatches they let through or decided: a request is
 * decided once per gate, whichever of the gate's filters sees it first. Two filters on one gate
 * (two {@link LeapgateFilter#forGate} calls for one gate, two registrations of one filter, a
 * filter of the application's beside the Spring Boot starter's) would otherwise each count the
 * request, and a limit of N admit N/2; a filter on another gate still decides by that gate's rules.
 *
 * <p>Concurrency: one instance per gate, from {@link #of}, which is called only when a filter takes
 * its gate (construction, {@code init}), under the registry's lock; the per-request state is in
 * thread-locals and in a request attribute, so the hot path shares nothing mutable.
 */
final class GateDispatches {

    /** Weak keys: a gate closed and dropped takes its entry with it. Identity is the gate's own. */
    private static final Map<HttpGate, GateDispatches> BY_GATE = new WeakHashMap<>();

    /**
     * How many dispatches the gate's filters let through, or answer with a block handler, are
     * running on this thread: a forward, or another filter on the gate, inside one of them (on the
     * same thread, before it returns) is part of a request already limited.
     */
    final ThreadLocal<int[]> passing = ThreadLocal.withInitial(() -> new int[1]);

    /**
     * The {@linkplain jakarta.servlet.ServletRequest#getRequestId() id} of the last request the
     * gate's filters let through on this thread without marking it with {@link #seenAttribute}: a forward
     * that an earlier filter makes after the dispatch returned (an error page, a fallback page) runs
     * on the same thread, and is part of that request. Request ids are unique for the life of the
     * container, so a stale id never matches another request. A String, a class of the JDK, as is
     * the count above: a thread-local value of the application's class would keep its class loader
     * alive.
     */
    final ThreadLocal<String[]> decidedHere = ThreadLocal.withInitial(() -> new String[1]);

    /**
     * The request attribute that says a filter on the gate let the request through and the request
     * went, or may still go, asynchronous: its async dispatches are not limited again. Named per
     * gate (a random part: two applications' gates may see one request in a cross-context
     * dispatch), so that filters on two gates each limit once.
     */
    final String seenAttribute = "dev.leapgate.seen." + UUID.randomUUID();

    /**
     * The request attribute that holds what the gate's filters answered a request they rejected
     * ({@link Refused}): a dispatch of it that an earlier filter makes afterwards is not decided
     * again. Named per gate, as {@link #seenAttribute}.
     */
    final String refusedAttribute = "dev.leapgate.refused." + UUID.randomUUID();

    /**
     * A request the gate rejected: its request URI then, and the rejection. A dispatch of it to
     * the same URI (a filter that retries a 429 or a 503) is answered with the same rejection.
     */
    record Refused(String requestUri, Rejection rejection) {}

    private GateDispatches() {}

    /** The one instance for {@code gate}, shared by every filter on it. */
    static GateDispatches of(HttpGate gate) {
        synchronized (BY_GATE) {
            return BY_GATE.computeIfAbsent(gate, g -> new GateDispatches());
        }
    }
}
