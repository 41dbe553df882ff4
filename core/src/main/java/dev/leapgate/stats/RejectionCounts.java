package dev.leapgate.stats;

/**
 * The requests one rule rejected since it came into force, by reason; for a rule in shadow mode,
 * the requests it would have rejected.
 *
 * @param limitExceeded over the limit: the window full, or every in-flight slot taken
 * @param notTracked from a new client that a per-client in-flight rule could not make room for
 *     (every client it tracks has requests in flight)
 * @param tooManyPermits asking for more permits than the limit ({@code Limiter} calls only)
 * @param interrupted interrupted while waiting for their turn (a paced or borrowing rule)
 * @param storeUnavailable rejected because the rule's shared store could not decide, under {@code
 *     store-on-failure = closed}
 */
public record RejectionCounts(
        long limitExceeded, long notTracked, long tooManyPermits, long interrupted, long storeUnavailable) {

    /** Every rejection, whatever its reason. */
    public long total() {
        return limitExceeded + notTracked + tooManyPermits + interrupted + storeUnavailable;
    }
}
