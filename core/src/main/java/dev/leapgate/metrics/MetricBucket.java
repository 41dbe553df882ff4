package dev.leapgate.metrics;

import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * The statistics of one resource in one time bucket.
 *
 * <p>Concurrency: striped counters ({@link LongAdder}, {@link LongAccumulator}): writers never
 * contend on one word, and a read is a sum that may miss writes in flight. Statistics favour
 * throughput over exact reads; admission decisions never read them.
 */
final class MetricBucket {

    final LongAdder pass = new LongAdder();
    final LongAdder block = new LongAdder();
    final LongAdder success = new LongAdder();
    final LongAdder exception = new LongAdder();
    final LongAdder occupiedPass = new LongAdder();
    /** Sum of the response times, in nanoseconds, of the requests completed in this bucket. */
    final LongAdder rtNanos = new LongAdder();
    /** Smallest response time in nanoseconds; {@link Long#MAX_VALUE} while none completed. */
    final LongAccumulator minRtNanos = new LongAccumulator(Math::min, Long.MAX_VALUE);
    /** Largest number of requests in flight seen in this bucket. */
    final LongAccumulator peakConcurrency = new LongAccumulator(Math::max, 0);

    long pass() {
        return pass.sum();
    }

    long block() {
        return block.sum();
    }

    long success() {
        return success.sum();
    }

    long exception() {
        return exception.sum();
    }

    long occupiedPass() {
        return occupiedPass.sum();
    }

    long rtNanos() {
        return rtNanos.sum();
    }

    long minRtNanos() {
        return minRtNanos.get();
    }

    long peakConcurrency() {
        return peakConcurrency.get();
    }

    static void addPass(MetricBucket b, long n) {
        b.pass.add(n);
    }

    static void addBlock(MetricBucket b, long n) {
        b.block.add(n);
    }

    static void addOccupiedPass(MetricBucket b, long n) {
        b.occupiedPass.add(n);
    }

    static void addSuccess(MetricBucket b, long n) {
        b.success.add(n);
    }

    static void addException(MetricBucket b, long n) {
        b.exception.add(n);
    }

    static void turnSuccessIntoException(MetricBucket b, long n) {
        b.success.add(-n);
        b.exception.add(n);
    }

    static void addRt(MetricBucket b, long rtNanos) {
        b.rtNanos.add(rtNanos);
        b.minRtNanos.accumulate(rtNanos);
    }

    static void observeConcurrency(MetricBucket b, long inFlight) {
        b.peakConcurrency.accumulate(inFlight);
    }

    @Override
    public String toString() {
        return "pass=" + pass() + ", block=" + block() + ", success=" + success() + ", exception=" + exception();
    }
}
