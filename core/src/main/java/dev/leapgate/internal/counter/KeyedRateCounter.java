package dev.leapgate.internal.counter;

import dev.leapgate.rule.WindowSpec;
import java.util.Objects;

/**
 * One exact rate window per origin ("at most N per W for each client IP"), in a bounded table: see
 * {@link OriginTable} for the memory layout, the bound and what a flood of one-off origins does.
 * Limits are kept in a {@link NarrowWindow}, whose buckets take 8 bits (limits up to 255), 16 (up
 * to 65,535) or 32 (up to {@link NarrowWindow#maxLimit}, 67,108,863 at the default window);
 * larger limits and borrowing in a {@link PackedWindow}, a 64-bit word per bucket. Both decide
 * exactly as {@link LeapCounter} does.
 *
 * <p>Per origin: the state's longs (a narrow strict window of {@code n} buckets: 1 + {@code
 * ceil(n / 8)}, 1 + {@code ceil(n / 4)} or 1 + {@code ceil(n / 2)}; a packed one {@code n + 3}), 8 bytes of key, and an
 * index slot of 8 bytes kept at most three quarters full, in arrays that grow by half: about 38
 * bytes an origin for a strict 2-bucket window and 55 for the default 10 with a limit above 255, at
 * a million origins. An origin evicted from a full table leaves what its window counts in the
 * table's memory of evicted origins, and starts from it when it comes back (see {@link
 * OriginTable}): the limit holds for every origin, tracked or not.
 *
 * <p>A counter made by {@link #withLimit} with a table of its own takes each origin over from
 * this one's table when it first sees it (see {@link OriginTable#handOver}), while threads that read
 * the rules before the reload may still call this counter. From the first such hand-over this
 * table is retired: a call for an origin it no longer holds (taken over, or never seen) is handed on
 * to the counter on the new table, with that table's limit and window (as {@link LeapCounter}
 * hands every call on once taken over), so a decision or a read on this counter is the new
 * version's, never a refusal as {@link #UNTRACKED}. An origin this table still holds is decided
 * here, and taken over with what it counts then. The hand-on is found by the result of the
 * table's own lookup: the path of a tracked origin reads nothing more.
 *
 * <p>Concurrency: as {@link OriginTable}; the admission itself is one CAS, exact under any
 * concurrency (a narrow window's move to a new bucket holds that origin's window for a few stores).
 * A call handed on holds no lock of this table while it works on the new one: locks are taken from
 * the newer table to the older only.
 */
public final class KeyedRateCounter {

    /** Returned by {@link #tryAcquire} when the origin could not be tracked: the table is full of origins being limited. */
    public static final long UNTRACKED = OriginTable.FULL;

    private final RateWindow layout;
    private final OriginTable table;
    private final OriginTable.Op acquire;
    /** {@link #acquire}'s rejection, told by reading alone; else {@link OriginTable#UNDECIDED}. */
    private final OriginTable.Op rejects;

    private final OriginTable.Op refund;
    private final OriginTable.Op used;
    private final OriginTable.Op untilAvailable;
    /**
     * The counter on the table that took this one's over, with that table's current state, to
     * which calls for origins this table no longer holds are handed on; made at the first such
     * call (and again if that table's state changes), null until then. A racing second one is
     * equal.
     */
    private volatile KeyedRateCounter heir;

    /**
     * @param maxOrigins the most origins tracked at once
     * @throws IllegalArgumentException for a limit out of range (see {@link LeapCounter#maxLimit})
     *     or {@code maxOrigins} below 1
     */
    public KeyedRateCounter(WindowSpec window, long limit, long originNanos, int maxOrigins) {
        this(window, limit, originNanos, maxOrigins, false);
    }

    /** As the four-argument constructor; with {@code borrowing}, origins may borrow from the next bucket. */
    public KeyedRateCounter(WindowSpec window, long limit, long originNanos, int maxOrigins, boolean borrowing) {
        this(layout(Objects.requireNonNull(window, "window"), limit, originNanos, borrowing), maxOrigins);
    }

    private KeyedRateCounter(RateWindow layout, int maxOrigins) {
        this(layout, new OriginTable(layout, maxOrigins));
    }

    private KeyedRateCounter(RateWindow layout, OriginTable table) {
        this.layout = layout;
        this.table = table;
        RateWindow w = layout;
        this.acquire = (cells, base, now, permits, maxWait) -> w.tryAcquire(cells, base, now, (int) permits, maxWait);
        this.rejects = (cells, base, now, permits, maxWait) ->
                w.rejectsNow(cells, base, now, (int) permits, maxWait) ? RateCounter.REJECTED : OriginTable.UNDECIDED;
        this.refund = (cells, base, now, ticket, permits) -> {
            return w.refund(cells, base, ticket, (int) permits) ? 1 : 0;
        };
        this.used = (cells, base, now, unused1, unused2) -> w.used(cells, base, now);
        this.untilAvailable = (cells, base, now, permits, unused) -> w.nanosUntilAvailable(cells, base, now, permits);
    }

