package dev.leapgate.internal.counter;

import dev.leapgate.rule.WindowSpec;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The in-process {@link RateCounter}: an exact, lock-free leap-array window of {@code n + 2}
 * longs (strict) or {@code n + 1} longs (sliding). The algorithm is explained in {@link
 * PackedWindow}.
 *
 * <p>Concurrency: all state is one {@link AtomicLongArray}; the newest bucket is one word changed
 * only by compare-and-swap, older buckets are frozen once published. A thread whose CAS fails
 * re-reads and decides again. No locks, no background thread; any number of threads may call any
 * method.
 *
 * <p>A counter made by {@link #withLimit} with another window or borrowing counts in new cells,
 * which take the old cells' counts over at their first use, when another thread may still be
 * deciding on the old counter: it was read before a reload. So the takeover <em>seals</em> the old cells first (see
 * {@link PackedWindow}), and from then on the old counter hands every call to the new one. An
 * admission is counted either in the old cells before the seal, and the new cells take it over,
 * or in the new cells: none is lost, however the two counters' callers interleave (see {@link
 * Succession}).
 */
public final class LeapCounter extends Succession.Party<LeapCounter> implements RateCounter {

    private final PackedWindow layout;
    private final AtomicLongArray cells;
    /** How these cells' counts come and go; shared by every counter on the same cells. */
    private final Succession<LeapCounter> succession;

    /**
     * Creates an empty counter whose buckets are aligned on {@code originNanos} (usually the
     * current clock reading).
     *
     * @throws IllegalArgumentException if {@code limit} is below 1 or too large for the window's
     *     bucket length (see {@link #maxLimit})
     */
    public LeapCounter(WindowSpec window, long limit, long originNanos) {
        this(window, limit, originNanos, false);
    }

    /**
     * Creates an empty counter; with {@code borrowing}, {@link #tryAcquire(long, int, long)} may
     * lend permits from the next bucket.
     *
     * @throws IllegalArgumentException if {@code limit} is below 1 or too large for the window's
     *     bucket length (see {@link #maxLimit(WindowSpec, boolean)})
     */
    public LeapCounter(WindowSpec window, long limit, long originNanos, boolean borrowing) {
        this(new PackedWindow(Objects.requireNonNull(window, "window"), limit, originNanos, borrowing));
    }

    private LeapCounter(PackedWindow layout) {
        this(layout, new AtomicLongArray(layout.cellsPerCounter()), new Succession<>(null));
    }

    private LeapCounter(PackedWindow layout, AtomicLongArray cells, Succession<LeapCounter> succession) {
        this.layout = layout;
        this.cells = cells;
        this.succession = succession;
    }

    /**
     * Takes over now, at {@code nowNanos}, what this counter goes on from, if it has not yet (see
     * {@link #withLimit}); else nothing. For a counter in force that a reload changes again before
     * its first use: without this, each such reload would add a counter to a chain that the first
     * use then walks, and that keeps every counter in it.
     */
    public void settle(long nowNanos) {
        current(nowNanos);
    }

    /** {@link #withLimit(WindowSpec, long, boolean)} over this counter's window. */
    public LeapCounter withLimit(long limit, boolean borrowing) {
        return withLimit(layout.spec, limit, borrowing);
    }

    /**
     * A counter of {@code limit} per {@code window} (borrowing or not) that goes on from what this
     * one counts. Over the same window with the same borrowing, the two count in the same cells:
     * every admission through either is counted against both limits, exactly, and refunds reach
     * it. Otherwise the new one, at its first use, takes over all that this one counts, as if
     * counted at the end of the then current bucket (which only errs on the strict side, for up to
     * one window and one of this one's buckets; a longer window cannot know what this one has
     * already forgotten), and this one hands every
     * call to it from then on (see the class comment). Until the new one is used, this one is
     * unchanged: a counter made for rules that never come into force changes nothing.
     *
     * @throws IllegalArgumentException if {@code limit} is below 1 or too large for the window
     */
    public LeapCounter withLimit(WindowSpec window, long limit, boolean borrowing) {
        PackedWindow next =
                new PackedWindow(Objects.requireNonNull(window, "window"), limit, layout.originNanos, borrowing);
        if (next.sameCellsAs(layout)) {
            return new LeapCounter(next, cells, succession);
        }
        AtomicLongArray pending = new AtomicLongArray(next.cellsPerCounter());
        pending.set(0, PENDING);
        return new LeapCounter(next, pending, new Succession<>(this));
    }

