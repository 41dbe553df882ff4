package dev.leapgate.stats;

/**
 * Counts since a resource was first protected: monotonic, for monitoring systems that compute
 * rates themselves (a Prometheus counter). Each never decreases, except {@code succeeded}, which
 * goes down by one when a request closed as a success is failed afterwards (and stays so: that
 * request is one failure more); a request that fails before it closes is never counted as a
 * success, not even for a moment.
 *
 * @param admitted requests admitted
 * @param rejected requests rejected
 * @param shadowRejected requests a shadow rule would have rejected, and let through
 * @param succeeded admitted requests completed without failing
 * @param failed admitted requests that failed
 * @param borrowed requests admitted by borrowing from the next bucket
 * @param responseNanos the sum of the completed requests' response times (to the microsecond)
 */
public record StatsTotals(
        long admitted,
        long rejected,
        long shadowRejected,
        long succeeded,
        long failed,
        long borrowed,
        long responseNanos) {}