    private static RateWindow layout(WindowSpec window, long limit, long originNanos, boolean borrowing) {
        return borrowing || limit > NarrowWindow.maxLimit(window)
                ? new PackedWindow(window, limit, originNanos, borrowing)
                : new NarrowWindow(window, limit, originNanos);
    }

    /**
     * A counter of {@code limit} per {@code window} per origin (borrowing or not, tracking up to
     * {@code maxOrigins}) that starts from what this one counts. When the windows keep their layout
     * (the same window, the limit within the same bucket width, borrowing and {@code maxOrigins}
     * unchanged), the two share this one's table: every origin's admissions through either count
     * against both limits, exactly. Otherwise the new counter has a table of its own, and an origin
     * entering it starts from all that this one counts for it, as if counted at {@code nowNanos}
     * (or at its last admission here, if later), which only errs on the strict side, for one
     * window (a longer window cannot know what this one has already forgotten); it stops asking
     * this one once this one's window has passed.
     *
     * @throws IllegalArgumentException for a limit out of range or {@code maxOrigins} below 1
     */
    public KeyedRateCounter withLimit(WindowSpec window, long limit, boolean borrowing, int maxOrigins, long nowNanos) {
        // Over the same window, buckets never narrower than this one's: a lower limit keeps the
        // table, and a client over it keeps all it counted, should the limit be raised again
        // within the window.
        RateWindow next = !window.equals(layout.spec)
                ? layout(window, limit, layout.originNanos, borrowing)
                : borrowing || limit > NarrowWindow.maxLimit(window) || !(layout instanceof NarrowWindow narrow)
                        ? new PackedWindow(layout.spec, limit, layout.originNanos, borrowing)
                        : new NarrowWindow(layout.spec, limit, layout.originNanos, narrow.laneBits);
        if (next.sameCellsAs(layout) && maxOrigins == table.maxOrigins()) {
            table.adopt(next);
            return new KeyedRateCounter(next, table);
        }
        KeyedRateCounter counter = new KeyedRateCounter(next, maxOrigins);
        table.letGoOfPassed(nowNanos); // so that the new table keeps only tables whose windows count
        // Until its windows have passed, and a second more for an operation that began on it just
        // before the new table came into force and was held up.
        long windowNanos = (layout.span + 3L) * layout.bucketNanos + 1_000_000_000L;
        counter.table.inherit(new HandOver(table, layout, next, nowNanos), nowNanos + windowNanos);
        return counter;
    }

    /**
     * What {@code table}, whose windows are laid out as {@code from}, counts for an origin, as a
     * word of {@code to}: handed over as at {@code supersededNanos}, the reload (see {@link
     * OriginTable#handOver}).
     */
    private record HandOver(OriginTable table, RateWindow from, RateWindow to, long supersededNanos)
            implements OriginTable.Inheritance {
        @Override
        public long handOver(long key, long[] reading, OriginTable heir) {
            return to.adopt(from, table.handOver(key, reading, supersededNanos, heir));
        }

        @Override
        public long peek(long key, long nowNanos) {
            return to.adopt(from, table.peek(key, nowNanos, supersededNanos));
        }
    }

    /** The counter on the table that took this one's over (the table is {@link OriginTable#RETIRED}). */
    private KeyedRateCounter heir() {
        OriginTable next = table.successor();
        KeyedRateCounter counter = heir;
        // The state the successor's table has now: that of the rule's version in force there (a
        // later reload over the same windows adopts its own).
        if (counter == null || counter.layout != next.state()) {
            counter = new KeyedRateCounter((RateWindow) next.state(), next);
            heir = counter;
        }
        return counter;
    }

    /** Whether the table tracks the origin now (not only remembers it); for tests. */
    boolean tracks(long origin) {
        return table.apply(origin, 0, 0, 0, used, false) != OriginTable.ABSENT;
    }

    /** Tables this counter's keeps alive: its own and those it (still) takes clients over from; for tests. */
    int tablesKept() {
        return table.tablesKept();
    }

    public WindowSpec window() {
        return layout.spec;
    }

    public long limit() {
        return layout.limit;
    }

    /**
     * Checks that {@code permits} fit in the window of {@code origin} and counts them, as one atomic
     * step.
     *
     * @return a ticket ({@code >= 0}) when admitted, {@link RateCounter#REJECTED}, or {@link
     *     #UNTRACKED} when the origin is new and no room could be made for it
     */
    public long tryAcquire(long origin, long nowNanos, int permits) {
        return tryAcquire(origin, nowNanos, permits, -1);
    }

    /** As {@link RateCounter#tryAcquire(long, int, long)}, for one origin. */
    public long tryAcquire(long origin, long nowNanos, int permits, long maxWaitNanos) {
        layout.checkPermits(permits);
        long ticket = table.apply(
                origin,
                nowNanos,
                permits,
                layout.borrowing ? maxWaitNanos : -1,
                acquire,
                rejects,
                RateCounter.REJECTED,
                true);
        return ticket != OriginTable.RETIRED ? ticket : heirTryAcquire(origin, nowNanos, permits, maxWaitNanos);
    }

