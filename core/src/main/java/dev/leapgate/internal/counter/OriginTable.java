package dev.leapgate.internal.counter;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.StampedLock;

/**
 * A bounded table of per-origin admission state: for each origin key (a {@code long}: an IPv4
 * address, an IPv6 prefix, a hashed API key) a fixed number of {@code long} cells, stored inline
 * in one array, so that an origin costs its cells plus 9 bytes of key and occupancy, and nothing
 * else: no entry objects, no boxed keys.
 *
 * <h2>Layout</h2>
 *
 * The table is split into segments, each an open-addressing hash table with linear probing over
 * parallel arrays: {@code keys[slot]}, {@code used[slot]}, and {@code cells[slot * stride ...]}.
 * Keys are spread by a seeded mix (a fresh random seed per table), so a client cannot pick
 * addresses that collide. Deletion shifts the following entries back (no tombstones). A segment
 * grows by half when three quarters full, up to its share of {@code maxOrigins} (with some slack,
 * as keys never spread evenly), so the arrays stay between one half and three quarters full.
 *
 * <h2>Bounded, without a background thread</h2>
 *
 * Every insertion also sweeps two slots ahead of a cursor and deletes entries that are idle (their
 * state no longer counts anything), so the table tracks the origins that are active, and shrinks
 * when most of a segment is free. When the table holds {@code maxOrigins} origins (or a segment
 * its share), the new origin takes the place of an existing one in its segment: of up to {@link #EVICTION_SAMPLE} entries sampled,
 * the first idle one, else the one under the least pressure (fewest permits counted). An entry
 * at or above its {@link State#saturation() saturation} (a client being limited right now, or one
 * with requests in flight) is never evicted; if every sampled entry is saturated, the new origin
 * is not tracked and the caller is told so ({@link #FULL}). A flood of one-off origins therefore
 * neither grows the table past its bound nor resets the state of a client that is being limited.
 *
 * <p>Concurrency: each segment has a {@link StampedLock}. Operations on an existing entry take
 * the read lock, so any number of threads work on one segment at once, and update the cells with
 * the state's own compare-and-swap; inserting, deleting and resizing take the write lock, so an
 * entry can never be moved or reused while a thread works on its cells. The lock is not held
 * across anything that blocks.
 */
final class OriginTable {

    /** What the cells of one origin mean: the counter algorithm stored in them. */
    interface State {
        /** Longs per origin. */
        int stride();

        /**
         * How much the entry holds at {@code nowNanos}: 0 when idle (it may be dropped and
         * recreated empty without changing any decision).
         */
        long pressure(AtomicLongArray cells, int base, long nowNanos);

        /** Pressure at which an entry must not be evicted. */
        long saturation();
    }

    /** An operation on one origin's cells. */
    interface Op {
        long apply(AtomicLongArray cells, int base, long nowNanos, long a, long b);
    }

    /** Returned when the origin is not in the table (and was not to be inserted). */
    static final long ABSENT = Long.MIN_VALUE;
    /** Returned when the origin could not be inserted: every candidate for eviction is saturated. */
    static final long FULL = Long.MIN_VALUE + 1;

    static final int EVICTION_SAMPLE = 16;
    private static final int SWEEP_PER_INSERT = 2;
    private static final int MIN_CAPACITY = 8;
    private static final int MAX_SEGMENTS = 1024;

    private final State state;
    private final int stride;
    private final int maxOrigins;
    private final long seed = ThreadLocalRandom.current().nextLong();
    private final Segment[] segments;
    private final int segmentShift;
    /**
     * Origins tracked in all segments, never more than {@code maxOrigins}: changed only under a
     * segment's write lock, but segments insert at once, so a new origin claims its place here by
     * compare-and-swap before it is inserted (a plain check would let two segments both take the
     * last place). An origin that replaces an evicted one takes over its place without a claim.
     */
    private final AtomicInteger tracked = new AtomicInteger();

