package dev.leapgate.internal.counter;

import dev.leapgate.rule.WindowSpec;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The per-origin layout of an exact leap-array window: buckets of 8 bits (limits up to 255), 16
 * bits (up to 65,535) or 32 bits (up to {@link #maxLimit}, 67,108,863 with the default 100 ms
 * buckets) instead of {@link PackedWindow}'s 64, so that a table of a million clients holds a
 * default window (10 buckets) in 3, 4 or 6 longs per client instead of 13. Same windows, same
 * promise; the price is a short lock per client while its window moves on to a new bucket.
 *
 * <h2>Layout</h2>
 *
 * <pre>
 *   cells[base]            head: epoch | rolling bit | count of the newest bucket
 *   cells[base + 1 ...]    ring: the span buckets before the head's, as lanes of 8, 16 or 32 bits,
 *                          bucket e in lane e % span; no epochs
 * </pre>
 *
 * The ring holds no epochs because it always holds exactly the window's past: while the head is at
 * epoch {@code e}, lane {@code y % span} holds bucket {@code y} for every {@code y} in {@code [e -
 * span, e - 1]} (0 for a bucket nothing was counted in). So an admission at the head's epoch reads
 * the head and the ring's 1 to 5 words, adds the lanes of each word with one multiplication (the
 * lanes sum to at most the limit, which fits a lane, so no carry crosses a lane), and counts its
 * permits into the head with one compare-and-swap if they fit: a successful CAS proves the head,
 * and with it the ring, did not change meanwhile.
 *
 * <h2>Moving on to a new bucket</h2>
 *
 * A thread whose clock reading is past the head's bucket sets the head's rolling bit by CAS, which
 * is a lock on this one window: it writes the old head's count into its lane, zeroes the lanes of
 * the buckets skipped since (all of them after more than a window of silence), and releases the
 * lock by writing the new head, with its own permits counted if they fit. Every other operation on
 * the window waits while the bit is set (spinning briefly, then yielding); it is held for a few
 * stores, at most once per bucket length per window, and only by a thread already inside the
 * table's read lock. A refund into a past bucket takes the same lock. Only the lock holder writes
 * the ring; a thread that read it while a roll was under way finds out, because the head changed:
 * its CAS fails, and a rejection or a read-only answer is checked against the head read again. A
 * refund into a past bucket writes the same head back, so it goes unseen that way; it only lowers
 * one lane, so a reading that took the lane before it counts more than the window does (a
 * rejection or a count that errs on the safe side), and a wait reads each lane once.
 *
 * <h2>Sizes</h2>
 *
 * Lanes are 8 bits for a limit up to 255, 16 bits up to 65,535 and 32 bits above (a larger limit
 * than {@link #maxLimit} uses {@link PackedWindow}). The head packs {@code epoch} above a rolling
 * bit above a count of {@code countBits}: the lane's width for 8 and 16 bits, which leaves at
 * least 46 bits of epoch, enough for 2<sup>62</sup> ns at 1 ms buckets; for 32-bit lanes, one bit
 * less than {@link PackedWindow} gives a count ({@code min(30, floor(log2(b)))}), so that the
 * epoch of 2<sup>62</sup> ns of uptime, the rolling bit and the count fit 63 bits, as do a
 * ticket's epoch and count. A strict window of 10 buckets takes 1 + 2 longs (8-bit lanes), 1 + 3
 * (16-bit) or 1 + 5 (32-bit); 2 buckets take 2 longs. A sliding window of 1 bucket (a fixed
 * window) has no ring.
 */
final class NarrowWindow extends RateWindow {

    private static final int RING = 1;
    /** Waits on a rolling window spent spinning before each further one yields the processor. */
    private static final int SPINS = 64;

    /** Bits of a lane: 8, 16 or 32; for 8 and 16 also the head's count bits. */
    final int laneBits;

    private final long laneMask;
    /** {@code log2(laneBits)}. */
    private final int laneShift;
    /** {@code log2} of the lanes in a word. */
    private final int lanesLog;

    private final int laneIndexMask;
    /** Multiplying a word by this puts the sum of its lanes in the top lane. */
    private final long lanesSum;

    private final int ringWords;
    private final long rolling;
    private final int headEpochShift;

    /** @throws IllegalArgumentException unless {@code 1 <= limit <=} {@link #maxLimit} */
    NarrowWindow(WindowSpec spec, long limit, long originNanos) {
        this(spec, limit, originNanos, 8);
    }

    /**
     * A window whose lanes have at least {@code minLaneBits} (8, 16 or 32), and as many as the
     * limit needs.
     *
     * @throws IllegalArgumentException unless {@code 1 <= limit <=} {@link #maxLimit}
     */
    NarrowWindow(WindowSpec spec, long limit, long originNanos, int minLaneBits) {
        super(spec, checkLimit(spec, limit), originNanos, false, countBits(spec, laneBits(limit, minLaneBits)));
        this.laneBits = laneBits(limit, minLaneBits);
        this.laneMask = (1L << laneBits) - 1;
        this.laneShift = Integer.numberOfTrailingZeros(laneBits);
        this.lanesLog = 6 - laneShift;
        this.laneIndexMask = (1 << lanesLog) - 1;
        this.lanesSum = switch (laneBits) {
            case 8 -> 0x0101_0101_0101_0101L;
            case 16 -> 0x0001_0001_0001_0001L;
            default -> 0x0000_0001_0000_0001L;
        };
        this.ringWords = (span + laneIndexMask) >>> lanesLog;
        this.rolling = 1L << countBits;
        this.headEpochShift = countBits + 1;
    }

    private static int laneBits(long limit, int minLaneBits) {
        if (limit <= 0xFF && minLaneBits <= 8) {
            return 8;
        }
        return limit <= 0xFFFF && minLaneBits <= 16 ? 16 : 32;
    }

    /** The head's count bits: the lane's width, or for 32-bit lanes what the epoch leaves (see the class comment). */
    private static int countBits(WindowSpec spec, int laneBits) {
        return laneBits < 32 ? laneBits : PackedWindow.countBits(spec.bucketNanos(), false) - 1;
    }

    /**
     * The largest limit a narrow window with this window's bucket length holds: 2<sup>19</sup> - 1
     * with 1 ms buckets, 2<sup>26</sup> - 1 with 100 ms buckets (the default window's), 2<sup>29</sup>
     * - 1 with 1 s buckets, 2<sup>30</sup> - 1 from 2<sup>30</sup> ns (about 1.07 s) on.
     */
    static long maxLimit(WindowSpec spec) {
        return (1L << countBits(spec, 32)) - 1;
    }

    private static long checkLimit(WindowSpec spec, long limit) {
        long maxLimit = maxLimit(spec);
        if (limit < 1 || limit > maxLimit) {
            throw new IllegalArgumentException(
                    "a narrow window's limit must be between 1 and " + maxLimit + ", was " + limit);
        }
        return limit;
    }

    @Override
    int bucketBits() {
        return laneBits;
    }

    @Override
    public int stride() {
        return RING + ringWords;
    }

    // Head words: epoch | rolling | count.

    private long headEpoch(long head) {
        return head >>> headEpochShift;
    }

    private long headCount(long head) {
        return head & countMask;
    }

    private long packHead(long epoch, long count) {
        return (epoch << headEpochShift) | count;
    }

    /**
     * The head, once no thread holds the window's rolling bit: spinning briefly, then yielding the
     * processor, while one does.
     */
    private long settledHead(AtomicLongArray cells, int base) {
        for (int attempt = 0; ; attempt++) {
            long head = cells.get(base);
            if ((head & rolling) == 0) {
                return head;
            }
            if (attempt < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    // The ring: lane y % span holds bucket y.

    private long lane(AtomicLongArray cells, int base, long epoch) {
        int lane = (int) (epoch % span);
        long word = cells.get(base + RING + (lane >>> lanesLog));
        return (word >>> ((lane & laneIndexMask) << laneShift)) & laneMask;
    }

    /** Sets bucket {@code epoch}'s lane; only with the window's rolling bit held. */
    private void setLane(AtomicLongArray cells, int base, long epoch, long count) {
        int lane = (int) (epoch % span);
        int index = base + RING + (lane >>> lanesLog);
        int shift = (lane & laneIndexMask) << laneShift;
        long word = cells.getPlain(index);
        cells.setRelease(index, (word & ~(laneMask << shift)) | (count << shift));
    }

    /** The sum of the ring's lanes: the window's past while the head is at its epoch. */
    private long ringSum(AtomicLongArray cells, int base) {
        long sum = 0;
        for (int i = 0; i < ringWords; i++) {
            sum += (cells.get(base + RING + i) * lanesSum) >>> (64 - laneBits);
        }
        return sum;
    }

    @Override
    long tryAcquire(AtomicLongArray cells, int base, long nowNanos, int permits, long maxWaitNanos) {
        long now = -1;
        for (; ; ) {
            long head = settledHead(cells, base);
            long headEpoch = headEpoch(head);
            if (now < 0) {
                // Within the head's bucket (the common case) the epoch is known without a division.
                long intoHead = nowNanos - startNanos(headEpoch);
                now = intoHead >= 0 && intoHead < bucketNanos ? headEpoch : epochAt(nowNanos);
            }
            if (now <= headEpoch) {
                // The head is current (or newer than this thread's reading): count into it.
                long used = ringSum(cells, base) + headCount(head);
                if (used + permits > limit) {
                    if (cells.get(base) == head) {
                        return REJECTED;
                    }
                } else if (cells.compareAndSet(base, head, head + permits)) {
                    return pack(headEpoch, limit - used - permits);
                }
            } else if (cells.compareAndSet(base, head, head | rolling)) {
                return roll(cells, base, head, now, permits);
            }
            // Lost a race with another admission or roll: re-read; the window may have changed.
        }
    }

    @Override
    boolean rejectsNow(AtomicLongArray cells, int base, long nowNanos, int permits, long maxWaitNanos) {
        long head = cells.get(base);
        if ((head & rolling) != 0) {
            return false; // being rolled: tryAcquire waits for it
        }
        long intoHead = nowNanos - startNanos(headEpoch(head));
        // As tryAcquire decides with a current head, the ring read between two readings of it.
        return intoHead >= 0
                && intoHead < bucketNanos
                && ringSum(cells, base) + headCount(head) + permits > limit
                && cells.get(base) == head;
    }

    /**
     * Moves the window of {@code head} (whose rolling bit this thread has just set) on to epoch
     * {@code now}, counting {@code permits} into the new head if they fit, and releases it.
     */
    private long roll(AtomicLongArray cells, int base, long head, long now, int permits) {
        long headEpoch = headEpoch(head);
        if (now - headEpoch > span) {
            for (int i = 0; i < ringWords; i++) {
                cells.setRelease(base + RING + i, 0);
            }
        } else {
            setLane(cells, base, headEpoch, headCount(head));
            for (long skipped = headEpoch + 1; skipped < now; skipped++) {
                setLane(cells, base, skipped, 0);
            }
        }
        long past = ringSum(cells, base);
        boolean fits = past + permits <= limit;
        cells.set(base, packHead(now, fits ? permits : 0));
        return fits ? pack(now, limit - past - permits) : REJECTED;
    }

    @Override
    boolean refund(AtomicLongArray cells, int base, long ticket, int permits) {
        long epoch = ticketEpoch(ticket);
        for (; ; ) {
            long head = settledHead(cells, base);
            long headEpoch = headEpoch(head);
            if (headEpoch == epoch) {
                if (headCount(head) < permits) {
                    return false; // not ours to take (cannot happen for a genuine ticket)
                }
                if (cells.compareAndSet(base, head, head - permits)) {
                    return true;
                }
            } else if (epoch > headEpoch || epoch < headEpoch - span) {
                return false; // not a ticket of this window, or the bucket has left the window
            } else if (cells.compareAndSet(base, head, head | rolling)) {
                long count = lane(cells, base, epoch);
                boolean ours = count >= permits; // else not ours to take (as above)
                if (ours) {
                    setLane(cells, base, epoch, count - permits);
                }
                cells.set(base, head);
                return ours;
            }
        }
    }

    @Override
    long used(AtomicLongArray cells, int base, long nowNanos) {
        long now = epochAt(nowNanos);
        for (; ; ) {
            long head = settledHead(cells, base);
            long used = usedAt(cells, base, head, Math.max(now, headEpoch(head)));
            if (cells.get(base) == head) {
                return used;
            }
        }
    }

    /** Permits counted in the window at epoch {@code at}, no earlier than the head's. */
    private long usedAt(AtomicLongArray cells, int base, long head, long at) {
        long headEpoch = headEpoch(head);
        if (at == headEpoch) {
            return headCount(head) + ringSum(cells, base);
        }
        long sum = 0;
        for (long k = Math.max(0, at - span); k <= headEpoch; k++) {
            sum += countOf(cells, base, head, k);
        }
        return sum;
    }

    /** The count of bucket {@code k} as the head or the ring holds it; 0 if neither does. */
    @Override
    long countOf(AtomicLongArray cells, int base, long head, long k) {
        long headEpoch = headEpoch(head);
        if (k == headEpoch) {
            return headCount(head);
        }
        return k >= 0 && k < headEpoch && k >= headEpoch - span ? lane(cells, base, k) : 0;
    }

    @Override
    long nanosUntilAvailable(AtomicLongArray cells, int base, long nowNanos, long permits) {
        if (permits > limit) {
            return Long.MAX_VALUE;
        }
        long now = epochAt(nowNanos);
        for (; ; ) {
            long head = settledHead(cells, base);
            long at = Math.max(now, headEpoch(head));
            long wait = untilFits(cells, base, head, limit - permits, at, at - span, nowNanos);
            // A roll changes the head, and the answer is read again. A refund into a past bucket
            // writes the same head back, but only lowers a lane, which the one pass reads once.
            if (cells.get(base) == head) {
                return wait;
            }
        }
    }

    /**
     * What the window counts at {@code nowNanos}, as one word: every permit it counts, placed in its
     * newest bucket that holds any ({@link #newestCounted}), so that the word never counts less, nor
     * for less long, than the window did, nor longer than its newest count; 0 if the window counts
     * nothing. Under the table's write lock, so no roll is under way.
     */
    @Override
    public long remember(AtomicLongArray cells, int base, long nowNanos) {
        long head = cells.get(base);
        long at = Math.max(epochAt(nowNanos), headEpoch(head));
        long used = Math.min(countMask, usedAt(cells, base, head, at));
        return used == 0 ? 0 : pack(newestCounted(cells, base, head, at), used);
    }

    /** Starts a new window with the remembered permits counted in the head, at the word's bucket. */
    @Override
    public void restore(AtomicLongArray cells, int base, long remembered, long nowNanos) {
        if (counts(remembered, nowNanos)) {
            cells.setPlain(base, packHead(epoch(remembered), count(remembered)));
        }
    }
}
