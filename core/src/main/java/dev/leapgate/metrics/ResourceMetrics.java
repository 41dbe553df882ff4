package dev.leapgate.metrics;

import dev.leapgate.counter.LeapArray;
import dev.leapgate.counter.WindowMode;
import dev.leapgate.counter.WindowSpec;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The statistics of one resource: what was admitted, rejected, completed and failed, response
 * times and concurrency, over a second-level window (1 s in 2 buckets of 500 ms) and a
 * minute-level window (60 buckets of 1 s).
 *
 * <p>Every method takes the clock reading, so the caller reads the clock once per request.
 * Nothing here decides admission.
 *
 * <p>Concurrency: both windows are {@link LeapArray}s of striped counters; the in-flight count is
 * one {@link AtomicLong}, exact. Lock-free; any thread may call any method.
 */
public final class ResourceMetrics {

    /** The second-level window: 1 s in 2 buckets. */
    public static final WindowSpec SECOND = new WindowSpec(Duration.ofSeconds(1), 2, WindowMode.SLIDING);
    /** The minute-level window: 60 buckets of 1 s. */
    public static final WindowSpec MINUTE = new WindowSpec(Duration.ofMinutes(1), 60, WindowMode.SLIDING);

    private final String resource;
    private final LeapArray<MetricBucket> second = new LeapArray<>(SECOND, MetricBucket::new);
    private final LeapArray<MetricBucket> minute = new LeapArray<>(MINUTE, MetricBucket::new);
    private final AtomicLong inFlight = new AtomicLong();

    public ResourceMetrics(String resource) {
        this.resource = Objects.requireNonNull(resource, "resource");
    }

    public String resource() {
        return resource;
    }

    /**
     * Records an admission of one request: a pass (also an occupied pass if it borrowed from a
     * future bucket) and one more request in flight.
     */
    public void onPass(long nowNanos, boolean occupied) {
        long concurrency = inFlight.incrementAndGet();
        second.add(nowNanos, MetricBucket::addPass, 1);
        minute.add(nowNanos, MetricBucket::addPass, 1);
        if (occupied) {
            second.add(nowNanos, MetricBucket::addOccupiedPass, 1);
            minute.add(nowNanos, MetricBucket::addOccupiedPass, 1);
        }
        second.add(nowNanos, MetricBucket::observeConcurrency, concurrency);
        minute.add(nowNanos, MetricBucket::observeConcurrency, concurrency);
    }

    /** Records a rejection. */
    public void onBlock(long nowNanos) {
        second.add(nowNanos, MetricBucket::addBlock, 1);
        minute.add(nowNanos, MetricBucket::addBlock, 1);
    }

    /**
     * Records the completion of an admitted request: its response time, success or exception, and
     * one request less in flight. Must be called exactly once per {@link #onPass}.
     */
    public void onComplete(long nowNanos, long rtNanos, boolean failed) {
        inFlight.decrementAndGet();
        long rt = Math.max(0, rtNanos);
        second.add(nowNanos, failed ? MetricBucket::addException : MetricBucket::addSuccess, 1);
        minute.add(nowNanos, failed ? MetricBucket::addException : MetricBucket::addSuccess, 1);
        second.add(nowNanos, MetricBucket::addRt, rt);
        minute.add(nowNanos, MetricBucket::addRt, rt);
    }

    /**
     * Records that a request completed as a success at {@code completedNanos} failed after all (its
     * {@code catch} block ran after it was closed): one success less, one exception more, in the
     * buckets where the completion was counted.
     */
    public void onFailedAfterComplete(long completedNanos) {
        second.add(completedNanos, MetricBucket::turnSuccessIntoException, 1);
        minute.add(completedNanos, MetricBucket::turnSuccessIntoException, 1);
    }

    /** Requests admitted and not yet completed. */
    public long concurrency() {
        return inFlight.get();
    }

    /** The statistics of the last second (1 s in 2 buckets: the current one is partial). */
    public MetricsSnapshot lastSecond(long nowNanos) {
        return snapshot(second, SECOND, nowNanos);
    }

    /** The statistics of the last minute (60 buckets of 1 s: the current one is partial). */
    public MetricsSnapshot lastMinute(long nowNanos) {
        return snapshot(minute, MINUTE, nowNanos);
    }

    private MetricsSnapshot snapshot(LeapArray<MetricBucket> array, WindowSpec spec, long nowNanos) {
        long minRt = array.reduce(nowNanos, MetricBucket::minRtNanos, Long.MAX_VALUE, Math::min);
        return new MetricsSnapshot(
                resource,
                spec.length(),
                array.sum(nowNanos, MetricBucket::pass),
                array.sum(nowNanos, MetricBucket::block),
                array.sum(nowNanos, MetricBucket::success),
                array.sum(nowNanos, MetricBucket::exception),
                array.sum(nowNanos, MetricBucket::occupiedPass),
                array.sum(nowNanos, MetricBucket::rtNanos),
                minRt == Long.MAX_VALUE ? -1 : minRt,
                inFlight.get(),
                array.reduce(nowNanos, MetricBucket::peakConcurrency, 0, Math::max));
    }

    @Override
    public String toString() {
        return "ResourceMetrics[" + resource + ", inFlight=" + inFlight.get() + "]";
    }
}