    OriginTable(State state, int maxOrigins) {
        if (maxOrigins < 1) {
            throw new IllegalArgumentException("max-origins must be at least 1, was " + maxOrigins);
        }
        this.state = state;
        this.stride = state.stride();
        this.maxOrigins = maxOrigins;
        // About 256 origins a segment at least, at most 1024 segments. Many segments keep each
        // segment's arrays small: under G1, an array over half a region (1 MB with a 4 GB heap) is
        // a humongous object rounded up to whole regions, and 64 segments of a million origins
        // held 3 MB arrays that cost half as much again as their size.
        int count = Integer.highestOneBit(Math.max(1, Math.min(MAX_SEGMENTS, maxOrigins / 256)));
        this.segments = new Segment[count];
        // A segment may take a quarter more than its even share, since keys never spread evenly;
        // the bound that matters, maxOrigins, is kept across all segments by `tracked`.
        int share = maxOrigins / count + 1;
        for (int i = 0; i < count; i++) {
            segments[i] = new Segment((int) Math.min(maxOrigins, share + share / 4L + 16));
        }
        this.segmentShift = 64 - Integer.numberOfTrailingZeros(count);
    }

    /**
     * Applies {@code op} to the cells of {@code key}, inserting a fresh (all-zero) entry first if
     * {@code insert} is set and the key is absent.
     *
     * @return the operation's result, {@link #ABSENT} if the key is absent and not inserted, or
     *     {@link #FULL} if it could not be inserted
     */
    long apply(long key, long nowNanos, long a, long b, Op op, boolean insert) {
        long hash = mix(key);
        Segment segment = segments[segmentShift == 64 ? 0 : (int) (hash >>> segmentShift)];
        long stamp = segment.lock.readLock();
        try {
            int slot = segment.find(key, hash);
            if (slot >= 0) {
                return op.apply(segment.cells, slot * stride, nowNanos, a, b);
            }
        } finally {
            segment.lock.unlockRead(stamp);
        }
        if (!insert) {
            return ABSENT;
        }
        stamp = segment.lock.writeLock();
        try {
            int slot = segment.find(key, hash);
            if (slot < 0) {
                slot = segment.insert(key, hash, nowNanos);
                if (slot < 0) {
                    return FULL;
                }
            }
            return op.apply(segment.cells, slot * stride, nowNanos, a, b);
        } finally {
            segment.lock.unlockWrite(stamp);
        }
    }

    /** Origins tracked now. */
    int size() {
        return tracked.get();
    }

    int maxOrigins() {
        return maxOrigins;
    }

    /** Bytes of the table's arrays (keys, occupancy, cells, array headers) now. */
    long footprintBytes() {
        long bytes = 0;
        for (Segment segment : segments) {
            long stamp = segment.lock.readLock();
            try {
                int capacity = segment.keys.length;
                bytes += 16L + 8L * capacity + 16L + capacity + 16L + 8L * capacity * stride + 64; // + Segment, lock
            } finally {
                segment.lock.unlockRead(stamp);
            }
        }
        return bytes;
    }

