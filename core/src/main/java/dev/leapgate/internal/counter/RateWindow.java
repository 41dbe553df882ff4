package dev.leapgate.internal.counter;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * An exact rate window's algorithm and memory layout, kept apart from its storage: one counter
 * ({@link LeapCounter}) or a table of per-origin windows ({@link KeyedRateCounter}) holds the
 * cells, and every method takes the cells to work on. Instances are immutable and hold no counts.
 *
 * <p>Two layouts: {@link PackedWindow}, lock-free, a full word per bucket, for any limit and for
 * borrowing; and {@link NarrowWindow}, for the per-origin tables, whose buckets take as few bits
 * as the limit needs. What they share is here: time as bucket numbers (<em>epochs</em>), tickets,
 * and the words a window leaves in the memory of evicted origins, all packed as {@code epoch |
 * count} with {@code countBits} of count.
 *
 * <p>The window at epoch {@code e} counts bucket {@code e} and the {@code span} buckets before it:
 * {@code span = n} for {@link WindowMode#STRICT} (the straddling bucket included), {@code n - 1}
 * for {@link WindowMode#SLIDING}.
 */
abstract sealed class RateWindow implements OriginTable.State permits PackedWindow, NarrowWindow {

    /** Returned by {@link #tryAcquire} when the permits do not fit. */
    static final long REJECTED = -1L;

    private static final long LIFETIME_NANOS = 1L << 62;

    final WindowSpec spec;
    final long limit;
    final long originNanos;
    /** Bucket length {@code b} in ns; {@code >= 1 ms}. */
    final long bucketNanos;
    /** Past epochs the window counts besides the newest: {@code n} or {@code n - 1}. */
    final int span;
    /** Whether admissions may borrow from the next bucket. */
    final boolean borrowing;

    /** Bits of a count in tickets and remembered words; the epoch sits right above them. */
    final int countBits;

    final long countMask;

    RateWindow(WindowSpec spec, long limit, long originNanos, boolean borrowing, int countBits) {
        this.spec = spec;
        this.limit = limit;
        this.originNanos = originNanos;
        this.bucketNanos = spec.bucketNanos();
        this.span = spec.mode() == WindowMode.STRICT ? spec.buckets() : spec.buckets() - 1;
        this.borrowing = borrowing;
        this.countBits = countBits;
        this.countMask = (1L << countBits) - 1;
    }

    /**
     * Checks that {@code permits} fit in the window at {@code nowNanos} and counts them, as one
     * atomic step; a window built for borrowing may lend a request it rejects permits from the next
     * bucket if that bucket starts at most {@code maxWaitNanos} after {@code nowNanos} (a negative
     * value never borrows), and the ticket then names that bucket.
     *
     * @return a ticket ({@code >= 0}) when admitted, {@link #REJECTED} otherwise
     */
    abstract long tryAcquire(AtomicLongArray cells, int base, long nowNanos, int permits, long maxWaitNanos);

    /**
     * Whether {@link #tryAcquire(AtomicLongArray, int, long, int, long)} would reject now, told by
     * reading alone: true only when the window's newest bucket is {@code nowNanos}'s and the
     * permits do not fit (and the caller may not borrow); false when it cannot tell without
     * writing (a bucket to move on to) or would admit. Reads only and never waits: the cells may
     * be another origin's by then (an optimistic read, {@link OriginTable}), whose answer the
     * caller discards.
     */
    abstract boolean rejectsNow(AtomicLongArray cells, int base, long nowNanos, int permits, long maxWaitNanos);

    /** As {@link #tryAcquire(AtomicLongArray, int, long, int, long)}, never borrowing. */
    final long tryAcquire(AtomicLongArray cells, int base, long nowNanos, int permits) {
        return tryAcquire(cells, base, nowNanos, permits, -1);
    }

    /**
     * Returns the permits of an admission to the bucket they were counted in, if that bucket still
     * counts. Never makes the window count less than what was admitted and not refunded.
     *
     * @return whether the window counts the permits no more: false when their bucket has left the
     *     window (or, for {@link PackedWindow}, in a rare race that leaves them counted)
     */
    abstract boolean refund(AtomicLongArray cells, int base, long ticket, int permits);

    /** Permits counted in the window at {@code nowNanos}. */
    abstract long used(AtomicLongArray cells, int base, long nowNanos);

    /**
     * Nanoseconds from {@code nowNanos} until {@code permits} would fit, assuming nothing else is
     * admitted meanwhile: 0 if they fit now, {@link Long#MAX_VALUE} if they never can.
     */
    abstract long nanosUntilAvailable(AtomicLongArray cells, int base, long nowNanos, long permits);

    /** The count of bucket {@code k} in the window whose head word is {@code head}; 0 if it holds none. */
    abstract long countOf(AtomicLongArray cells, int base, long head, long k);

    /**
     * The newest bucket, at or before {@code at}, that holds a count in the window at {@code at}
     * (whose head word is {@code head}); {@code at} if none does. What a window remembers as one
     * word is dated there, not at {@code at}: dated later at every hand-over or eviction, a count
     * that a client sent once would never leave its window while the client kept coming back.
     */
    final long newestCounted(AtomicLongArray cells, int base, long head, long at) {
        for (long k = at; k >= Math.max(0, at - span); k--) {
            if (countOf(cells, base, head, k) > 0) {
                return k;
            }
        }
        return at;
    }

    /**
     * Nanoseconds from {@code nowNanos} until buckets {@code oldest..newest} of the window whose
     * head word is {@code head} count at most {@code room} permits: 0 if they do now. Buckets leave
     * oldest first (bucket {@code k} stops counting at epoch {@code k + span + 1}), so the wait is
     * until the newest bucket that, with the buckets after it, counts more than {@code room} has
     * left. Each bucket is read once, newest first: counts lowered meanwhile (refunds into past
     * buckets) are each seen before or after, and the answer lies between the window's answers
     * before and after them.
     */
    final long untilFits(
            AtomicLongArray cells, int base, long head, long room, long newest, long oldest, long nowNanos) {
        long counted = 0;
        for (long k = newest; k >= Math.max(0, oldest); k--) {
            counted += countOf(cells, base, head, k);
            if (counted > room) {
                return Math.max(1, startNanos(k + span + 1) - nowNanos);
            }
        }
        return 0;
    }

    /** Permits counted now: 0 means the window can be dropped and recreated empty. */
    @Override
    public final long pressure(AtomicLongArray cells, int base, long nowNanos) {
        return used(cells, base, nowNanos);
    }

    /** A window that is full is limiting its origin right now. */
    @Override
    public final long saturation() {
        return limit;
    }

    @Override
    public final boolean remembers() {
        return true;
    }

    /** Whether a remembered word still counts anything in the window at {@code nowNanos}. */
    @Override
    public final boolean counts(long word, long nowNanos) {
        return count(word) > 0 && epoch(word) >= epochAt(nowNanos) - span;
    }

    @Override
    public final long atLeast(long a, long b, long nowNanos) {
        if (!counts(a, nowNanos)) {
            return b;
        }
        if (!counts(b, nowNanos)) {
            return a;
        }
        return pack(Math.max(epoch(a), epoch(b)), Math.max(count(a), count(b)));
    }

    @Override
    public final long atMost(long a, long b, long nowNanos) {
        if (!counts(a, nowNanos) || !counts(b, nowNanos)) {
            return 0;
        }
        return pack(Math.min(epoch(a), epoch(b)), Math.min(count(a), count(b)));
    }

    /**
     * A word {@link #remember} of window {@code from} left, as this window's: the same permits (no
     * more than a count of this window holds, which is at least its limit) at the same bucket, or,
     * when the buckets differ in length or origin (another {@code window}), at this window's
     * bucket in which the word's bucket ends: every permit was counted by then, so none counts for
     * less long than the window's length from when it was admitted (strict, for one window).
     */
    final long adopt(RateWindow from, long word) {
        if (word == 0) {
            return 0;
        }
        // Every window's word names the bucket its newest permits count in (a loan's: the bucket
        // it was lent from), and every window restores it there.
        long epoch = from.bucketNanos == bucketNanos && from.originNanos == originNanos
                ? from.epoch(word)
                : epochAt(from.startNanos(from.epoch(word) + 1) - 1);
        return pack(epoch, Math.min(from.count(word), countMask));
    }

    /** Bits of a bucket in the cells: a lane's, or a word's. */
    abstract int bucketBits();

    /** Whether a window of this layout reads and writes the cells of {@code other}'s in the same way. */
    final boolean sameCellsAs(RateWindow other) {
        return getClass() == other.getClass()
                && countBits == other.countBits
                && bucketBits() == other.bucketBits()
                && borrowing == other.borrowing
                && originNanos == other.originNanos
                && spec.equals(other.spec);
    }

    /** @throws IllegalArgumentException unless {@code 1 <= permits <= limit} */
    final void checkPermits(int permits) {
        if (permits < 1 || permits > limit) {
            throw new IllegalArgumentException("permits must be between 1 and the limit " + limit + ", was " + permits);
        }
    }

    /** Bucket number of a clock reading: whole buckets since the origin, 0 before it. */
    final long epochAt(long nowNanos) {
        long sinceOrigin = nowNanos - originNanos;
        return sinceOrigin <= 0 ? 0 : Math.min(sinceOrigin, LIFETIME_NANOS - 1) / bucketNanos;
    }

    /** Clock reading at which bucket {@code epoch} starts. */
    final long startNanos(long epoch) {
        return originNanos + epoch * bucketNanos;
    }

    // Tickets and remembered words: epoch | count.

    final long epoch(long word) {
        return word >>> countBits;
    }

    final long count(long word) {
        return word & countMask;
    }

    final long pack(long epoch, long count) {
        return (epoch << countBits) | count;
    }

    /** The epoch a ticket's permits were counted in (the next bucket's, for a loan). */
    final long ticketEpoch(long ticket) {
        return ticket >>> countBits;
    }

    /** The permits that remained in the window right after the ticket's admission. */
    final long ticketRemaining(long ticket) {
        return ticket & countMask;
    }
}