    /**
     * {@link #tryAcquire} for an origin this retired table does not hold: decided by the counter on
     * the table that took it over, with that counter's limit and window.
     */
    private long heirTryAcquire(long origin, long nowNanos, int permits, long maxWaitNanos) {
        KeyedRateCounter to = heir();
        if (permits > to.layout.limit) {
            return RateCounter.REJECTED; // more than the new limit: they never fit
        }
        long ticket = to.tryAcquire(origin, nowNanos, permits, layout.borrowing ? maxWaitNanos : -1);
        if (ticket < 0) {
            return ticket;
        }
        // The ticket in this layout, which the caller reads: the bucket in which the successor's
        // starts, where the permits are counted (a later one than now's where the client's window
        // there was already further on: taken over into a later bucket, or by a later reading);
        // a remaining count above what this layout's count bits hold as the most they hold. For a
        // caller that may borrow, a later bucket than now's is a loan to wait for: not from a
        // successor that never lends (as in LeapCounter).
        long epoch = layout.epochAt(to.layout.startNanos(to.layout.ticketEpoch(ticket)));
        if (layout.borrowing && !to.layout.borrowing) {
            epoch = Math.min(epoch, layout.epochAt(nowNanos));
        }
        return layout.pack(epoch, Math.min(to.layout.ticketRemaining(ticket), layout.countMask));
    }

    /** As {@link RateCounter#ticketStartNanos}. */
    public long ticketStartNanos(long ticket) {
        return layout.startNanos(layout.ticketEpoch(ticket));
    }

    /** The permits that remained in the origin's window right after the admission of {@code ticket}. */
    public long remainingAfter(long ticket) {
        return layout.ticketRemaining(ticket);
    }

    /**
     * Returns an admission's permits; see {@link RateCounter#refund}. Not once the origin was taken
     * over by another table (a ticket does not tell an admission made here from one handed on): the
     * permits stay counted there, which errs on the strict side, for one window at most.
     *
     * @return whether the origin's window counts the permits no more because of this refund
     */
    public boolean refund(long origin, long ticket, int permits) {
        layout.checkPermits(permits);
        return ticket >= 0 && table.apply(origin, 0, ticket, permits, refund, false) == 1;
    }

    /** As {@link RateCounter#ticketEndNanos}. */
    public long ticketEndNanos(long ticket) {
        return layout.startNanos(layout.ticketEpoch(ticket) + layout.span + 1);
    }

    /**
     * Permits counted in the origin's window at {@code nowNanos}; for an origin not tracked, in the
     * window it would start from if it came now (what an evicted origin left: see {@link
     * OriginTable#read}), 0 if none.
     */
    public long used(long origin, long nowNanos) {
        long result = table.read(origin, nowNanos, 0, 0, used);
        return result == OriginTable.RETIRED
                ? heir().used(origin, nowNanos)
                : result == OriginTable.ABSENT ? 0 : result;
    }

    /**
     * As {@link RateCounter#nanosUntilAvailable}, for one origin, tracked or not (as {@link #used}):
     * for an origin that another table took over, that table's answer, with its limit.
     */
    public long nanosUntilAvailable(long origin, long nowNanos, int permits) {
        if (permits > layout.limit) {
            return Long.MAX_VALUE;
        }
        long result = table.read(origin, nowNanos, permits, 0, untilAvailable);
        return result == OriginTable.RETIRED
                ? heir().nanosUntilAvailable(origin, nowNanos, permits)
                : result == OriginTable.ABSENT ? 0 : result;
    }

    /**
     * Nanoseconds until the origin's window counts nothing, as {@link #used} reads it: for an origin
     * that another table took over, asked of that table with its own limit, which a reload may
     * have lowered below this one's (see {@link RateCounter#nanosUntilEmpty}).
     */
    public long nanosUntilEmpty(long origin, long nowNanos) {
        long result = table.read(origin, nowNanos, layout.limit, 0, untilAvailable);
        return result == OriginTable.RETIRED
                ? heir().nanosUntilEmpty(origin, nowNanos)
                : result == OriginTable.ABSENT ? 0 : result;
    }

    /** Origins tracked now. */
    public int trackedOrigins() {
        return table.size();
    }

    /** Origins at their limit at {@code nowNanos}: a scan of the table, for monitoring. */
    public int limitedOrigins(long nowNanos) {
        return table.countAtLeast(layout.limit, nowNanos);
    }

    /** Origins evicted to make room for new ones, since the counter was made. */
    public long evictions() {
        return table.evictions();
    }

    /** The most origins tracked at once. */
    public int maxOrigins() {
        return table.maxOrigins();
    }

    /** Bytes held by the table's arrays now. */
    public long footprintBytes() {
        return table.footprintBytes();
    }

    @Override
    public String toString() {
        return "KeyedRateCounter[" + layout.limit + " per " + layout.spec + " per origin, " + table.size()
                + " tracked]";
    }
}
