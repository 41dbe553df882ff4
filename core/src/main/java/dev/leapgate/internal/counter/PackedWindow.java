package dev.leapgate.internal.counter;

import dev.leapgate.internal.DurationText;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The algorithm and memory layout of an exact leap-array rate counter, kept apart from its
 * storage so that one counter ({@link LeapCounter}) and a table of per-origin counters can share
 * it. Instances are immutable and hold no counts: every method takes the cells to work on.
 *
 * <h2>From the naive leap array to this one</h2>
 *
 * A leap array keeps a ring of buckets, each holding a bucket start and a count. The reference
 * implementation admits a request when "sum of the window + permits &lt;= limit" and adds the
 * permits afterwards, in a separate step, to the current bucket; a stale bucket is reset under a
 * lock. Both steps race: many threads pass the check together and overshoot the limit, and two
 * threads can reset the same stale bucket one after the other, the second wiping the counts of
 * the first.
 *
 * <p>Here the check and the count are one compare-and-swap on one word. The observation that
 * makes it possible: only the newest bucket ever changes. Every older bucket of the window is
 * frozen, so the window is "the frozen past" plus "the head":
 *
 * <pre>
 *   cells[base]            head: the newest bucket, packed as  epoch | count
 *   cells[base + 1]        past: epoch | sum of the frozen buckets of that epoch's window
 *   cells[base + 2 + i]    ring: frozen past buckets; bucket e lives in slot e % ringSize
 *
 *        ring (frozen)                         head (the only contended word)
 *   [e-3: 4] [e-2: 0] [e-1: 7]        [e: 2]  &lt;-- CAS (e, 2) -&gt; (e, 3) iff past + 2 + 1 &lt;= limit
 * </pre>
 *
 * An admission reads the head {@code (e, c)}, sums the frozen past buckets of the window at
 * {@code e}, and moves the head to {@code (e, c + permits)} with one CAS if the total fits. A
 * successful CAS proves that the head was still {@code (e, c)} (counts only grow within an epoch
 * and epochs only grow), and the past it summed cannot have changed, so no admission ever
 * overshoots. When time has moved on to a later epoch {@code t}, the thread first
 * <em>publishes</em> the head bucket {@code (e, c)} into its ring slot, then sums the past of
 * {@code t} and moves the head to {@code (t, permits)} with one CAS. Publishing before the CAS
 * means that any thread that sees the head at {@code t} also sees bucket {@code e} in the ring.
 * Several threads may publish the same bucket; a slot only ever takes a newer epoch or a larger
 * count of the same epoch, so the winner's final count stays. Nothing is ever reset in place: a
 * new bucket is a new head value, installed once by one CAS, so a stale bucket cannot be reset
 * twice and no count is ever wiped.
 *
 * <p>A thread whose clock reading is older than the head (it read the clock, then lost the CPU
 * while another thread rolled the window on) counts into the head: never into a bucket that is
 * already frozen, never into an orphan. A rejection writes nothing but possibly an idempotent
 * publish.
 *
 * <h2>The cached past</h2>
 *
 * While the head stays in epoch {@code e}, the past buckets of its window do not change, so their
 * sum is computed once, by the first admission that needs it after a roll, and kept in one word
 * {@code past = e | sum}. An admission then reads two words (head and past), not the ring, and its
 * cost does not grow with the bucket count. The word is only believed when its epoch is the head's;
 * it is replaced only by a newer epoch's. A refund into a frozen bucket also lowers it; if a refund
 * races with the sum being computed, the cached sum may stay higher than the ring's, which only errs
 * on the conservative side. Time is turned into an epoch without a division when the reading falls
 * within the head's bucket, the common case.
 *
 * <h2>Sizes</h2>
 *
 * The window at epoch {@code e} counts the head and the {@code span} epochs before it: {@code span
 * = n} for {@link WindowMode#STRICT} (the straddling bucket included), {@code n - 1} for {@link
 * WindowMode#SLIDING}. The ring has {@code ringSize = span + 1} slots, so that publishing bucket
 * {@code e} into slot {@code e % ringSize} overwrites epoch {@code e - ringSize}, which no window
 * at {@code e} or later still counts. A counter is {@code ringSize + 2} longs: 8 bytes a bucket,
 * plus the head and the cached past.
 *
 * <p>Epochs count buckets since {@code originNanos} (readings before it count as epoch 0). A word
 * packs {@code epochBits} of epoch above {@code countBits} of count, with {@code epochBits +
 * countBits = 63}, and the split is chosen from the bucket length so that epochs cannot overflow
 * in 2<sup>62</sup> ns (146 years) of uptime: {@code countBits = min(31, 1 + floor(log2(b)))}.
 * That bounds the limit: up to 2<sup>20</sup> - 1 with 1 ms buckets, 2<sup>27</sup> - 1 with
 * 100 ms buckets, {@link Integer#MAX_VALUE} from about 1 s buckets on.
 *
 * <h2>Borrowing from the next bucket</h2>
 *
 * A window built for borrowing keeps a third field in the head: the permits already lent from the
 * <em>next</em> bucket, {@code head = epoch | borrowed | count}. A request the window at {@code e}
 * rejects may take permits from bucket {@code e + 1} if they fit in the window at {@code e + 1};
 * it then waits until that bucket starts, and its permits count there. Borrowed permits also count
 * against the window at {@code e} (a conservative choice), which is what keeps every window
 * exact: every admission and every loan checks the same invariant on the same word, "frozen past
 * of {@code e + 1} + count + borrowed &lt;= limit". When the head rolls to {@code e + 1}, the loan
 * becomes that bucket's starting count; when it rolls further, the loan is published into the ring
 * like any bucket (so the ring has {@code span + 2} slots). Three fields share the word, so the
 * count gets at most {@code 1 + floor(log2(b)) / 2} bits: a limit of up to 16383 with 100 ms
 * buckets, 32767 with 1 s buckets. The epoch keeps what is left, which lasts at least 2<sup>61</sup>
 * ns (73 years) of uptime; 146 years where {@code floor(log2(b))} is odd.
 *
 * <h2>Tickets</h2>
 *
 * An admission returns a <em>ticket</em>: a non-negative long packing the epoch the permits were
 * counted in and the permits remaining after them, so that a {@link #refund} can find the bucket
 * again and the caller learns what remains without a second read. A rejection returns {@link
 * #REJECTED}. A borrowing caller waits until its ticket's bucket starts, so a borrowing window's
 * admission from a reading before the head's bucket names the reading's bucket: only a loan names a
 * later one.
 *
 * <h2>Sealed cells</h2>
 *
 * A head word never uses its sign bit. {@link LeapCounter} sets it to <em>seal</em> its cells when
 * another counter takes their counts over (a reload that changes the window or borrowing): no
 * admission or refund changes sealed cells any more, {@link #tryAcquire} returns {@link #SEALED}
 * and {@link #refund} false, and the reads ({@link #used}, {@link #remember}, {@link
 * #nanosUntilAvailable}) see the counts as they were sealed. A per-origin table never seals.
 */
final class PackedWindow extends RateWindow {

    /** Returned by {@link #tryAcquire} on sealed cells: nothing was counted. */
    static final long SEALED = -2L;

    /** The head's bit that seals the cells; no head word uses it otherwise. */
    static final long SEAL = Long.MIN_VALUE;

    /** Offset of the cached past word; the ring follows it. */
    private static final int PAST = 1;

    private static final int RING = 2;

    /** Ring slots: {@code span + 1}, or {@code span + 2} when borrowing. */
    final int ringSize;

    /** Shift of the head's epoch: above the count, and above the borrowed count when borrowing. */
    private final int headEpochShift;

    PackedWindow(WindowSpec spec, long limit, long originNanos) {
        this(spec, limit, originNanos, false);
    }

    PackedWindow(WindowSpec spec, long limit, long originNanos, boolean borrowing) {
        super(
                spec,
                checkLimit(spec, limit, borrowing),
                originNanos,
                borrowing,
                countBits(spec.bucketNanos(), borrowing));
        this.headEpochShift = borrowing ? 2 * countBits : countBits;
        this.ringSize = span + (borrowing ? 2 : 1);
    }

    private static long checkLimit(WindowSpec spec, long limit, boolean borrowing) {
        long maxLimit = maxLimit(spec, borrowing);
        if (limit < 1 || limit > maxLimit) {
            throw new IllegalArgumentException("limit must be between 1 and " + maxLimit + " for buckets of "
                    + DurationText.format(Duration.ofNanos(spec.bucketNanos())) + (borrowing ? " with borrowing" : "")
                    + ", was " + limit
                    + (limit > maxLimit ? "; use longer buckets (fewer buckets or a longer window)" : ""));
        }
        return limit;
    }

    /**
     * Bits of a count: {@code min(31, 1 + floor(log2(bucketNanos)))}, halved when the head also
     * holds a borrowed count, so that epochs never overflow (see the class comment).
     */
    static int countBits(long bucketNanos, boolean borrowing) {
        int log2 = 63 - Long.numberOfLeadingZeros(bucketNanos);
        return Math.min(31, borrowing ? 1 + log2 / 2 : 1 + log2);
    }

    /** The largest limit a window with this bucket length can hold. */
    static long maxLimit(WindowSpec spec, boolean borrowing) {
        return (1L << countBits(spec.bucketNanos(), borrowing)) - 1;
    }

    @Override
    int bucketBits() {
        return 64;
    }

    /** Longs of storage one counter takes: the head and the ring. */
    int cellsPerCounter() {
        return RING + ringSize;
    }

    @Override
    public int stride() {
        return cellsPerCounter();
    }

    /**
     * What the window counts at {@code nowNanos}, as one ring word: every permit it counts, placed
     * in its newest bucket that holds any ({@link #newestCounted}; the next one when borrowing,
     * where a loan counts), so that the word never counts less, nor for less long, than the window
     * did, nor longer than its newest count; 0 if the window counts nothing.
     *
     * <p>When borrowing, the word is restored as a loan made in the bucket before its own, which
     * counts in the windows of both and rolls into its own: it holds the more of what the windows
     * at {@code at} (now, or the head's bucket) and {@code at + 1} count. Not {@link #used}'s sum at {@code at}, which also counts the loans from {@code at + 1}
     * (conservatively, see the class comment) and so can reach twice the limit: a count that, once
     * a reload raised the limit, would hold the client as if it had used its loans twice.
     */
    @Override
    public long remember(AtomicLongArray cells, int base, long nowNanos) {
        long head = cells.get(base) & ~SEAL;
        long headEpoch = headEpoch(head);
        long at = Math.max(epochAt(nowNanos), headEpoch);
        long used = used(cells, base, head, at);
        if (borrowing) {
            long lentFromNext = at == headEpoch ? headBorrowed(head) : 0;
            used = Math.max(used - lentFromNext, used(cells, base, head, at + 1));
        }
        used = Math.min(countMask, used);
        if (used == 0) {
            return 0;
        }
        // Dated at the newest bucket that holds a count (a loan counts in the bucket after the
        // head, the newest of all), not at `at`: every permit counted at `at` is there or older.
        // Not one bucket later: restored, the word counts in its own bucket (see restoredHead), so
        // a count dated after its bucket would move on by a bucket at every eviction and return.
        return pack(borrowing && headBorrowed(head) > 0 ? headEpoch + 1 : newestCounted(cells, base, head, at), used);
    }

    /**
     * The oldest bucket that {@link #remember} at {@code nowNanos} counts: what was counted in an
     * older one had left the window.
     */
    long oldestRemembered(AtomicLongArray cells, int base, long nowNanos) {
        return Math.max(epochAt(nowNanos), headEpoch(cells.get(base) & ~SEAL)) - span;
    }

    /**
     * Starts a new window with the remembered permits counted in the word's bucket: in the head at
     * that bucket, or, when borrowing (the word of a loan names the bucket lent from, which may be
     * the next), as a loan of the head's bucket before it, which counts as long and rolls into that
     * bucket, so that an admission within the current bucket is counted there and does not wait
     * for the next.
     */
    @Override
    public void restore(AtomicLongArray cells, int base, long remembered, long nowNanos) {
        if (counts(remembered, nowNanos)) {
            cells.setPlain(base, restoredHead(remembered));
        }
    }

    /** The head word {@link #restore} writes for {@code remembered}, a word that still counts. */
    long restoredHead(long remembered) {
        long epoch = epoch(remembered);
        return borrowing && epoch > 0
                ? packHead(epoch - 1, count(remembered), 0)
                : packHead(epoch, 0, count(remembered));
    }

    // Head words: epoch | borrowed | count (borrowed only when borrowing).

    private long headEpoch(long head) {
        return head >>> headEpochShift;
    }

    private long headCount(long head) {
        return head & countMask;
    }

    private long headBorrowed(long head) {
        return borrowing ? (head >>> countBits) & countMask : 0;
    }

    private long packHead(long epoch, long borrowed, long count) {
        return (epoch << headEpochShift) | (borrowed << countBits) | count;
    }

    /**
     * The common case, small enough for the compiler to inline into its callers: the reading falls
     * within the head's bucket, and the permits fit (one CAS) or do not (rejected, when no loan may
     * be asked). Anything else, a lost CAS and sealed cells included, goes the general way, {@link
     * #decide}.
     */
    @Override
    long tryAcquire(AtomicLongArray cells, int base, long nowNanos, int permits, long maxWaitNanos) {
        long head = cells.get(base);
        long headEpoch = headEpoch(head);
        long intoHead = nowNanos - startNanos(headEpoch);
        if (intoHead >= 0 && intoHead < bucketNanos && head >= 0) {
            long used = past(cells, base, headEpoch) + headCount(head) + headBorrowed(head);
            if (used + permits <= limit) {
                if (cells.compareAndSet(base, head, head + permits)) {
                    return pack(headEpoch, limit - used - permits);
                }
            } else if (!borrowing || maxWaitNanos < 0) {
                return REJECTED;
            }
        }
        return decide(cells, base, nowNanos, permits, maxWaitNanos);
    }

    @Override
    boolean rejectsNow(AtomicLongArray cells, int base, long nowNanos, int permits, long maxWaitNanos) {
        if (borrowing && maxWaitNanos >= 0) {
            return false; // may borrow: decided with the next bucket
        }
        long head = cells.get(base);
        if (head < 0) {
            return false; // sealed: tryAcquire says so
        }
        long headEpoch = headEpoch(head);
        long intoHead = nowNanos - startNanos(headEpoch);
        if (intoHead >= 0 && intoHead < bucketNanos) {
            // As tryAcquire's fast path, with the past's sum only if cached for this head: past()
            // would write it.
            long cached = cells.get(base + PAST);
            return epoch(cached) == headEpoch && count(cached) + headCount(head) + headBorrowed(head) + permits > limit;
        }
        // Time has moved on past the head (which this window moves only to admit): as decide()
        // reads the window then. Behind the head, decide() would write the past's cache.
        long now = epochAt(nowNanos);
        return now > headEpoch && used(cells, base, head, now) + permits > limit;
    }

    /** {@link #tryAcquire(AtomicLongArray, int, long, int, long)} in every case. */
    private long decide(AtomicLongArray cells, int base, long nowNanos, int permits, long maxWaitNanos) {
        long now = -1;
        for (; ; ) {
            long head = cells.get(base);
            if (head < 0) {
                return SEALED;
            }
            long headEpoch = headEpoch(head);
            if (now < 0) {
                // Within the head's bucket (the common case) the epoch is known without a division.
                long intoHead = nowNanos - startNanos(headEpoch);
                now = intoHead >= 0 && intoHead < bucketNanos ? headEpoch : epochAt(nowNanos);
            }
            boolean current = now <= headEpoch;
            long used = current
                    ? past(cells, base, headEpoch) + headCount(head) + headBorrowed(head)
                    : used(cells, base, head, now);
            if (used + permits <= limit) {
                long remaining = limit - used - permits;
                if (current) {
                    // The head is current (or newer than this thread's reading): count into it. A
                    // borrowing caller waits until its ticket's bucket starts, so the ticket names
                    // the reading's bucket, not a later head's: that is no loan. (A takeover from
                    // longer buckets starts the head at the end of the old bucket, seconds ahead.)
                    // A refund of such a ticket may then find no bucket: it is kept, conservative.
                    if (cells.compareAndSet(base, head, head + permits)) {
                        return pack(borrowing ? Math.min(now, headEpoch) : headEpoch, remaining);
                    }
                } else {
                    // Time has moved on: freeze the head into the ring, then install a new head,
                    // which starts with what was lent to it if it is the very next bucket.
                    publishHead(cells, base, head, now);
                    long lent = now == headEpoch + 1 ? headBorrowed(head) : 0;
                    if (cells.compareAndSet(base, head, packHead(now, 0, lent + permits))) {
                        return pack(now, remaining);
                    }
                }
            } else if (borrowing && maxWaitNanos >= 0 && current) {
                // Lend from bucket headEpoch + 1: it must fit the window there, which no longer
                // counts bucket headEpoch - span.
                long next = headEpoch + 1;
                long nextUsed = used - countOf(cells, base, head, headEpoch - span);
                if (nextUsed + permits > limit || startNanos(next) - nowNanos > maxWaitNanos) {
                    return REJECTED;
                }
                if (cells.compareAndSet(base, head, head + ((long) permits << countBits))) {
                    return pack(next, limit - nextUsed - permits);
                }
            } else if (borrowing && maxWaitNanos >= 0) {
                // Roll the head on without taking anything, then try to borrow from the new head.
                publishHead(cells, base, head, now);
                long lent = now == headEpoch + 1 ? headBorrowed(head) : 0;
                cells.compareAndSet(base, head, packHead(now, 0, lent));
            } else {
                return REJECTED;
            }
            // Lost a race with another admission or roll: re-read; the window may have changed.
        }
    }

    /**
     * Permits counted in the window at epoch {@code max(now, head epoch)}: the frozen ring buckets
     * of that window plus the head and its loan (whether or not they have been published yet).
     */
    private long used(AtomicLongArray cells, int base, long head, long now) {
        long headEpoch = headEpoch(head);
        long at = Math.max(now, headEpoch);
        long oldest = at - span;
        long sum = headEpoch >= oldest ? headCount(head) : 0;
        // A loan counts from the moment it is made: in the head's window (conservatively) and in
        // the next bucket's.
        sum += headEpoch + 1 >= oldest ? headBorrowed(head) : 0;
        for (int i = 0; i < ringSize; i++) {
            long slot = cells.get(base + RING + i);
            long e = epoch(slot);
            // The head's own buckets are excluded: they may sit in the ring already, published by
            // a roll whose CAS has not happened (or failed); the head's values are the current ones.
            if (e >= oldest && e < at && e != headEpoch && e != headEpoch + 1) {
                sum += count(slot);
            }
        }
        return sum;
    }

    /**
     * The sum of the frozen buckets in the window of the head's epoch {@code headEpoch}: from the
     * cached past word if it is that epoch's, else from the ring, caching the result. The caller
     * read the head at {@code headEpoch} before calling, so those buckets were all published.
     */
    private long past(AtomicLongArray cells, int base, long headEpoch) {
        long cached = cells.get(base + PAST);
        if (epoch(cached) == headEpoch) {
            return count(cached);
        }
        long oldest = headEpoch - span;
        long sum = 0;
        for (int i = 0; i < ringSize; i++) {
            long slot = cells.get(base + RING + i);
            long e = epoch(slot);
            if (e >= oldest && e < headEpoch) {
                sum += count(slot);
            }
        }
        // Only a newer epoch replaces the cached one; losing this race costs a recount, nothing else.
        if (epoch(cached) < headEpoch) {
            cells.compareAndSet(base + PAST, cached, pack(headEpoch, sum));
        }
        return sum;
    }

    /**
     * Lowers the cached past by a refund into frozen bucket {@code epoch}, if it counts that bucket
     * and is still {@code cached}, the word read before the bucket was lowered. Once another value
     * is there (recomputed, or lowered by another refund), it is left alone: a sum recomputed after
     * the bucket was lowered already holds the refund, and lowering it again would let the window
     * admit more than its limit; any other value is at worst higher than the ring's, which errs on
     * the safe side until the next bucket.
     */
    private void refundPast(AtomicLongArray cells, int base, long cached, long epoch, int permits) {
        long cachedEpoch = epoch(cached);
        if (epoch >= cachedEpoch - span && epoch < cachedEpoch && count(cached) >= permits) {
            cells.compareAndSet(base + PAST, cached, cached - permits);
        }
    }

    /** Publishes the head's bucket, and its loan if the next bucket is being skipped, into the ring. */
    private void publishHead(AtomicLongArray cells, int base, long head, long now) {
        long headEpoch = headEpoch(head);
        publish(cells, base, headEpoch, headCount(head));
        long lent = headBorrowed(head);
        if (lent > 0 && now > headEpoch + 1) {
            publish(cells, base, headEpoch + 1, lent);
        }
    }

    /**
     * Writes bucket {@code (epoch, count)} into its ring slot unless the slot already holds a newer
     * epoch, or the same epoch with at least this count. Idempotent, and safe to call with a stale
     * head: the final count of a bucket is the largest one any thread saw.
     */
    private void publish(AtomicLongArray cells, int base, long epoch, long count) {
        int index = base + RING + (int) (epoch % ringSize);
        for (; ; ) {
            long slot = cells.get(index);
            long slotEpoch = epoch(slot);
            if (slotEpoch > epoch || (slotEpoch == epoch && count(slot) >= count)) {
                return;
            }
            if (cells.compareAndSet(index, slot, pack(epoch, count))) {
                return;
            }
        }
    }

    /**
     * Returns the permits of an admission to the bucket they were counted in, if that bucket still
     * counts. Never makes the window count less than what was admitted and not refunded; in a rare
     * race with a thread that stalled across a bucket roll the refund may be ignored, which only
     * errs on the conservative side.
     */
    @Override
    boolean refund(AtomicLongArray cells, int base, long ticket, int permits) {
        long epoch = ticketEpoch(ticket);
        for (; ; ) {
            long head = cells.get(base);
            if (head < 0) {
                return false; // sealed: the counter that took the counts over takes the refund
            }
            long headEpoch = headEpoch(head);
            if (headEpoch == epoch) {
                if (headCount(head) < permits) {
                    return false; // not ours to take (cannot happen for a genuine ticket)
                }
                if (cells.compareAndSet(base, head, head - permits)) {
                    return true;
                }
                continue;
            }
            if (headEpoch + 1 == epoch) {
                if (headBorrowed(head) < permits) {
                    return false; // not a loan of this counter
                }
                if (cells.compareAndSet(base, head, head - ((long) permits << countBits))) {
                    return true;
                }
                continue;
            }
            if (headEpoch < epoch) {
                return false; // not a ticket of this counter
            }
            if (epoch < headEpoch - span) {
                return false; // the bucket has left the window (its slot may still hold it)
            }
            // The head has moved on, so bucket `epoch` was published before it did.
            int index = base + RING + (int) (epoch % ringSize);
            long slot = cells.get(index);
            if (epoch(slot) != epoch || count(slot) < permits) {
                return false; // the bucket has left the window: nothing counts it any more
            }
            // The cached past as it was before the bucket changes: a sum computed after the change
            // holds it already, so the cached word is lowered only if it is still this one.
            long cached = cells.get(base + PAST);
            if (cells.compareAndSet(index, slot, slot - permits)) {
                refundPast(cells, base, cached, epoch, permits);
                return true;
            }
        }
    }

    @Override
    long used(AtomicLongArray cells, int base, long nowNanos) {
        return used(cells, base, cells.get(base) & ~SEAL, epochAt(nowNanos));
    }

    /**
     * Nanoseconds from {@code nowNanos} until {@code permits} would fit, assuming nothing else is
     * admitted meanwhile: 0 if they fit now, {@link Long#MAX_VALUE} if they never can.
     */
    @Override
    long nanosUntilAvailable(AtomicLongArray cells, int base, long nowNanos, long permits) {
        if (permits > limit) {
            return Long.MAX_VALUE;
        }
        long head = cells.get(base) & ~SEAL;
        long headEpoch = headEpoch(head);
        long at = Math.max(epochAt(nowNanos), headEpoch);
        // A loan in the next bucket counts too; each bucket is read once, so concurrent refunds
        // and rolls give the answer for the window before or after each of them, never a broken one.
        return untilFits(cells, base, head, limit - permits, Math.max(at, headEpoch + 1), at - span, nowNanos);
    }

    /** The count of bucket {@code k} as the head, its loan or the ring holds it; 0 if none does. */
    @Override
    long countOf(AtomicLongArray cells, int base, long head, long k) {
        long headEpoch = headEpoch(head);
        if (headEpoch == k) {
            return headCount(head);
        }
        if (headEpoch + 1 == k) {
            return headBorrowed(head);
        }
        if (k < 0) {
            return 0;
        }
        long slot = cells.get(base + RING + (int) (k % ringSize));
        return epoch(slot) == k ? count(slot) : 0;
    }
}
