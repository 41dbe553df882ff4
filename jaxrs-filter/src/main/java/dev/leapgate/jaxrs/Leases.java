package dev.leapgate.jaxrs;

import dev.leapgate.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The safety net for requests whose end no hook of the runtime reports: on a runtime without a
 * {@link RequestEnd} adapter, an exception that no mapper handles may skip the response filters
 * (CXF does), so nothing would release its slot. Each admitted request that the provider finishes
 * itself holds a lease here; a lease older than {@code max-request-time} is finished as failed (no
 * response), counted ({@link #expired}) and logged (WARN, the first, then every 1,000th), so that a
 * leak can never pile up silently. A request whose response its runtime's hook sees still going
 * ({@link RequestEnd#responseGoesOn}: Vert.x's, neither ended nor closed) keeps its lease: it is in
 * flight, and the hook or the safety net ends it once its response has ended.
 *
 * <p>No thread of its own: the requests that arrive look, at most once per eighth of {@code
 * max-request-time} (and only one at a time), for leases that expired. A lease is released within
 * {@code max-request-time} and an eighth of it. Memory: one set entry per request in progress.
 *
 * <p>Concurrency: the set of open leases is concurrent; one sweeper at a time, chosen by a
 * compare-and-set on the time of the next sweep.
 */
final class Leases {

    private static final Logger LOG = LoggerFactory.getLogger(Leases.class);

    private final Set<RequestTracker> open = ConcurrentHashMap.newKeySet();
    private final Clock clock;
    private final Duration max;
    private final long maxNanos;
    private final long sweepEveryNanos;
    private final AtomicLong nextSweep;
    private final AtomicLong expired = new AtomicLong();

    Leases(Clock clock, Duration max) {
        this.clock = clock;
        this.max = max;
        this.maxNanos = max.toNanos();
        this.sweepEveryNanos = Math.max(1, maxNanos / 8);
        this.nextSweep = new AtomicLong(clock.nanoTime() + sweepEveryNanos);
    }

    /** Holds {@code tracker}'s lease until it finishes, or expires. */
    void add(RequestTracker tracker) {
        open.add(tracker);
    }

    /** Gives back {@code tracker}'s lease: it has finished. */
    void remove(RequestTracker tracker) {
        open.remove(tracker);
    }

    /** Requests finished by the safety net since the start. */
    long expired() {
        return expired.get();
    }

    /** Requests holding a lease now. */
    int open() {
        return open.size();
    }

    /** Finishes the requests whose lease expired, if it is time to look; cheap otherwise. */
    void sweep() {
        long now = clock.nanoTime();
        long due = nextSweep.get();
        if (now - due < 0 || !nextSweep.compareAndSet(due, now + sweepEveryNanos)) {
            return;
        }
        for (RequestTracker tracker : open) {
            if (now - tracker.entry().startNanos() >= maxNanos && !tracker.responseGoesOn()) {
                open.remove(tracker);
                if (tracker.expire()) {
                    long count = expired.incrementAndGet();
                    if (count == 1 || count % 1000 == 0) {
                        LOG.warn(
                                "Leapgate JAX-RS: a request admitted {} ago has not finished, and nothing on this"
                                        + " runtime reported its end; its slot is released and the request counted"
                                        + " as failed ({} so far). An exception that no ExceptionMapper handles"
                                        + " ends a request unseen here (map it), as does, on RESTEasy on Vert.x,"
                                        + " an end handler the application sets on the response (Vert.x keeps"
                                        + " one); or requests last longer: raise max-request-time",
                                max,
                                count);
                    }
                }
            }
        }
    }
}