    /**
     * The largest limit a window of this shape can count: {@link Integer#MAX_VALUE} from
     * buckets of 2^30 ns (about 1.07 s) on, {@code 2^30 - 1} with 1 s buckets, {@code 2^20 - 1}
     * with 1 ms buckets.
     */
    public static long maxLimit(WindowSpec window) {
        return maxLimit(window, false);
    }

    /**
     * The largest limit a window of this shape can count, with or without borrowing (which halves
     * the bits of a count: 16383 with 100 ms buckets, 32767 with 1 s buckets).
     */
    public static long maxLimit(WindowSpec window, boolean borrowing) {
        return PackedWindow.maxLimit(Objects.requireNonNull(window, "window"), borrowing);
    }

    @Override
    public WindowSpec window() {
        return layout.spec;
    }

    @Override
    public long limit() {
        return layout.limit;
    }

    @Override
    public long tryAcquire(long nowNanos, int permits) {
        return tryAcquire(nowNanos, permits, -1);
    }

    @Override
    public long tryAcquire(long nowNanos, int permits, long maxWaitNanos) {
        layout.checkPermits(permits);
        long ticket = layout.tryAcquire(cells, 0, nowNanos, permits, layout.borrowing ? maxWaitNanos : -1);
        return ticket != PackedWindow.SEALED ? ticket : successorTryAcquire(nowNanos, permits, maxWaitNanos);
    }

    /** {@link #tryAcquire} on sealed or pending cells. */
    private long successorTryAcquire(long nowNanos, int permits, long maxWaitNanos) {
        LeapCounter to = current(nowNanos);
        if (to == this) {
            return tryAcquire(nowNanos, permits, maxWaitNanos);
        }
        if (permits > to.layout.limit) {
            return REJECTED; // more than the new limit: they never fit
        }
        // A counter that never lends hands on no loan either (it ignores maxWaitNanos): its own
        // callers do not wait, and a counter it took over reads its tickets as no loan (see below).
        long ticket = to.tryAcquire(nowNanos, permits, layout.borrowing ? maxWaitNanos : -1);
        if (ticket < 0) {
            return ticket;
        }
        // The ticket in this layout, which the caller reads: the bucket in which the successor's
        // starts (the same one, over the same window). Not a later bucket than now's where a
        // successor that never lends counted into one (what it took over from a borrowing window
        // counts there): that is no loan to wait for. A remaining count above what this layout's
        // count bits hold (a limit raised by the reload) as the most they hold.
        long epoch = layout.epochAt(to.layout.startNanos(to.layout.ticketEpoch(ticket)));
        if (!to.layout.borrowing) {
            epoch = Math.min(epoch, layout.epochAt(nowNanos));
        }
        return layout.pack(epoch, Math.min(to.layout.ticketRemaining(ticket), layout.countMask));
    }

    @Override
    public long ticketStartNanos(long ticket) {
        return layout.startNanos(layout.ticketEpoch(ticket));
    }

    @Override
    public long remainingAfter(long ticket) {
        return layout.ticketRemaining(ticket);
    }

    @Override
    public long ticketEndNanos(long ticket) {
        return layout.startNanos(layout.ticketEpoch(ticket) + layout.span + 1);
    }

