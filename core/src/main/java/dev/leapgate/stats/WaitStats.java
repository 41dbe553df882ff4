package dev.leapgate.stats;

/**
 * The requests that waited for one rule that makes requests wait (pace, warm-up, borrow), read at
 * one moment.
 *
 * @param waitingNow requests waiting for their turn now (the rule's queue)
 * @param waited requests that waited and were done waiting (admitted, or interrupted), since the
 *     rule came into force
 * @param waitedNanos their waits' total, in nanoseconds
 */
public record WaitStats(int waitingNow, long waited, long waitedNanos) {

    /** The average wait of the requests that waited, in milliseconds; NaN when none did. */
    public double averageWaitMillis() {
        return waited == 0 ? Double.NaN : waitedNanos / 1e6 / waited;
    }
}