    /** Murmur3's 64-bit finalizer over the seeded key: a bijection, so distinct keys never share a hash. */
    private long mix(long key) {
        long h = key ^ seed;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    /** One open-addressing table. Fields are guarded by {@code lock}; cells are also CAS-updated under the read lock. */
    private final class Segment {
        final StampedLock lock = new StampedLock();
        final int maxEntries;
        long[] keys;
        boolean[] used;
        AtomicLongArray cells;
        int size;
        int sweepCursor;

        Segment(int maxEntries) {
            this.maxEntries = Math.max(1, maxEntries);
            allocate(MIN_CAPACITY);
        }

        private void allocate(int capacity) {
            keys = new long[capacity];
            used = new boolean[capacity];
            cells = new AtomicLongArray(capacity * stride);
        }

        /** Home slot of a hash: the high bits scaled to the capacity (no power of two needed). */
        private int home(long hash) {
            return (int) (((hash & 0xffffffffL) * keys.length) >>> 32);
        }

        private int next(int slot) {
            return slot + 1 == keys.length ? 0 : slot + 1;
        }

        int find(long key, long hash) {
            for (int slot = home(hash); used[slot]; slot = next(slot)) {
                if (keys[slot] == key) {
                    return slot;
                }
            }
            return -1;
        }

        /** Inserts an absent key with zeroed cells; returns its slot, or -1 if it may not. Write lock held. */
        int insert(long key, long hash, long nowNanos) {
            sweep(nowNanos);
            if (size >= maxEntries || !claimPlace()) {
                int victim = evictionCandidate(nowNanos);
                if (victim < 0) {
                    return -1;
                }
                remove(victim); // the new origin takes over the victim's place in `tracked`
            }
            if (size + 1 > keys.length * 3L / 4) {
                resize(Math.min(capacityFor(maxEntries), Math.max(MIN_CAPACITY, keys.length + keys.length / 2)));
            }
            int slot = home(hash);
            while (used[slot]) {
                slot = next(slot);
            }
            keys[slot] = key;
            used[slot] = true;
            size++;
            return slot;
        }

        /** Claims a place for one more origin under {@code maxOrigins}; false if there is none. */
        private boolean claimPlace() {
            for (int claimed = tracked.get(); claimed < maxOrigins; claimed = tracked.get()) {
                if (tracked.compareAndSet(claimed, claimed + 1)) {
                    return true;
                }
            }
            return false;
        }

        /** Smallest capacity that holds {@code entries} at most three quarters full, plus one free slot. */
        private int capacityFor(int entries) {
            return (int) Math.min(Integer.MAX_VALUE / Math.max(1, stride), entries * 4L / 3 + 2);
        }

        /** Deletes idle entries in a few slots past the cursor; shrinks a mostly empty segment. */
        private void sweep(long nowNanos) {
            for (int i = 0; i < SWEEP_PER_INSERT; i++) {
                int slot = sweepCursor;
                sweepCursor = next(sweepCursor);
                if (used[slot] && state.pressure(cells, slot * stride, nowNanos) == 0) {
                    delete(slot);
                }
            }
            if (keys.length > MIN_CAPACITY * 4 && size < keys.length / 4) {
                resize(Math.max(MIN_CAPACITY, size * 2));
            }
        }

        /** The slot of the best entry to evict, of a sample; -1 if all sampled are saturated (or none). */
        private int evictionCandidate(long nowNanos) {
            int start = ThreadLocalRandom.current().nextInt(keys.length);
            int victim = -1;
            long least = Long.MAX_VALUE;
            int sampled = 0;
            for (int i = 0, slot = start; i < keys.length && sampled < EVICTION_SAMPLE; i++, slot = next(slot)) {
                if (!used[slot]) {
                    continue;
                }
                sampled++;
                long pressure = state.pressure(cells, slot * stride, nowNanos);
                if (pressure < least) {
                    least = pressure;
                    victim = slot;
                    if (pressure == 0) {
                        break;
                    }
                }
            }
            return victim < 0 || least >= state.saturation() ? -1 : victim;
        }

        /** Deletes the entry at {@code slot}: the table tracks one origin less. */
        private void delete(int slot) {
            remove(slot);
            tracked.decrementAndGet();
        }

        /** Removes the entry at {@code slot}, shifting later entries of its probe run back. */
        private void remove(int slot) {
            int hole = slot;
            for (int probe = next(hole); used[probe]; probe = next(probe)) {
                int home = home(mix(keys[probe]));
                // Move the entry into the hole unless its home lies cyclically in (hole, probe].
                boolean homeBetween = hole <= probe ? (home > hole && home <= probe) : (home > hole || home <= probe);
                if (!homeBetween) {
                    move(probe, hole);
                    hole = probe;
                }
            }
            used[hole] = false;
            keys[hole] = 0;
            clearCells(hole);
            size--;
        }

        private void move(int from, int to) {
            keys[to] = keys[from];
            used[to] = true;
            for (int i = 0; i < stride; i++) {
                cells.set(to * stride + i, cells.get(from * stride + i));
            }
        }

        private void clearCells(int slot) {
            for (int i = 0; i < stride; i++) {
                cells.set(slot * stride + i, 0);
            }
        }

        private void resize(int capacity) {
            if (capacity == keys.length) {
                return;
            }
            long[] oldKeys = keys;
            boolean[] oldUsed = used;
            AtomicLongArray oldCells = cells;
            allocate(capacity);
            for (int from = 0; from < oldKeys.length; from++) {
                if (!oldUsed[from]) {
                    continue;
                }
                int to = home(mix(oldKeys[from]));
                while (used[to]) {
                    to = next(to);
                }
                keys[to] = oldKeys[from];
                used[to] = true;
                for (int i = 0; i < stride; i++) {
                    cells.set(to * stride + i, oldCells.get(from * stride + i));
                }
            }
            sweepCursor = 0;
        }
    }
}
