package dev.leapgate.metrics;

import java.time.Duration;
import java.util.Objects;

/**
 * A read-only view of one resource's statistics over a window, taken at one moment.
 *
 * <p>Counts are totals over the window; the {@code ...PerSecond} methods divide them by the
 * window's length. Response times are over the requests that <em>completed</em> in the window.
 * Reads of striped counters are not atomic with respect to each other, so under load the numbers
 * can be off by the requests in flight while the snapshot was taken.
 *
 * @param resource the resource name
 * @param window the window the totals cover
 * @param pass requests admitted (including {@code occupiedPass})
 * @param block requests rejected
 * @param success requests completed without error
 * @param exception requests completed with an error
 * @param occupiedPass requests admitted by borrowing from a future bucket
 * @param rtNanos sum of the response times of the completed requests, in nanoseconds
 * @param minRtNanos the smallest response time, or -1 if no request completed
 * @param concurrency requests in flight when the snapshot was taken
 * @param peakConcurrency the most requests in flight at once during the window
 */
public record MetricsSnapshot(
        String resource,
        Duration window,
        long pass,
        long block,
        long success,
        long exception,
        long occupiedPass,
        long rtNanos,
        long minRtNanos,
        long concurrency,
        long peakConcurrency) {

    public MetricsSnapshot {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(window, "window");
    }

    public double passPerSecond() {
        return perSecond(pass);
    }

    public double blockPerSecond() {
        return perSecond(block);
    }

    public double successPerSecond() {
        return perSecond(success);
    }

    public double exceptionPerSecond() {
        return perSecond(exception);
    }

    public double occupiedPassPerSecond() {
        return perSecond(occupiedPass);
    }

    /** Requests that completed (successfully or not) in the window. */
    public long completed() {
        return success + exception;
    }

    /** Average response time in milliseconds of the completed requests, or NaN if none. */
    public double averageRtMillis() {
        long completed = completed();
        return completed == 0 ? Double.NaN : rtNanos / 1e6 / completed;
    }

    /** The smallest response time in milliseconds, or NaN if no request completed. */
    public double minRtMillis() {
        return minRtNanos < 0 ? Double.NaN : minRtNanos / 1e6;
    }

    private double perSecond(long count) {
        return count * 1e9 / window.toNanos();
    }
}
