package dev.leapgate.internal.counter;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A concurrency limit per origin ("at most N requests in flight for each client IP"), in a bounded
 * {@link OriginTable} of one {@code long} per origin. An origin with requests in flight is never
 * evicted, so every release finds the count it belongs to; origins with none in flight are dropped
 * as the table needs room.
 *
 * <p>Concurrency: as {@link OriginTable}; acquiring is a CAS loop that never lets an origin's count
 * exceed the limit.
 */
public final class KeyedInFlightCounter {

    private final long limit;
    private final OriginTable table;

    private static final OriginTable.State STATE = new OriginTable.State() {
        @Override
        public int stride() {
            return 1;
        }

        @Override
        public long pressure(AtomicLongArray cells, int base, long nowNanos) {
            return cells.get(base);
        }

        @Override
        public long saturation() {
            return 1; // any request in flight pins the entry
        }
    };

    private final OriginTable.Op acquire;
    /** {@link #acquire}'s refusal, told by reading alone; else {@link OriginTable#UNDECIDED}. */
    private final OriginTable.Op refuses;

    private static final OriginTable.Op RELEASE = (cells, base, now, permits, unused) -> {
        long after = cells.addAndGet(base, -permits);
        if (after < 0) {
            cells.addAndGet(base, permits);
            return -1;
        }
        return after;
    };

    private static final OriginTable.Op GET = (cells, base, now, unused1, unused2) -> cells.get(base);

    /** @throws IllegalArgumentException if {@code limit} or {@code maxOrigins} is below 1 */
    public KeyedInFlightCounter(long limit, int maxOrigins) {
        this(limit, new OriginTable(STATE, maxOrigins));
    }

    private KeyedInFlightCounter(long limit, OriginTable table) {
        if (limit < 1) {
            throw new IllegalArgumentException("concurrency limit must be at least 1, was " + limit);
        }
        this.limit = limit;
        this.table = table;
        this.acquire = (cells, base, now, permits, unused) -> {
            for (; ; ) {
                long current = cells.get(base);
                if (current + permits > limit) {
                    return 0;
                }
                if (cells.compareAndSet(base, current, current + permits)) {
                    return 1;
                }
            }
        };
        this.refuses =
                (cells, base, now, permits, unused) -> cells.get(base) + permits > limit ? 0 : OriginTable.UNDECIDED;
    }

    /**
     * A counter of {@code limit} per origin over this one's table (and its {@code maxOrigins}):
     * both count the same permits, so the requests in flight when a limit changes keep counting
     * against the new one, and their releases reach it.
     *
     * @throws IllegalArgumentException if {@code limit} is below 1
     */
    public KeyedInFlightCounter withLimit(long limit) {
        return new KeyedInFlightCounter(limit, table);
    }

    public long limit() {
        return limit;
    }

    /** The most origins tracked at once. */
    public int maxOrigins() {
        return table.maxOrigins();
    }

    /**
     * Takes {@code permits} for {@code origin} if they fit.
     *
     * @return 1 if taken, 0 if the origin is at its limit, {@link KeyedRateCounter#UNTRACKED} if the
     *     origin is new and the table is full of origins with requests in flight
     */
    public long tryAcquire(long origin, int permits) {
        return table.apply(origin, 0, permits, 0, acquire, refuses, 0, true);
    }

    /**
     * Gives back permits taken by {@link #tryAcquire}.
     *
     * @throws IllegalStateException if the origin holds fewer permits (a double release)
     */
    public void release(long origin, int permits) {
        long after = table.apply(origin, 0, permits, 0, RELEASE, false);
        if (after < 0) {
            throw new IllegalStateException("released " + permits + " permits for an origin that holds fewer:"
                    + " an acquisition was released twice");
        }
    }

    /** Permits the origin holds now (read without the segment's lock, as a refusal is). */
    public long inFlight(long origin) {
        long result = table.apply(origin, 0, 0, 0, GET, GET, false);
        return result == OriginTable.ABSENT ? 0 : result;
    }

    /** Origins tracked now. */
    public int trackedOrigins() {
        return table.size();
    }

    /** Origins at their limit at {@code nowNanos}: a scan of the table, for monitoring. */
    public int limitedOrigins(long nowNanos) {
        return table.countAtLeast(limit, nowNanos);
    }

    /** Whether any origin holds a permit at {@code nowNanos}: a scan of the table, never on the request path. */
    public boolean holdsAny(long nowNanos) {
        return table.countAtLeast(1, nowNanos) > 0;
    }

    /** Origins evicted to make room for new ones, since the counter was made. */
    public long evictions() {
        return table.evictions();
    }

    @Override
    public String toString() {
        return "KeyedInFlightCounter[" + limit + " in flight per origin, " + table.size() + " tracked]";
    }
}
