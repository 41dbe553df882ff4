package dev.leapgate.stats;

import java.util.List;

/**
 * The statistics of one protected resource (a limiter, or the pattern of an HTTP rule): what was
 * admitted, rejected, completed and failed, response times and requests in flight. Read-only; the
 * limiter that protects the resource writes them as it decides.
 *
 * <p>Windows are whole seconds of the limiter's clock: {@link #lastMinute()} covers the 60 seconds
 * before the current one and the current one so far, {@link #lastSecond()} the second before the
 * current one and the current one so far. {@link #totals()} counts everything since the resource
 * was first protected, for monitoring systems that compute rates themselves.
 *
 * <p>Reads are consistent to within the requests that were being counted while they ran; nothing
 * here takes part in admission decisions.
 */
public interface ResourceStats {

    /** The resource's name: a limiter's name, or an HTTP rule's pattern, {@code GET /users/{id}}. */
    String resource();

    /**
     * Requests admitted with an entry and not yet completed: never above an enforced in-flight
     * limit, and exact when no request starts or ends during the read; can be too low by the
     * requests that end during the read, never too high. The statistics keep it in 24 bits: it
     * (and a second's {@code peakInFlight}) is exact up to 8,388,607 requests in flight at once,
     * and reads too low beyond; an enforced in-flight limit counts apart and is exact at any size.
     */
    long inFlight();

    /** The second before the current one, and the current one so far. */
    StatsSnapshot lastSecond();

    /** The 60 seconds before the current one, and the current one so far. */
    StatsSnapshot lastMinute();

    /**
     * Each of the 60 whole seconds before the current one, oldest first: a snapshot one second
     * long per second (all zero for a second without requests, but for its {@code peakInFlight}:
     * the requests that were in flight all through it), for a chart of the last minute. Its {@code
     * inFlight} is the requests in flight when read, as in every snapshot.
     */
    List<StatsSnapshot> lastMinuteBySecond();

    /** Everything since the resource was first protected. */
    StatsTotals totals();
}
