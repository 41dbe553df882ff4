package dev.leapgate;

import java.util.List;

/**
 * The answer to a request to enter: either an {@link Entry} (admitted; close it when the work is
 * done) or a {@link Rejection} (with the rule that rejected it and when to retry). Limiters return
 * a decision rather than throw, so that rejecting is as cheap as admitting.
 *
 * <pre>{@code
 * Decision decision = limiter.tryEnter();
 * if (decision instanceof Entry entry) {
 *     return entry.call(() -> handle(request)); // a thrown exception counts as a failure
 * }
 * Rejection rejection = (Rejection) decision;
 * return tooManyRequests(rejection.retryAfter());
 * }</pre>
 */
public sealed interface Decision permits Entry, Rejection {

    /** Whether the request was admitted; if so this decision is an {@link Entry}. */
    boolean admitted();

    /**
     * Where the request stands against the rules that applied to it, tightest first (fewest
     * permits remaining); for a rejection, the rejecting rule's, then those of the other rules that
     * would reject the request as well (a retry must pass them all). Empty when no rule applied (an
     * HTTP request that no rule matched, or from an exempt origin), and for a rejection that no
     * quota describes (a denied origin; a shared rule whose store could not decide, under {@code
     * store-on-failure = closed}).
     */
    List<Quota> quotas();
}
