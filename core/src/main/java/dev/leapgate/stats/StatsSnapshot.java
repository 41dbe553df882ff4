package dev.leapgate.stats;

import java.time.Duration;
import java.util.Objects;

/**
 * One resource's statistics over a window, read at one moment.
 *
 * <p>Counts are totals over the window; the {@code ...PerSecond} methods divide them by its
 * length. Response times are those of the requests that completed in the window.
 *
 * @param resource the resource's name
 * @param window how long the window covers: whole seconds and the current second so far
 * @param admitted requests admitted (those that borrowed from the next bucket included)
 * @param rejected requests rejected
 * @param shadowRejected requests that a shadow rule of the resource would have rejected, and let
 *     through, each once however many of its shadow rules would have: they are counted as admitted
 *     too (a request another rule rejected is counted as rejected alone, whichever rule decided
 *     first; the shadow rule's own rejection counts have it)
 * @param succeeded admitted requests that completed without failing
 * @param failed admitted requests that failed (an exception, a 5xx response, a timeout)
 * @param borrowed requests admitted by borrowing from the next bucket (not those whose loan's bucket
 *     had passed when they went on, after a longer wait for another rule: counted again then, as
 *     ordinary counts)
 * @param responseNanos the sum of the completed requests' response times, in nanoseconds (to the
 *     microsecond; {@link Long#MAX_VALUE} if they sum to more, 292 years, in the window: {@link
 *     StatsTotals#responseMicros()} keeps the sum since the start exact)
 * @param minResponseNanos the shortest response time, to the microsecond, or -1 exactly when no
 *     request completed in the window; never above the average ({@code minResponseNanos * completed()
 *     <= responseNanos}). A request that completes while the statistics file a second can be
 *     counted in the later second and its response time kept for the minimum of the earlier one;
 *     a second left so without the minimum of its own requests reports at most their average, an
 *     upper bound of the true minimum
 * @param inFlight requests in flight when the snapshot was read (see {@link
 *     ResourceStats#inFlight()})
 * @param peakInFlight the most requests in flight at once during the window, as each admission
 *     saw it: never above an enforced in-flight limit on the resource, exact when requests do not
 *     start and end at the same moment, and otherwise possibly too low, by the requests that ended
 *     while an admission was being counted; an admission just after a second was filed may raise
 *     the next second's peak from a reading of before it, by the requests that ended meanwhile
 */
public record StatsSnapshot(
        String resource,
        Duration window,
        long admitted,
        long rejected,
        long shadowRejected,
        long succeeded,
        long failed,
        long borrowed,
        long responseNanos,
        long minResponseNanos,
        long inFlight,
        long peakInFlight) {

    public StatsSnapshot {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(window, "window");
    }

    /** Requests that completed, successfully or not. */
    public long completed() {
        return succeeded + failed;
    }

    public double admittedPerSecond() {
        return perSecond(admitted);
    }

    public double rejectedPerSecond() {
        return perSecond(rejected);
    }

    public double shadowRejectedPerSecond() {
        return perSecond(shadowRejected);
    }

    public double succeededPerSecond() {
        return perSecond(succeeded);
    }

    public double failedPerSecond() {
        return perSecond(failed);
    }

    /** The completed requests' average response time in milliseconds; NaN when none completed. */
    public double averageResponseMillis() {
        long completed = completed();
        return completed == 0 ? Double.NaN : responseNanos / 1e6 / completed;
    }

    /** The shortest response time in milliseconds; NaN exactly when none completed. */
    public double minResponseMillis() {
        return minResponseNanos < 0 ? Double.NaN : minResponseNanos / 1e6;
    }

    private double perSecond(long count) {
        long nanos = window.toNanos();
        return nanos == 0 ? 0 : count * 1e9 / nanos;
    }
}
