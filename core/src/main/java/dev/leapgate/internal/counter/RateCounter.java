package dev.leapgate.internal.counter;

import dev.leapgate.rule.WindowSpec;

/**
 * The admission state of one in-process rate limit: "do these permits fit in the window, and if
 * so count them", as one atomic step; {@link LeapCounter} is its implementation. A window shared
 * between instances is not one of these: it is decided in a {@link dev.leapgate.store.WindowStore}
 * (asynchronously, at the store's time), through the decision layer's {@code Limit.Shared}.
 *
 * <p>Methods take the clock reading as a parameter so that implementations stay pure functions of
 * their state and time, and tests need no clock at all. The hot path ({@link #tryAcquire})
 * allocates nothing: its result is a primitive ticket.
 */
public interface RateCounter {

    /** Returned by {@link #tryAcquire} when the permits do not fit. */
    long REJECTED = -1L;

    /** The window this counter counts over. */
    WindowSpec window();

    /** The most permits the window admits. */
    long limit();

    /**
     * Checks that {@code permits} fit in the window at {@code nowNanos} and counts them, as one
     * atomic step: under any concurrency, the permits admitted within the window never exceed
     * {@link #limit()}.
     *
     * @param permits at least 1 and at most {@link #limit()}
     * @return an opaque ticket {@code >= 0} when admitted, {@link #REJECTED} otherwise
     * @throws IllegalArgumentException if {@code permits} is out of range
     */
    long tryAcquire(long nowNanos, int permits);

    /**
     * As {@link #tryAcquire(long, int)}, but for a counter built for borrowing, permits the window
     * rejects may be lent from the next bucket if it starts within {@code maxWaitNanos}: the
     * ticket then names that bucket, and the caller must wait until {@link #ticketStartNanos}
     * before proceeding. Counters without borrowing ignore {@code maxWaitNanos}.
     */
    long tryAcquire(long nowNanos, int permits, long maxWaitNanos);

    /**
     * The start of the bucket a ticket's permits count in: at or before the admission, or after it
     * for a loan from the next bucket.
     */
    long ticketStartNanos(long ticket);

    /** The permits that remained in the window right after the admission of {@code ticket}. */
    long remainingAfter(long ticket);

    /**
     * Returns the permits of an admission, for example because another limit on the same request
     * rejected it. After a refund the window counts the permits no more (or, in a rare race, still
     * counts them: a refund never makes the window count less than what was admitted).
     *
     * @return whether the window counts the permits no more because of this refund: false when
     *     their bucket has left the window, when the refund is kept (a sealed borrowing window's),
     *     or in that rare race
     */
    boolean refund(long ticket, int permits);

    /**
     * When the bucket a ticket's permits count in leaves the window: from then on the window
     * counts them no more, refunded or not.
     */
    long ticketEndNanos(long ticket);

    /** Permits counted in the window at {@code nowNanos}. */
    long used(long nowNanos);

    /**
     * Nanoseconds from {@code nowNanos} until {@code permits} would fit if nothing else were
     * admitted meanwhile: 0 if they fit now, {@link Long#MAX_VALUE} if they never can (more than
     * the limit; for a counter a changed rule's took over, the limit of that one, which may be
     * lower than this one's).
     */
    long nanosUntilAvailable(long nowNanos, long permits);

    /**
     * Nanoseconds from {@code nowNanos} until the window counts nothing, if nothing else were
     * admitted meanwhile: 0 if it counts nothing now. Whatever the limit: for a counter that hands
     * its calls on to the one of a changed rule, it is that counter's window that empties, and
     * its limit may be lower than this one's, so {@code nanosUntilAvailable(nowNanos, limit())}
     * would say "never".
     */
    long nanosUntilEmpty(long nowNanos);
}
