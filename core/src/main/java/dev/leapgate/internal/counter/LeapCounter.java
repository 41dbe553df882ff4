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
 */
public final class LeapCounter implements RateCounter {

    private final PackedWindow layout;
    private final AtomicLongArray cells;

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
        this(layout, new AtomicLongArray(layout.cellsPerCounter()));
    }

    private LeapCounter(PackedWindow layout, AtomicLongArray cells) {
        this.layout = layout;
        this.cells = cells;
    }

    /**
     * A counter of {@code limit} (borrowing or not) that starts from what this one counts at {@code
     * nowNanos}. With the same borrowing, the two count in the same cells: every admission through
     * either is counted against both limits, exactly, and refunds reach it. Otherwise the new one
     * holds, from the first, all that this one counts, as if counted in the current bucket (which
     * only errs on the strict side for one window).
     *
     * @throws IllegalArgumentException if {@code limit} is below 1 or too large for the window
     */
    public LeapCounter withLimit(long limit, boolean borrowing, long nowNanos) {
        PackedWindow next = new PackedWindow(layout.spec, limit, layout.originNanos, borrowing);
        if (borrowing == layout.borrowing) {
            return new LeapCounter(next, cells);
        }
        LeapCounter counter = new LeapCounter(next);
        next.restore(counter.cells, 0, next.adopt(layout, layout.remember(cells, 0, nowNanos)), nowNanos);
        return counter;
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
        layout.checkPermits(permits);
        return layout.tryAcquire(cells, 0, nowNanos, permits);
    }

    @Override
    public long tryAcquire(long nowNanos, int permits, long maxWaitNanos) {
        layout.checkPermits(permits);
        return layout.tryAcquire(cells, 0, nowNanos, permits, layout.borrowing ? maxWaitNanos : -1);
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
    public void refund(long ticket, int permits) {
        layout.checkPermits(permits);
        if (ticket >= 0) {
            layout.refund(cells, 0, ticket, permits);
        }
    }

    @Override
    public long used(long nowNanos) {
        return layout.used(cells, 0, nowNanos);
    }

    @Override
    public long nanosUntilAvailable(long nowNanos, long permits) {
        return layout.nanosUntilAvailable(cells, 0, nowNanos, permits);
    }

    @Override
    public String toString() {
        return "LeapCounter[" + layout.limit + " per " + layout.spec + "]";
    }
}
