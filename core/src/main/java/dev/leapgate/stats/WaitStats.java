package dev.leapgate.stats;

/**
 * The requests that waited for one rule that makes requests wait (pace, warm-up, borrow), read at
 * one moment.
 *
 * @param waitingNow requests waiting for their turn now (the rule's queue)
 * @param waited requests that waited and were done waiting (admitted, or interrupted), since the
 *     rule came into force
 * @param waitedMicros their waits' total, in microseconds (each wait cut to whole ones): for each
 *     request, the wait this rule asked for, at most the time the request waited (a request that
 *     another rule made wait longer counts no more here than this rule asked); exact up
 *     to 2<sup>63</sup> us, 292,000 years of summed waits, where a sum in nanoseconds would
 *     overflow after 292 years summed (under two days of a pace of 1,000 a second whose requests
 *     each wait a minute), as {@link StatsTotals#responseMicros} does for response times
 */
public record WaitStats(int waitingNow, long waited, long waitedMicros) {

    /** The average wait of the requests that waited, in milliseconds; NaN when none did. */
    public double averageWaitMillis() {
        return waited == 0 ? Double.NaN : waitedMicros / 1e3 / waited;
    }
}
