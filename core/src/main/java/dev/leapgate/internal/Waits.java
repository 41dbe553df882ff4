package dev.leapgate.internal;

import dev.leapgate.stats.WaitStats;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The requests that waited for one limit (paced, warming up, or borrowing from the next bucket):
 * how many wait now, and how many waited and for how long since the limit was made. Written only
 * by requests that wait (which sleep anyway), never on the path of a request that does not.
 *
 * <p>Concurrency: thread-safe.
 */
public final class Waits {

    private final AtomicInteger waiting = new AtomicInteger();
    private final LongAdder waited = new LongAdder();
    /**
     * In microseconds, as the statistics sum response times: a long of them holds 292,000 years of
     * summed waits, where nanoseconds would overflow after 292 years summed (under two days of a
     * paced rule admitting 1,000 requests a second that each waited a minute).
     */
    private final LongAdder waitedMicros = new LongAdder();

    void begin() {
        waiting.incrementAndGet();
    }

    /** A wait that {@link #begin began} ended after {@code nanos} (interrupted or not). */
    void end(long nanos) {
        waiting.decrementAndGet();
        waited.increment();
        waitedMicros.add(Math.max(0, nanos) / 1_000);
    }

    /** What the waits are now. */
    public WaitStats read() {
        return new WaitStats(waiting.get(), waited.sum(), waitedMicros.sum());
    }

    /** Requests waiting now. */
    public int waitingNow() {
        return waiting.get();
    }

    /** Requests that waited and were done waiting, since the limit was made. */
    public long waited() {
        return waited.sum();
    }

    /** Their waits' total, in microseconds. */
    public long waitedMicros() {
        return waitedMicros.sum();
    }
}
