package dev.leapgate.internal.counter;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A concurrency limit: at most {@code limit} permits held at once. No time is involved.
 *
 * <p>Concurrency: one {@link AtomicLong}. Acquiring is a CAS loop that only succeeds while the
 * count plus the permits stays within the limit, so the count never exceeds the limit under any
 * interleaving; a thread whose CAS fails re-reads and decides again. Releasing subtracts.
 */
public final class InFlightCounter {

    private final long limit;
    private final AtomicLong inFlight;

    /** @throws IllegalArgumentException if {@code limit} is below 1 */
    public InFlightCounter(long limit) {
        this(limit, new AtomicLong());
    }

    private InFlightCounter(long limit, AtomicLong inFlight) {
        if (limit < 1) {
            throw new IllegalArgumentException("concurrency limit must be at least 1, was " + limit);
        }
        this.limit = limit;
        this.inFlight = inFlight;
    }

    /**
     * A counter of {@code limit} over this one's count: both count the same permits, and a release
     * through either frees them in both, so the requests in flight when a limit changes keep
     * counting against the new one, and their releases reach it.
     *
     * @throws IllegalArgumentException if {@code limit} is below 1
     */
    public InFlightCounter withLimit(long limit) {
        return new InFlightCounter(limit, inFlight);
    }

    public long limit() {
        return limit;
    }

    /** Takes {@code permits} if they fit; returns whether it did. */
    public boolean tryAcquire(int permits) {
        for (; ; ) {
            long current = inFlight.get();
            if (current + permits > limit) {
                return false;
            }
            if (inFlight.compareAndSet(current, current + permits)) {
                return true;
            }
        }
    }

    /**
     * Gives back permits taken by {@link #tryAcquire}. Callers release each acquisition exactly
     * once; {@code dev.leapgate.Entry} guarantees it.
     *
     * @throws IllegalStateException if more permits are released than are held
     */
    public void release(int permits) {
        long after = inFlight.addAndGet(-permits);
        if (after < 0) {
            inFlight.addAndGet(permits);
            throw new IllegalStateException("released " + permits + " permits but only " + (after + permits)
                    + " were held: an acquisition was released twice");
        }
    }

    /** Permits currently held. */
    public long inFlight() {
        return inFlight.get();
    }

    @Override
    public String toString() {
        return "InFlightCounter[" + inFlight.get() + "/" + limit + "]";
    }
}