    @Override
    public boolean refund(long ticket, int permits) {
        layout.checkPermits(permits);
        if (ticket < 0) {
            return false;
        }
        if (layout.refund(cells, 0, ticket, permits)) {
            return true;
        }
        if (cells.get(0) < 0 && !layout.borrowing) {
            // Sealed: the permits were taken over, or counted by the successor, in its bucket where
            // the ticket's starts (the same one, over the same window; else perhaps a later one, and
            // a refund into an earlier bucket only makes the window count more once that bucket has
            // left it). Pending cells issued no tickets. Not from a borrowing window: a loan it made
            // sits, taken over, in a count that also stands for the window the loan was made in,
            // which a refund of it would lower below what that window admitted (and a ticket does
            // not tell such a loan from an admission handed on): kept, conservative.
            // Only if this window, at the old bucket in which that bucket of the successor ends,
            // still counted the ticket's bucket: the takeover placed what it counted no earlier
            // than that bucket, so it counted no later bucket of this window. An admission this
            // window had already forgotten was not taken over, and where the successor's buckets
            // are longer than this window its refund would lower the successor's count of other
            // admissions. (A handed-on admission's refund is then kept too: conservative.)
            // And only if the takeover carried the ticket's bucket (it carried what this window
            // counted then): the successor's bucket may also hold what it carried of later buckets,
            // where its buckets are longer than this window (found by a review helper: a refund after
            // a wait lowered the count of an admission taken over, and a strict window admitted N + 1).
            LeapCounter to = succession.successor();
            long own = layout.ticketEpoch(ticket);
            long epoch = to == null ? 0 : to.layout.epochAt(layout.startNanos(own));
            long carried = succession.carriedFrom(); // none yet: the takeover is under way, and carried nothing
            if (to != null
                    && carried != Long.MIN_VALUE
                    && own >= carried
                    && own >= layout.epochAt(to.layout.startNanos(epoch + 1) - 1) - layout.span) {
                return to.refund(to.layout.pack(epoch, 0), Math.min(permits, (int) to.layout.limit));
            }
        }
        return false;
    }

    @Override
    public long used(long nowNanos) {
        LeapCounter to = current(nowNanos);
        return to == this ? layout.used(cells, 0, nowNanos) : to.used(nowNanos);
    }

    @Override
    public long nanosUntilAvailable(long nowNanos, long permits) {
        LeapCounter to = current(nowNanos);
        return to == this
                ? layout.nanosUntilAvailable(cells, 0, nowNanos, permits)
                : to.nanosUntilAvailable(nowNanos, permits);
    }

    /**
     * As its successor answers, once one took these cells over: with its own limit, which a
     * reload may have lowered below this one's (see {@link RateCounter#nanosUntilEmpty}).
     */
    @Override
    public long nanosUntilEmpty(long nowNanos) {
        LeapCounter to = current(nowNanos);
        return to == this ? layout.nanosUntilAvailable(cells, 0, nowNanos, layout.limit) : to.nanosUntilEmpty(nowNanos);
    }

    @Override
    Succession<LeapCounter> succession() {
        return succession;
    }

    /** Cells that are neither pending nor sealed have a head of 0 or more. */
    @Override
    boolean decides() {
        return cells.get(0) >= 0;
    }

    @Override
    void seal() {
        for (long head = cells.get(0); head >= 0; head = cells.get(0)) {
            if (cells.compareAndSet(0, head, head | PackedWindow.SEAL)) {
                return;
            }
        }
    }

    /** All that the sealed cells count at {@code nowNanos}, as this layout's head (see {@link #withLimit}). */
    @Override
    void goOnFrom(LeapCounter sealed, long nowNanos) {
        // Noted before the new head is published, which a refund handed on has to see first.
        sealed.succession.carriedFrom(sealed.layout.oldestRemembered(sealed.cells, 0, nowNanos));
        long remembered = layout.adopt(sealed.layout, sealed.layout.remember(sealed.cells, 0, nowNanos));
        long head = layout.counts(remembered, nowNanos) ? layout.restoredHead(remembered) : 0;
        cells.compareAndSet(0, PENDING, head);
    }

    @Override
    public String toString() {
        return "LeapCounter[" + layout.limit + " per " + layout.spec + "]";
    }

    /**
     * The head of cells that have not yet taken over what they go on from: sealed (negative), and
     * never the head of sealed cells, whose other bits are a real head's.
     */
    private static final long PENDING = -1L;
}
