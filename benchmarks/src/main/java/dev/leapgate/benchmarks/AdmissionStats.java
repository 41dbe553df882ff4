package dev.leapgate.benchmarks;

import java.util.Arrays;

/**
 * What a set of admission timestamps says about a limit of {@code limit} per {@code windowNanos}.
 *
 * @param admitted all admissions
 * @param worstSpan the most admissions in any closed span {@code [t, t + W]} (a span that starts at
 *     an admission: no other span holds more)
 * @param worstAligned the most admissions in any aligned window {@code [origin + k·W, origin +
 *     (k+1)·W)}
 * @param firstSpan admissions in the first {@code [start, start + W]} of the load
 * @param limit the limit {@code N} the ratios are taken against
 */
record AdmissionStats(long admitted, long worstSpan, long worstAligned, long firstSpan, long limit) {

    /**
     * @param timestamps admission times in nanoseconds, in any order (sorted in place)
     * @param originNanos where the aligned windows start (the limiter's creation)
     * @param startNanos when the load started
     */
    static AdmissionStats of(long[] timestamps, long originNanos, long startNanos, long windowNanos, long limit) {
        Arrays.sort(timestamps);
        long worstSpan = 0;
        int end = 0;
        for (int i = 0; i < timestamps.length; i++) {
            long last = timestamps[i] + windowNanos;
            while (end < timestamps.length && timestamps[end] <= last) {
                end++;
            }
            worstSpan = Math.max(worstSpan, end - i);
        }
        long worstAligned = 0;
        long run = 0;
        long window = Long.MIN_VALUE;
        for (long t : timestamps) {
            long k = Math.floorDiv(t - originNanos, windowNanos);
            run = k == window ? run + 1 : 1;
            window = k;
            worstAligned = Math.max(worstAligned, run);
        }
        long firstSpan = 0;
        for (long t : timestamps) {
            if (t >= startNanos && t <= startNanos + windowNanos) {
                firstSpan++;
            }
        }
        return new AdmissionStats(timestamps.length, worstSpan, worstAligned, firstSpan, limit);
    }

    double worstSpanRatio() {
        return (double) worstSpan / limit;
    }

    double worstAlignedRatio() {
        return (double) worstAligned / limit;
    }

    double firstSpanRatio() {
        return (double) firstSpan / limit;
    }

    /** Admitted per window on average over {@code loadNanos}, as a multiple of the limit. */
    double meanRatio(long loadNanos, long windowNanos) {
        return admitted / ((double) loadNanos / windowNanos) / limit;
    }
}
