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
 * @param borrowed requests admitted by borrowing from the next bucket (not those whose loan's bucket
 *     had passed when they went on, after a longer wait for another rule: counted again then, as
 *     ordinary counts)
 * @param responseMicros the sum of the completed requests' response times, in microseconds (as
 *     they are recorded): exact up to 2<sup>63</sup> us, 292,000 years of summed response time (29
 *     years of uptime with 10,000 requests in flight all the time), where a sum in nanoseconds
 *     would overflow after 292 years summed (10 days so)
 */
public record StatsTotals(
        long admitted,
        long rejected,
        long shadowRejected,
        long succeeded,
        long failed,
        long borrowed,
        long responseMicros) {}
