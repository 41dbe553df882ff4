package dev.leapgate.counter;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongBinaryOperator;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * A ring of {@code n} time buckets over a window {@code W}, each bucket an object of statistics
 * ({@code T}, typically striped counters), rolled lazily by the threads that use it: no
 * background thread ever touches it.
 *
 * <p>For a clock reading {@code t} the bucket number is {@code epoch = floor(t / b)} with {@code
 * b = W / n}, its slot {@code epoch mod n} and its start {@code epoch · b} (floor division, so
 * negative readings, which {@link System#nanoTime()} may return, work too). Looking up the bucket
 * for {@code t}:
 *
 * <ol>
 *   <li>slot empty: install a new bucket (one CAS; a loser uses the winner's);
 *   <li>slot holds the bucket for {@code t}: use it;
 *   <li>slot holds an older bucket, from a previous lap: <em>replace</em> it with a new, empty
 *       bucket by one CAS. The old object is never zeroed in place, so there is nothing to reset
 *       twice: a second thread's CAS fails and it uses the first thread's new bucket, and no count
 *       added to the new bucket can be wiped;
 *   <li>slot holds a newer bucket (this thread read the clock, then another thread rolled the slot
 *       on): use that newer bucket, which is live, rather than create an orphan that would be
 *       thrown away.
 * </ol>
 *
 * <p>{@link #add} also closes the last gap: a thread that found its bucket, then stalled for a whole
 * lap before adding to it, would add to a bucket that has been replaced. It checks after adding,
 * and if its bucket was replaced meanwhile it adds again to the live one. So an event is never
 * lost; in that rare race it can be counted in two buckets that are {@code n} apart, which no
 * window ever sums together.
 *
 * <p>The window at {@code t} is every bucket whose epoch lies in {@code (epoch(t) - n, epoch(t)]}
 * (and newer ones, written by threads with a later reading); older, <em>deprecated</em>, buckets
 * are skipped. This is the {@link WindowMode#SLIDING} window: statistics, not admission, so
 * speed matters more than an exact read.
 *
 * <p>Concurrency: the slots are an {@link AtomicReferenceArray}; buckets are published by CAS and
 * their fields must be thread-safe on their own. Lock-free.
 *
 * @param <T> the statistics of one bucket
 */
public final class LeapArray<T> {

    /** One bucket: its number and its statistics. Immutable; the statistics are {@code T}'s own. */
    public static final class Bucket<T> {
        private final long epoch;
        private final long startNanos;
        private final T value;

        Bucket(long epoch, long startNanos, T value) {
            this.epoch = epoch;
            this.startNanos = startNanos;
            this.value = value;
        }

        /** Bucket number: {@code floor(start / b)}. */
        public long epoch() {
            return epoch;
        }

        /** Clock reading at which this bucket starts. */
        public long startNanos() {
            return startNanos;
        }

        /** The statistics of this bucket. */
        public T value() {
            return value;
        }

        @Override
        public String toString() {
            return "Bucket[epoch=" + epoch + ", start=" + startNanos + "ns, " + value + "]";
        }
    }

    private final long bucketNanos;
    private final int buckets;
    private final Supplier<? extends T> factory;
    private final AtomicReferenceArray<Bucket<T>> slots;

    /**
     * @param window the window length and bucket count (its mode is not used: statistics are read
     *     over the sliding window)
     * @param factory creates the statistics of a new bucket; must be side-effect free, since a
     *     thread that loses a race discards what it created
     */
    public LeapArray(WindowSpec window, Supplier<? extends T> factory) {
        Objects.requireNonNull(window, "window");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.bucketNanos = window.bucketNanos();
        this.buckets = window.buckets();
        this.slots = new AtomicReferenceArray<>(buckets);
    }

    /** Bucket length {@code b} in nanoseconds. */
    public long bucketNanos() {
        return bucketNanos;
    }

    /** Window length {@code W = n·b} in nanoseconds. */
    public long windowNanos() {
        return bucketNanos * buckets;
    }

    /** The bucket number of a clock reading. */
    public long epochAt(long nowNanos) {
        return Math.floorDiv(nowNanos, bucketNanos);
    }

    /** The slot of a clock reading: {@code epoch mod n}. */
    public int indexAt(long nowNanos) {
        return (int) Math.floorMod(epochAt(nowNanos), (long) buckets);
    }

    /** The start of the bucket that holds a clock reading: {@code t - (t mod b)}. */
    public long bucketStartAt(long nowNanos) {
        return epochAt(nowNanos) * bucketNanos;
    }

    /**
     * The live bucket for {@code nowNanos}: the one whose span holds it, or a newer one if another
     * thread already rolled the slot on (see the class comment).
     */
    public Bucket<T> bucketAt(long nowNanos) {
        long epoch = epochAt(nowNanos);
        int index = (int) Math.floorMod(epoch, (long) buckets);
        for (; ; ) {
            Bucket<T> old = slots.get(index);
            if (old != null && old.epoch >= epoch) {
                return old;
            }
            Bucket<T> fresh = new Bucket<>(epoch, epoch * bucketNanos, factory.get());
            if (slots.compareAndSet(index, old, fresh)) {
                return fresh;
            }
            // Another thread installed a bucket in this slot first; look again and use it.
        }
    }

    /**
     * Adds {@code amount} to the live bucket for {@code nowNanos} with {@code adder}, never into a
     * bucket that has been replaced. Use a method reference or a non-capturing lambda for {@code
     * adder} to keep this allocation-free.
     */
    public void add(long nowNanos, ObjLongConsumer<? super T> adder, long amount) {
        Bucket<T> bucket = bucketAt(nowNanos);
        adder.accept(bucket.value, amount);
        int index = (int) Math.floorMod(bucket.epoch, (long) buckets);
        if (slots.get(index) != bucket) {
            // The bucket was replaced while this thread held it: it may be thrown away unread.
            adder.accept(bucketAt(Math.max(nowNanos, bucket.startNanos)).value, amount);
        }
    }

    /**
     * Sums {@code field} over the window at {@code nowNanos}, skipping deprecated buckets.
     */
    public long sum(long nowNanos, ToLongFunction<? super T> field) {
        return reduce(nowNanos, field, 0L, Long::sum);
    }

    /**
     * Applies {@code reducer} over {@code field} of the buckets in the window at {@code nowNanos};
     * returns {@code identity} when there are none (for a minimum or maximum).
     */
    public long reduce(long nowNanos, ToLongFunction<? super T> field, long identity, LongBinaryOperator reducer) {
        long oldest = epochAt(nowNanos) - buckets + 1;
        long result = identity;
        for (int i = 0; i < buckets; i++) {
            Bucket<T> bucket = slots.get(i);
            if (bucket != null && bucket.epoch >= oldest) {
                result = reducer.applyAsLong(result, field.applyAsLong(bucket.value));
            }
        }
        return result;
    }

    /**
     * The buckets of the window at {@code nowNanos}, oldest first; buckets nobody wrote to are
     * absent.
     */
    public List<Bucket<T>> buckets(long nowNanos) {
        long oldest = epochAt(nowNanos) - buckets + 1;
        List<Bucket<T>> live = new ArrayList<>(buckets);
        for (int i = 0; i < buckets; i++) {
            Bucket<T> bucket = slots.get(i);
            if (bucket != null && bucket.epoch >= oldest) {
                live.add(bucket);
            }
        }
        live.sort(Comparator.comparingLong(Bucket::epoch));
        return live;
    }

    @Override
    public String toString() {
        return "LeapArray[" + buckets + " x " + bucketNanos + "ns]";
    }
}
