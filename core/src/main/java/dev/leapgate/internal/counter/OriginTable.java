package dev.leapgate.internal.counter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.StampedLock;

/**
 * A bounded table of per-origin admission state: for each origin key (a {@code long}: an IPv4
 * address, an IPv6 prefix, a hashed API key) a fixed number of {@code long} cells, with no entry
 * objects and no boxed keys.
 *
 * <h2>Layout</h2>
 *
 * The table is split into segments. A segment keeps its origins in one dense array of
 * <em>entries</em>: entry {@code e} is the origin's key in {@code cells[e * width]} followed by
 * the state's {@code stride} cells ({@code width = stride + 1}). An entry never moves while its
 * origin is tracked (until the arrays grow), and a freed entry is zeroed and reused in place (a
 * bitmap marks the entries taken). Origins find their entry through an open-addressing
 * <em>index</em> with linear probing, one {@code long} a slot packing the low 32 bits of the key's
 * hash (which also give the slot the key belongs in), a referenced and a limited bit and the entry
 * number; the index is kept at most three quarters full, and deleting shifts later slots back (no
 * tombstones), never the cells. So a lookup reads one index slot (or a few adjacent ones) and,
 * when the hash bits match, the entry it must read anyway. For a client whose state is in no processor cache, these
 * are two cache misses, which would follow one another (the slot names the entry). So each key
 * also has a <em>predicted</em> entry, from the same hash bits as its slot: a new origin takes it
 * if it is free (else any free entry), and a lookup reads the predicted entry's key at the same
 * time as the slot, for about two thirds of the origins the one the slot then names. Keys are
 * spread by a seeded mix (a fresh random seed per table), so a client cannot pick addresses that
 * collide. A segment's arrays grow by half when its entries are all taken, up to its share of
 * {@code maxOrigins} (with some slack, as keys never spread evenly), and never while it is at that
 * size; growing moves each entry to its predicted place in the new arrays where it can.
 *
 * <h2>Bounded, without a background thread</h2>
 *
 * While the table has room, every insertion also looks at two index slots past a sweep cursor and
 * frees the entries there that are idle (their state no longer counts anything), so the table
 * tracks the origins that are active; freed entries are reused in place, and a segment's arrays
 * keep the largest size they grew to (at most its share of {@code maxOrigins}). When the table holds
 * {@code maxOrigins} origins (or a segment its share), the new origin takes the place of an
 * existing one in its segment. The first candidate is the origin inserted {@link #RECENT}
 * insertions before in the segment, if it has not been used since (a one-off origin, as in a flood
 * of them, whose cells are still in the processor's cache); otherwise a CLOCK hand over the index
 * chooses: an entry used since the hand last passed (its <em>referenced</em> bit, set by any
 * operation on it) gets a second chance and the hand moves on; the first other entry below its
 * {@link State#saturation() saturation} is evicted. Entries at or above saturation (a client being
 * limited right now, or one with requests in flight) are passed over; if the hand finds {@link
 * #EVICTION_SAMPLE} of those, the first of them is evicted if the state {@link State#remembers()
 * remembers} evicted entries (a rate window: see below); otherwise (requests in flight) an entry
 * below saturation that the hand gave its second chance on the way is evicted (the hand may meet
 * the saturated ones within its first turn, before it comes back to those), and if there is none,
 * the new origin is not tracked and the caller is told so ({@link #FULL}). The hand moves forward
 * only, so each insertion costs a few steps on average whatever the table's size.
 *
 * <h2>What an evicted origin leaves behind</h2>
 *
 * An origin evicted while its state still counts something (a client that used part of its window)
 * leaves a word in the segment's <em>memory</em> of evicted origins, a count-max sketch with tags:
 * the origin's hash picks a block of 8 words (one cache line or two), two of the block's first 7
 * words, and an 8-bit tag; each of the two becomes the {@link State#atLeast larger} of what it
 * held and what the origin leaves. The block's last word keeps the tag of each of the 7: the tag of
 * the origin that wrote it, or 0 (<em>shared</em>) once origins of different tags wrote it while
 * it counted. An origin that enters the table reads its two words; a word counts for it if it is
 * shared or has the origin's tag, else it holds nothing of this origin (whatever the origin left
 * would have made it shared or tagged with the origin's tag, for as long as it counts). The
 * origin starts from the {@link State#atMost smaller} of the two: never less than what it used
 * before it was evicted, so a client cannot shed its history by being evicted; an innocent client
 * whose two words are both shared (or carry its tag) starts with other clients' use, and is at
 * worst limited early. The memory is allocated on the first such eviction: {@link #MEMORY_WORDS}
 * words per origin of the segment's share (rounded down to a power of two), about 64 bytes per
 * origin.
 *
 * <p>Concurrency: each segment has a {@link StampedLock}. Operations on an existing entry take
 * the read lock, so any number of threads work on one segment at once, and update the cells with
 * the state's own compare-and-swap (and set the referenced bit with a plain write, which only ever
 * sets it); inserting, deleting, evicting and resizing take the write lock, so an entry can never
 * be moved or reused while a thread works on its cells, and write cells with plain stores, which
 * releasing the lock publishes.
 *
 * <p>The lookup itself is an optimistic read ({@link StampedLock#tryOptimisticRead()}): it finds
 * the key's slot without writing the lock's word, then converts the read into the read lock (one
 * compare-and-swap, as taking it would be, which fails if a writer came in between: then the
 * lookup is made again under the lock) or, for an absent key, into the write lock. An operation
 * that can be decided by reading alone (a rejection: {@link #apply(long, long, long, long, Op, Op,
 * boolean)}'s {@code readOnly}; what {@link #read} reads of a tracked origin: the retry time and
 * quota of a rejection) is decided without taking the lock at all, and its answer kept if the
 * lock's word shows no writer since the read began. A decision is tried that way only while the
 * origin's last decision under the lock was a rejection (a bit in its index slot, which readers
 * set and clear), so that an admission does not read the origin's cells twice. Many threads
 * rejecting one client (an abusive one, sending from many connections at once) then write no word
 * in common: taking the read lock, each wrote the lock's word twice, and the line holding it moved
 * between the processors on every request (BENCHMARKS.md). Such an operation must stay within the cells it is given and end
 * whatever they hold: they may be another origin's, or half cleared, by the time it reads them.
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

        /**
         * Whether {@link #remember} keeps everything that matters of an evicted entry, so that
         * even a saturated entry may be evicted (its origin comes back as limited as it left).
         */
        default boolean remembers() {
            return false;
        }

        /**
         * What an entry evicted at {@code nowNanos} must leave behind so that its origin, coming
         * back, is not treated more leniently than if it had stayed: a word, or 0 for nothing.
         */
        default long remember(AtomicLongArray cells, int base, long nowNanos) {
            return 0;
        }

        /** Whether a word {@link #remember} left still counts anything at {@code nowNanos}. */
        default boolean counts(long word, long nowNanos) {
            return false;
        }

        /** A word that counts at least what {@code a} and {@code b} count, for at least as long. */
        default long atLeast(long a, long b, long nowNanos) {
            return 0;
        }

        /** A word that counts at most what {@code a} and {@code b} count (0 if either counts nothing). */
        default long atMost(long a, long b, long nowNanos) {
            return 0;
        }

        /** Sets up the zeroed cells of a new entry from a remembered word (nothing for 0); under the write lock. */
        default void restore(AtomicLongArray cells, int base, long remembered, long nowNanos) {}
    }

    /** What another table held for an origin, as a word this table's state {@link State#restore restores}. */
    interface Inheritance {
        /**
         * Hands {@code key} over to {@code heir} (see {@link OriginTable#handOver}) as at {@code
         * reading[0]}, which it moves on to the latest reading at which a table it asked may have
         * forgotten the key.
         */
        long handOver(long key, long[] reading, OriginTable heir);

        /** What {@link #handOver} would return for {@code key} at {@code nowNanos}, the key left where it is. */
        long peek(long key, long nowNanos);

        /** The table asked. */
        OriginTable table();
    }

    /** An operation on one origin's cells. */
    interface Op {
        long apply(AtomicLongArray cells, int base, long nowNanos, long a, long b);
    }

    private static final VarHandle MEMORY_WORD = MethodHandles.arrayElementVarHandle(long[].class);

    /** Returned when the origin is not in the table (and was not to be inserted). */
    static final long ABSENT = Long.MIN_VALUE;
    /** Returned by an operation that only reads when it cannot tell the result without writing. */
    static final long UNDECIDED = Long.MIN_VALUE + 3;
    /** Returned when the origin could not be inserted: every candidate for eviction is saturated. */
    static final long FULL = Long.MIN_VALUE + 1;
    /**
     * Returned when the origin is not in the table and the table is retired: the origin is its
     * {@link #successor()}'s, which may hold it (having taken it over) or take it in.
     */
    static final long RETIRED = Long.MIN_VALUE + 2;

    private static final VarHandle SUCCESSOR;

    static {
        try {
            SUCCESSOR = MethodHandles.lookup().findVarHandle(OriginTable.class, "successor", OriginTable.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Saturated entries the eviction hand passes before it gives up. */
    static final int EVICTION_SAMPLE = 16;

    private static final int SWEEP_PER_INSERT = 2;
    private static final int MIN_CAPACITY = 8;
    private static final int MAX_SEGMENTS = 1024;
    /** Insertions an origin has to be used again before it is the first candidate for eviction; a power of two. */
    static final int RECENT = 16;
    /**
     * Words of the memory of evicted origins per origin of a segment's share (rounded down to a
     * power of two), 7 of each 8 for counts. Two words per evicted origin: with E origins evicted
     * in a window into W count words, a word is shared (written by two origins or more) with a
     * chance of about {@code 1 - (1 + x) exp(-x)}, {@code x = 2E / W}, and a first-time origin is
     * limited early only if both its words are shared (or carry its tag, 1 in 255): measured, 8-9
     * % of them when three times as many origins are active as the table holds, 93-94 % at twenty
     * times. An origin evicted before shares its own words wherever another origin holds them,
     * so a returning one is limited early more often (36-39 % of the requests of well-behaved
     * returning clients at three times). A word keeps the largest count it was given for as long
     * as origins keep being evicted into it ({@link State#atLeast} cannot split it by time).
     */
    static final int MEMORY_WORDS = 8;
    /** Words in a block of the memory of evicted origins: {@link #COUNTS} count words, then their tags. */
    private static final int BLOCK = 8;

    private static final int COUNTS = BLOCK - 1;
    /** The tag of a memory word written by origins of different tags. */
    private static final int SHARED = 0;

    // An index slot: hash bits (high 32) | referenced (bit 31) | limited (bit 30) | entry + 1 (low
    // 30: a segment holds at most its share of maxOrigins, an int, over up to 1,024 segments, with
    // slack, about 2.6 million at most); 0 when empty.
    private static final long REFERENCED = 1L << 31;
    /**
     * Set by a reader whose operation the key's last locked decision refused, cleared by one it
     * admitted ({@link #apply(long, long, long, long, Op, Op, long, boolean)}'s {@code refusal}): only
     * then is the read-only operation tried without the lock, so that an admission does not read
     * the cells twice. A hint: readers may write it in any order, and no answer depends on it.
     */
    private static final long LIMITED = 1L << 30;

    private static final long ENTRY = LIMITED - 1;

    /**
     * What the cells mean. Replaced only by a state that reads and writes them in the same way (a
     * new limit over the same windows); a reader that still sees the old one decides as it would
     * have a moment before.
     */
    private State state;
    /** The table this one took over from, asked what an origin that enters counts, until {@link #inheritedUntilNanos}; or null. */
    private volatile Inheritance inherited;
    /**
     * The table that took over from this one, set when it first asks this one for an origin (the
     * table is then <em>retired</em>): from then on no origin enters this table, and an operation
     * on an origin it does not hold is the successor's ({@link #RETIRED}). Set once (by
     * compare-and-swap: should two tables made from this one both be used, which only tests do,
     * the first is the successor).
     */
    private volatile OriginTable successor;

    private long inheritedUntilNanos;
    private final int stride;
    /** Longs per entry: the key, then the state's cells. */
    private final int width;

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
    /** Origins evicted to make room for new ones (idle origins swept are not counted). */
    private final LongAdder evicted = new LongAdder();

    OriginTable(State state, int maxOrigins) {
        if (maxOrigins < 1) {
            throw new IllegalArgumentException("max-origins must be at least 1, was " + maxOrigins);
        }
        this.state = state;
        this.stride = state.stride();
        this.width = stride + 1;
        this.maxOrigins = maxOrigins;
        // About 256 origins a segment at least, at most 1024 segments. Many segments keep each
        // segment's arrays small: under G1, an array over half a region (1 MB with a 4 GB heap) is
        // a humongous object rounded up to whole regions.
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
     * Applies {@code op} to the cells of {@code key}, inserting an entry first if {@code insert}
     * is set and the key is absent (zeroed, or restored from what the key left when it was
     * evicted).
     *
     * @return the operation's result, {@link #ABSENT} if the key is absent and not inserted, or
     *     {@link #FULL} if it could not be inserted
     */
    long apply(long key, long nowNanos, long a, long b, Op op, boolean insert) {
        return apply(key, nowNanos, a, b, op, null, insert);
    }

    /**
     * As {@link #apply(long, long, long, long, Op, boolean)}; first, if {@code readOnly} is not
     * null and the key is tracked, {@code readOnly} is applied to its cells without the segment's
     * lock (see the class comment): an operation that only reads, and returns what {@code op}
     * would return when it can tell without writing (a rejection: nothing to count), else {@link
     * #UNDECIDED}. It may read cells that another origin's entry holds by then, or that the
     * arrays no longer hold; its answer is used only if no writer took the lock meanwhile.
     */
    long apply(long key, long nowNanos, long a, long b, Op op, Op readOnly, boolean insert) {
        return apply(key, nowNanos, a, b, op, readOnly, UNDECIDED, insert);
    }

    /**
     * As {@link #apply(long, long, long, long, Op, Op, boolean)}, trying {@code readOnly} only while
     * the key's last decision under the lock returned {@code refusal} (a rejection is likely again:
     * a client at its limit), so that a client below it is not read twice; {@code refusal} {@link
     * #UNDECIDED}: always.
     */
    long apply(long key, long nowNanos, long a, long b, Op op, Op readOnly, long refusal, boolean insert) {
        long hash = mix(key);
        Segment segment = segments[segmentShift == 64 ? 0 : (int) (hash >>> segmentShift)];
        StampedLock lock = segment.lock;
        segment.prefetchRecall(hash);
        long stamp = lock.tryOptimisticRead();
        if (stamp != 0) {
            // Read the arrays once: a writer may replace them, and nothing read here counts until
            // the stamp is validated or converted.
            long[] slots = segment.slots;
            AtomicLongArray cells = segment.cells;
            int slot = segment.find(slots, cells, key, hash);
            if (slot >= 0) {
                long answer = readOnly == null
                        ? UNDECIDED
                        : answerUnlocked(lock, stamp, slots, cells, slot, nowNanos, a, b, readOnly, refusal);
                if (answer != UNDECIDED) {
                    return answer;
                }
                long readStamp = lock.tryConvertToReadLock(stamp);
                if (readStamp != 0) {
                    // No writer since the stamp: the slot and the arrays are as find() read them.
                    try {
                        return applyRead(slots, cells, slot, nowNanos, a, b, op, refusal);
                    } finally {
                        lock.unlockRead(readStamp);
                    }
                }
            } else if (!insert) {
                if (lock.validate(stamp)) {
                    return ABSENT;
                }
            } else if (successor == null) {
                // Absent, and the write lock at once if no thread holds the segment.
                long writeStamp = lock.tryConvertToWriteLock(stamp);
                if (writeStamp != 0) {
                    try {
                        return insertLocked(segment, key, hash, nowNanos, a, b, op);
                    } finally {
                        lock.unlockWrite(writeStamp);
                    }
                }
            }
        }
        stamp = lock.readLock();
        try {
            int slot = segment.find(key, hash);
            if (slot >= 0) {
                return applyRead(segment.slots, segment.cells, slot, nowNanos, a, b, op, refusal);
            }
            if (!insert) {
                return ABSENT;
            }
            if (successor != null) {
                return RETIRED; // off the path of a tracked origin: only a new one reads it
            }
            // The write lock: at once if no other thread reads the segment, else after the readers.
            long writeStamp = lock.tryConvertToWriteLock(stamp);
            if (writeStamp == 0) {
                lock.unlockRead(stamp);
                stamp = 0; // nothing held until the write lock is
                stamp = lock.writeLock();
                slot = segment.find(key, hash); // another thread may have inserted it meanwhile
                if (slot >= 0) {
                    return op.apply(segment.cells, base(segment.slots[slot]), nowNanos, a, b);
                }
            } else {
                stamp = writeStamp;
            }
            return insertLocked(segment, key, hash, nowNanos, a, b, op);
        } finally {
            if (stamp != 0) {
                lock.unlock(stamp);
            }
        }
    }

    /**
     * What {@code readOnly} answers from the cells of the key that {@code find} found at {@code
     * slot} of {@code slots}, read under the optimistic {@code stamp} with no lock held; {@link
     * #UNDECIDED} if it cannot tell, if a writer came in since the stamp (the cells may be another
     * origin's by then, or no longer the table's), if the key was not looked up since it was
     * inserted (its referenced bit is for a lock holder to set), or, for an operation with a {@code
     * refusal}, if its last decision under the lock was not that refusal (its limited bit).
     */
    private long answerUnlocked(
            StampedLock lock,
            long stamp,
            long[] slots,
            AtomicLongArray cells,
            int slot,
            long nowNanos,
            long a,
            long b,
            Op readOnly,
            long refusal) {
        long word = slots[slot]; // read again: a writer may have changed it since find() did
        int base = base(word);
        long needed = refusal == UNDECIDED ? REFERENCED : REFERENCED | LIMITED;
        if ((word & needed) != needed || base <= 0 || base + stride > cells.length()) {
            return UNDECIDED;
        }
        long answer = readOnly.apply(cells, base, nowNanos, a, b);
        return answer != UNDECIDED && lock.validate(stamp) ? answer : UNDECIDED;
    }

    /**
     * Applies {@code op} to the cells of the key at {@code slot}, the read lock held, and marks the
     * slot referenced and, for an operation with a {@code refusal}, limited or not by its result.
     * Only readers set these bits (a writer, which excludes them, clears the referenced one), so
     * readers racing here write the same hash bits and entry; the limited bit is a hint.
     */
    private long applyRead(
            long[] slots, AtomicLongArray cells, int slot, long nowNanos, long a, long b, Op op, long refusal) {
        long word = slots[slot];
        long result = op.apply(cells, base(word), nowNanos, a, b);
        long marked = word | REFERENCED;
        if (refusal != UNDECIDED) {
            marked = result == refusal ? marked | LIMITED : marked & ~LIMITED;
        }
        if (marked != word) {
            slots[slot] = marked;
        }
        return result;
    }

    /** Inserts {@code key}, known absent, and applies {@code op} to its cells; the write lock held. */
    private long insertLocked(Segment segment, long key, long hash, long nowNanos, long a, long b, Op op) {
        long at = segment.latest(nowNanos);
        int entry = segment.insert(key, hash, at);
        if (entry < 0) {
            return successor != null ? RETIRED : FULL;
        }
        // Later than `at` if the table taken over from forgot the key at a later reading.
        return op.apply(segment.cells, entry * width + 1, segment.latest(at), a, b);
    }

    /**
     * Applies {@code op}, which only reads, to the cells of {@code key}; or, if the key is not
     * tracked, to the cells it would start from if it entered now: those the state {@link
     * State#restore restores} from what the memory of evicted origins holds for it and, while the
     * windows of a table this one {@link #inherit took over from} count, from at least what that
     * table would hand over, read without handing the key over ({@link Inheritance#peek}). So an
     * origin evicted since its last decision (by another thread's new origin, say, before what it
     * is told is read) reads as limited as it finds itself when it comes back, and so does one that
     * the table taken over from still holds.
     *
     * <p>The segment's read lock is held while the table taken over from is read: the key cannot
     * be handed over meanwhile (that takes this segment's write lock), so it is read in one table or
     * the other. Locks are taken from the newer table to the older only, never the other way.
     *
     * @return the operation's result, {@link #RETIRED} if the key is not tracked and the table is
     *     retired (then its successor holds what the key counts, or reads it here), or {@link
     *     #ABSENT} if the key is not tracked and nothing holds anything for it
     */
    long read(long key, long nowNanos, long a, long b, Op op) {
        long hash = mix(key);
        Segment segment = segments[segmentShift == 64 ? 0 : (int) (hash >>> segmentShift)];
        // A tracked key's answer without the lock, as apply() reads a rejection (the class comment).
        long optimistic = segment.lock.tryOptimisticRead();
        if (optimistic != 0) {
            long[] slots = segment.slots;
            AtomicLongArray cells = segment.cells;
            int slot = segment.find(slots, cells, key, hash);
            if (slot >= 0) {
                long answer =
                        answerUnlocked(segment.lock, optimistic, slots, cells, slot, nowNanos, a, b, op, UNDECIDED);
                if (answer != UNDECIDED) {
                    return answer;
                }
            }
        }
        long stamp = segment.lock.readLock();
        try {
            int slot = segment.find(key, hash);
            if (slot >= 0) {
                return applyRead(segment.slots, segment.cells, slot, nowNanos, a, b, op, UNDECIDED);
            }
            if (successor != null) {
                return RETIRED;
            }
            long remembered = segment.memory == null ? 0 : segment.recall(hash, nowNanos);
            Inheritance previous = inheritance(nowNanos);
            if (previous != null) {
                remembered = state.atLeast(remembered, previous.peek(key, nowNanos), nowNanos);
            }
            if (remembered == 0) {
                return ABSENT;
            }
            // Off the decision path (an evicted origin's report): a few longs, as insert() would restore them.
            AtomicLongArray cells = new AtomicLongArray(stride);
            state.restore(cells, 0, remembered, nowNanos);
            return op.apply(cells, 0, nowNanos, a, b);
        } finally {
            segment.lock.unlockRead(stamp);
        }
    }

    /**
     * From now on the cells mean what {@code next} says: the same layout, e.g. another limit over
     * the same windows.
     */
    void adopt(State next) {
        if (next.stride() != stride) {
            throw new IllegalArgumentException("a state of another layout");
        }
        this.state = next;
    }

    /**
     * Until {@code untilNanos}, an origin that enters this (new, empty) table starts from at least
     * what {@code previous} holds for it.
     */
    void inherit(Inheritance previous, long untilNanos) {
        this.inheritedUntilNanos = untilNanos;
        this.inherited = previous;
    }

    /**
     * Hands {@code key} over to a table that takes over from this one: returns what this table
     * counts for it at {@code nowNanos}, as a word the state {@link State#remember remembers} (its
     * window if tracked, else what the memory of evicted origins holds for it, and in either case
     * at least what a table this one {@link #inherit took over from} holds; 0 for nothing), and
     * evicts it. The first call retires the table: no origin enters it any more. So an operation
     * still under way on this table (one that began before the new table was in force) either
     * counted before the hand-over, and the word holds it, or finds the key gone and is told so
     * ({@link #RETIRED}), to be decided by the successor: nothing is counted here after the
     * hand-over, so nothing is lost, and nothing is counted in both tables.
     *
     * <p>A tracked window is remembered as at {@code supersededNanos}, when the new table came
     * into force (or in the bucket of the last admission, if later): what it counts is placed
     * there, not in the bucket of the hand-over, so that a client seen again late in the window
     * is not held for a whole window more than it would have been.
     *
     * <p>{@code reading[0]} is the clock reading of the insertion that asks. This table may have
     * forgotten the key (swept it, or evicted it and let its memory word be overwritten) at a later
     * reading, one a thread still on this table brought: as of the older reading what it counted
     * would be lost. So the key is handed over as of the latest reading an insertion brought to its
     * segment, if later, and {@code reading[0]} moves on to it: the new table takes the key over at
     * that reading too (as {@link Segment#latestNanos} does within one table).
     *
     * <p>{@code heir} is the table that asks: the first to ask is this table's {@link #successor()}.
     */
    long handOver(long key, long[] reading, long supersededNanos, OriginTable heir) {
        if (successor == null) {
            SUCCESSOR.compareAndSet(this, null, heir);
        }
        long hash = mix(key);
        Segment segment = segments[segmentShift == 64 ? 0 : (int) (hash >>> segmentShift)];
        long word;
        // The write lock, as for an eviction: no window is rolling while the state remembers it.
        // (A table only ever asks the one it took over from, so no two wait for each other.)
        long stamp = segment.lock.writeLock();
        try {
            long nowNanos = segment.latest(reading[0]);
            reading[0] = nowNanos;
            word = segment.handOver(key, hash, nowNanos, nowNanos - supersededNanos > 0 ? supersededNanos : nowNanos);
        } finally {
            segment.lock.unlockWrite(stamp);
        }
        return inheritedWord(word, key, reading);
    }

    /**
     * At least {@code word} and what the table this one took over from holds for {@code key}, as at
     * {@code reading[0]}, which the tables asked may move on (see {@link #handOver}).
     */
    private long inheritedWord(long word, long key, long[] reading) {
        Inheritance previous = inheritance(reading[0]);
        if (previous == null) {
            return word;
        }
        long handed = previous.handOver(key, reading, this);
        return state.atLeast(word, handed, reading[0]);
    }

    /**
     * What {@link #handOver} would return for {@code key} at {@code nowNanos}, without handing it
     * over: this table keeps it (and is not retired by the question). For a table that took over
     * from this one and reads a key it has not taken over yet ({@link #read}).
     */
    long peek(long key, long nowNanos, long supersededNanos) {
        long hash = mix(key);
        Segment segment = segments[segmentShift == 64 ? 0 : (int) (hash >>> segmentShift)];
        StampedLock lock = segment.lock;
        long word;
        // The read lock for a key not tracked here (its memory word is written under the write
        // lock); the write lock for a tracked one, as for a hand-over: no window is rolling while
        // the state remembers it.
        long stamp = lock.readLock();
        try {
            if (segment.find(key, hash) >= 0) {
                long writeStamp = lock.tryConvertToWriteLock(stamp);
                if (writeStamp == 0) {
                    lock.unlockRead(stamp);
                    stamp = 0; // nothing held until the write lock is
                    writeStamp = lock.writeLock();
                }
                stamp = writeStamp;
            }
            long at = segment.timed && segment.latestNanos - nowNanos > 0 ? segment.latestNanos : nowNanos;
            word = segment.peek(key, hash, at, at - supersededNanos > 0 ? supersededNanos : at);
        } finally {
            if (stamp != 0) {
                lock.unlock(stamp);
            }
        }
        Inheritance previous = inheritance(nowNanos);
        return previous == null ? word : state.atLeast(word, previous.peek(key, nowNanos), nowNanos);
    }

    /** The table that took over from this one ({@link #RETIRED}), or null while none has. */
    OriginTable successor() {
        return successor;
    }

    /** What the cells mean now (the state last {@link #adopt adopted}). */
    State state() {
        return state;
    }

    /**
     * The table this one took over from, or null once its windows have passed at {@code nowNanos}
     * (then nothing in it counts any more, and this table lets go of it).
     */
    Inheritance inheritance(long nowNanos) {
        Inheritance previous = inherited;
        if (previous != null && nowNanos - inheritedUntilNanos > 0) {
            inherited = null;
            return null;
        }
        return previous;
    }

    /**
     * Lets go of every table, this one's predecessors and theirs, whose windows have passed at
     * {@code nowNanos}. A table lets go of its predecessor only when asked ({@link #inheritance}),
     * and one that no origin enters is never asked: without this, tables made by reloads of a rule
     * that sees no new client would each keep all the tables before them.
     */
    void letGoOfPassed(long nowNanos) {
        for (Inheritance previous = inheritance(nowNanos); previous != null; ) {
            previous = previous.table().inheritance(nowNanos);
        }
    }

    /** This table and those it (still) takes origins over from, through every {@link #inherit}. */
    int tablesKept() {
        int tables = 1;
        for (Inheritance previous = inherited; previous != null; previous = previous.table().inherited) {
            tables++;
        }
        return tables;
    }

    /** Origins tracked now. */
    int size() {
        return tracked.get();
    }

    /**
     * Origins whose state's {@link State#pressure pressure} is at least {@code pressure} at {@code
     * nowNanos} (clients at their limit now, say): a scan of every entry under each segment's read
     * lock, for monitoring, never on the request path. While this table takes origins over from
     * another ({@link #inherit}), an origin that one still holds counts as it would start here if it
     * came now ({@link #read}): a reload that gives a rule a new table does not hide its clients at
     * their limit until they come back. (An origin handed over while the tables are scanned may be
     * missed, never counted twice: origins only move to the newer table, which is scanned first.)
     */
    int countAtLeast(long pressure, long nowNanos) {
        int count = countOwnAtLeast(pressure, nowNanos);
        Op pressureNow = (cells, base, now, unused1, unused2) -> state.pressure(cells, base, now);
        for (Inheritance previous = inheritance(nowNanos);
                previous != null;
                previous = previous.table().inheritance(nowNanos)) {
            for (long key : previous.table().keys()) {
                long held = read(key, nowNanos, 0, 0, pressureNow);
                if (held != ABSENT && held != RETIRED && held >= pressure) {
                    count++;
                }
            }
        }
        return count;
    }

    /** The keys this table tracks now; for {@link #countAtLeast}, never on the request path. */
    private long[] keys() {
        long[] keys = new long[size()];
        int n = 0;
        for (Segment segment : segments) {
            long stamp = segment.lock.readLock();
            try {
                if (n + segment.size > keys.length) { // origins entered since size() was read
                    keys = Arrays.copyOf(keys, Math.max(n + segment.size, keys.length + keys.length / 2));
                }
                for (long word : segment.slots) {
                    if (word != 0) {
                        keys[n++] = segment.cells.getPlain(entry(word) * width);
                    }
                }
            } finally {
                segment.lock.unlockRead(stamp);
            }
        }
        return Arrays.copyOf(keys, n);
    }

    /** {@link #countAtLeast} in this table's own entries. */
    private int countOwnAtLeast(long pressure, long nowNanos) {
        int count = 0;
        for (Segment segment : segments) {
            long stamp = segment.lock.readLock();
            try {
                for (long word : segment.slots) {
                    if (word != 0 && state.pressure(segment.cells, base(word), nowNanos) >= pressure) {
                        count++;
                    }
                }
            } finally {
                segment.lock.unlockRead(stamp);
            }
        }
        return count;
    }

    /**
     * Origins whose entry is their predicted one (see the class comment), whose lookups read the
     * index and the entry at once: for the tests.
     */
    int atPredictedEntry() {
        int count = 0;
        for (Segment segment : segments) {
            long stamp = segment.lock.readLock();
            try {
                for (long word : segment.slots) {
                    if (word != 0 && entry(word) == segment.predicted(word >>> 32)) {
                        count++;
                    }
                }
            } finally {
                segment.lock.unlockRead(stamp);
            }
        }
        return count;
    }

    /** Origins evicted since the table was made, each to make room for a new one. */
    long evictions() {
        return evicted.sum();
    }

    int maxOrigins() {
        return maxOrigins;
    }

    /** Bytes of the table's arrays (index, entries, memory of evicted origins, array headers) now. */
    long footprintBytes() {
        long bytes = 0;
        for (Segment segment : segments) {
            long stamp = segment.lock.readLock();
            try {
                bytes += 16 + 8L * segment.slots.length + 16 + 8L * segment.cells.length() + 64; // + Segment, lock
                bytes += 16 + 8L * segment.taken.length;
                bytes += segment.memory == null ? 0 : 16 + 8L * segment.memory.length;
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

    private static int entry(long word) {
        return (int) (word & ENTRY) - 1;
    }

    /** Where the state of an index slot's entry starts. */
    private int base(long word) {
        return entry(word) * width + 1;
    }

    /**
     * One segment. Fields are guarded by {@code lock}; cells are also CAS-updated, referenced bits
     * set and limited bits set or cleared, under the read lock.
     */
    private final class Segment {
        final StampedLock lock = new StampedLock();
        /** The most origins this segment tracks. */
        final int maxEntries;

        /** The index: hash bits | referenced | limited | entry + 1, by slot; 0 for an empty slot. */
        long[] slots;

        /** The entries, {@code width} longs each: the key, then the state; all zero while free. */
        AtomicLongArray cells;
        /** Entries the arrays hold: {@code cells.length() / width}. */
        int entries;
        /** A bit per entry, set while an origin uses it (and for the bits past {@code entries}). */
        long[] taken;
        /** The word of {@code taken} that {@link #anyFreeEntry} looks at first. */
        int freeCursor;

        int size;
        int hand;
        int sweepCursor;
        /**
         * The last {@link #RECENT} insertions, the oldest at {@code recentNext}: each its index slot
         * (high half) and entry + 1 (low half), 0 for none. The slot lets the eviction read the
         * index and the entry's cells at once, rather than the key first and then its slot.
         */
        final long[] recent = new long[RECENT];

        int recentNext;
        /** The slots whose entries the hand last gave a second chance, in {@link #evictionCandidate}. */
        final int[] sparedSlots = new int[EVICTION_SAMPLE];
        /**
         * The latest clock reading an insertion brought to this segment (valid once {@code timed}).
         * Threads read the clock before they reach the table, so an insertion may come with an
         * older reading than one before it, at which an idle origin was swept or an evicted one's
         * use judged gone from its window; inserted at the older reading, that origin would start
         * over where its old use still counts. So an insertion, and the new origin's first
         * operation, take the latest reading.
         */
        long latestNanos;

        boolean timed;
        /** The memory of evicted origins, in blocks of {@link #BLOCK} words; null until needed. */
        long[] memory;

        Segment(int maxEntries) {
            this.maxEntries = Math.max(1, maxEntries);
            int capacity = Math.min(MIN_CAPACITY, this.maxEntries);
            slots = new long[indexCapacityFor(capacity)];
            cells = new AtomicLongArray(capacity * width);
            entries = capacity;
            taken = emptyTaken(capacity);
        }

        /** The entry a hash's origin takes if it is free: from the same bits as the home slot, scaled to the entries. */
        private int predicted(long hash) {
            return (int) (((hash & 0xffffffffL) * entries) >>> 32);
        }

        /** Home slot of a hash: the high bits of its low word scaled to the index (no power of two needed). */
        private int home(long hash) {
            return (int) (((hash & 0xffffffffL) * slots.length) >>> 32);
        }

        private int next(int slot) {
            return slot + 1 == slots.length ? 0 : slot + 1;
        }

        int find(long key, long hash) {
            return find(slots, cells, key, hash);
        }

        /**
         * The slot of {@code key} in {@code slots}, whose entries are in {@code cells}, or -1. Also
         * with the lock not held (an optimistic read): the arrays may then be another time's than
         * each other and than {@link #entries}, so no index is trusted before it is checked, and
         * the probe stops after one turn.
         */
        int find(long[] slots, AtomicLongArray cells, long key, long hash) {
            int bits = (int) hash;
            int predicted = predicted(hash) * width;
            // Read with the index slot, not after it (an opaque read stays where it is written):
            // both are likely cache misses, which the processor then waits for at once; for most
            // origins the key read is the one the slot names (see the class comment).
            long predictedKey = predicted < cells.length() ? cells.getOpaque(predicted) : 0;
            int length = slots.length;
            int slot = (int) (((hash & 0xffffffffL) * length) >>> 32);
            for (int probes = length; probes > 0; probes--) {
                long word = slots[slot];
                if (word == 0) {
                    return -1;
                }
                if ((int) (word >>> 32) == bits) {
                    int at = entry(word) * width;
                    if (at == predicted
                            ? predictedKey == key
                            : at >= 0 && at < cells.length() && cells.getPlain(at) == key) {
                        return slot;
                    }
                }
                slot = slot + 1 == length ? 0 : slot + 1;
            }
            return -1;
        }

        /**
         * Inserts an absent key: returns its entry, zeroed or restored from the memory of evicted
         * origins, or -1 if it may not be tracked. Write lock held.
         */
        int insert(long key, long hash, long nowNanos) {
            if (successor != null) {
                return -1; // retired
            }
            // What the key left when it was evicted, read first: the read is likely a cache miss,
            // and the processor can wait for it while it finds a victim. (A victim is tracked, so
            // it is never this key, and what it leaves below cannot concern this key.)
            long remembered = memory == null ? 0 : recall(hash, nowNanos);
            int entry;
            if (size < maxEntries && claimPlace()) {
                for (int i = 0; i < SWEEP_PER_INSERT; i++) {
                    sweep(nowNanos);
                }
                entry = freeEntry(hash);
            } else {
                int victim = recentVictim(nowNanos);
                if (victim < 0) {
                    victim = evictionCandidate(nowNanos);
                }
                if (victim < 0) {
                    return -1;
                }
                // The new origin takes over the victim's place in `tracked`, and its entry unless
                // its own predicted one is free (find() has just read it).
                evicted.increment();
                entry = entry(slots[victim]);
                remember(slots[victim], entry, nowNanos);
                unlink(victim);
                int predicted = predicted(hash);
                if (predicted != entry && !isTaken(predicted)) {
                    release(entry);
                    entry = predicted;
                    take(entry);
                } else {
                    clearCells(entry);
                }
            }
            int slot = home(hash);
            while (slots[slot] != 0) {
                slot = next(slot);
            }
            slots[slot] = (hash << 32) | (entry + 1);
            cells.setPlain(entry * width, key);
            size++;
            recent[recentNext] = (long) slot << 32 | (entry + 1);
            recentNext = (recentNext + 1) & (RECENT - 1);
            if (inheritance(nowNanos) != null) {
                // The table taken over from may have forgotten the key at a later reading: then
                // the key enters at that one (apply's operation too: it asks latest() again).
                long[] reading = {nowNanos};
                remembered = inheritedWord(remembered, key, reading);
                nowNanos = latest(reading[0]);
            }
            if (remembered != 0) {
                state.restore(cells, entry * width + 1, remembered, nowNanos);
            }
            return entry;
        }

        /** The later of {@code nowNanos} and the latest reading an insertion brought here; write lock held. */
        long latest(long nowNanos) {
            if (!timed || nowNanos - latestNanos > 0) {
                latestNanos = nowNanos;
                timed = true;
            }
            return latestNanos;
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

        /**
         * A zeroed entry no origin uses, now taken, for an origin of this hash: its predicted entry
         * if free, else any free one; the arrays grow first if every entry is taken (size <
         * maxEntries).
         */
        private int freeEntry(long hash) {
            if (size == entries) {
                resize(Math.min(maxEntries, Math.max(MIN_CAPACITY, entries + entries / 2)));
            }
            int entry = predicted(hash);
            if (isTaken(entry)) {
                entry = anyFreeEntry();
            }
            take(entry);
            return entry;
        }

        /** A free entry (one must be), from the word of {@link #taken} at the cursor on. */
        private int anyFreeEntry() {
            for (int w = freeCursor; ; w = w + 1 == taken.length ? 0 : w + 1) {
                long free = ~taken[w];
                if (free != 0) {
                    freeCursor = w;
                    return w * Long.SIZE + Long.numberOfTrailingZeros(free);
                }
            }
        }

        private boolean isTaken(int entry) {
            return (taken[entry >>> 6] & (1L << entry)) != 0;
        }

        private void take(int entry) {
            taken[entry >>> 6] |= 1L << entry;
        }

        /** A bitmap of {@code capacity} free entries, the bits past them set (never handed out). */
        private static long[] emptyTaken(int capacity) {
            long[] bits = new long[(capacity + Long.SIZE - 1) / Long.SIZE];
            if (capacity % Long.SIZE != 0) {
                bits[bits.length - 1] = -1L << capacity;
            }
            return bits;
        }

        /** Index slots for {@code entries} at most three quarters full, plus one free slot. */
        private int indexCapacityFor(int entries) {
            return (int) Math.min(Integer.MAX_VALUE, entries * 4L / 3 + 2);
        }

        /** Frees the entry at the slot past the cursor if it is idle. */
        private void sweep(long nowNanos) {
            int slot = sweepCursor;
            sweepCursor = next(sweepCursor);
            long word = slots[slot];
            if (word != 0 && state.pressure(cells, base(word), nowNanos) == 0) {
                unlink(slot);
                release(entry(word));
                tracked.decrementAndGet();
            }
        }

        /**
         * The slot of the entry inserted {@link #RECENT} insertions ago, if it is still tracked, was
         * not used since and is not saturated: a one-off origin. Its cells are likely still in the
         * processor's cache, unlike those of an entry the hand finds anywhere in the segment; -1 if
         * there is no such entry.
         */
        private int recentVictim(long nowNanos) {
            long recentWord = recent[recentNext];
            int entry = (int) recentWord - 1;
            if (entry < 0 || entry >= entries) {
                return -1;
            }
            int slot = (int) (recentWord >>> 32);
            long word = slots[slot];
            if (entry(word) != entry) {
                // Shifted back by a deletion since (or the entry freed): find it by its key.
                long key = cells.getPlain(entry * width);
                slot = find(key, mix(key));
                if (slot < 0) {
                    return -1;
                }
                word = slots[slot];
            }
            return entry(word) == entry
                            && (word & REFERENCED) == 0
                            && state.pressure(cells, base(word), nowNanos) < state.saturation()
                    ? slot
                    : -1;
        }

        /**
         * The slot of the entry to evict, found by the CLOCK hand. If the hand finds {@link
         * #EVICTION_SAMPLE} saturated entries first: the first of them if the state {@link
         * State#remembers() remembers} evicted entries; else the first entry below saturation among
         * those it gave a second chance in this call (used since the hand last passed, but holding
         * nothing that an eviction would lose: better than refusing the new origin); else -1 (also
         * for an empty segment).
         */
        private int evictionCandidate(long nowNanos) {
            long saturation = state.saturation();
            int saturated = 0;
            int firstSaturated = -1;
            int spared = 0;
            // Two turns at most: the first may only clear referenced bits.
            for (int step = 2 * slots.length; step > 0 && saturated < EVICTION_SAMPLE; step--) {
                int slot = hand;
                hand = next(hand);
                long word = slots[slot];
                if (word == 0) {
                    continue;
                }
                if ((word & REFERENCED) != 0) {
                    slots[slot] = word & ~REFERENCED; // a second chance
                    if (spared < EVICTION_SAMPLE) {
                        sparedSlots[spared++] = slot;
                    }
                    continue;
                }
                if (state.pressure(cells, base(word), nowNanos) < saturation) {
                    return slot;
                }
                firstSaturated = saturated++ == 0 ? slot : firstSaturated;
            }
            // Evicting a saturated entry is safe only if its origin comes back as limited as it left.
            if (state.remembers()) {
                return firstSaturated;
            }
            // The hand met the sample's saturated entries within its first turn, before it came back
            // to the entries it spared (under the write lock: no slot moved since).
            for (int i = 0; i < spared; i++) {
                int slot = sparedSlots[i];
                if (state.pressure(cells, base(slots[slot]), nowNanos) < saturation) {
                    return slot;
                }
            }
            return -1;
        }

        /**
         * What the key counts, remembered as at {@code asOfNanos} (at most {@code nowNanos}); what
         * the memory of evicted origins holds for it if it is not tracked. The write lock held if
         * it is tracked, else at least the read lock.
         */
        long peek(long key, long hash, long nowNanos, long asOfNanos) {
            int slot = find(key, hash);
            if (slot < 0) {
                return memory == null ? 0 : recall(hash, nowNanos);
            }
            return state.remember(cells, base(slots[slot]), asOfNanos);
        }

        /**
         * Takes the key out and returns what it counted, remembered as at {@code asOfNanos} (at
         * most {@code nowNanos}); what the memory of evicted origins holds for it if it is not
         * tracked. (The table that takes it over remembers it from then on.)
         */
        long handOver(long key, long hash, long nowNanos, long asOfNanos) {
            int slot = find(key, hash);
            if (slot < 0) {
                return memory == null ? 0 : recall(hash, nowNanos);
            }
            long slotWord = slots[slot];
            int entry = entry(slotWord);
            long word = state.remember(cells, base(slotWord), asOfNanos);
            unlink(slot);
            release(entry);
            tracked.decrementAndGet();
            return word;
        }

        /** Writes what an entry still counts into the memory of evicted origins. */
        private void remember(long slotWord, int entry, long nowNanos) {
            long word = state.remember(cells, entry * width + 1, nowNanos);
            if (word == 0) {
                return;
            }
            if (memory == null) {
                memory = new long[Math.max(2 * BLOCK, MEMORY_WORDS * Integer.highestOneBit(maxEntries))];
            }
            // The index keeps the low half of the hash: the memory needs no more.
            long bits = memoryBits(slotWord >>> 32);
            int block = block(bits, memory);
            int first = firstCount(bits);
            int second = secondCount(bits, first);
            int tag = tag(bits);
            long tags = memory[block + COUNTS];
            tags = write(block, first, tags, tag, word, nowNanos);
            memory[block + COUNTS] = write(block, second, tags, tag, word, nowNanos);
        }

        /** Writes {@code word} of an origin tagged {@code tag} into count {@code i} of a block; returns the block's new tags. */
        private long write(int block, int i, long tags, int tag, long word, long nowNanos) {
            long held = memory[block + i];
            int shift = 8 * i;
            int heldTag = (int) (tags >>> shift) & 0xff;
            if (!state.counts(held, nowNanos)) {
                memory[block + i] = word;
            } else {
                memory[block + i] = state.atLeast(held, word, nowNanos);
                tag = heldTag == tag ? tag : SHARED;
            }
            return (tags & ~(0xffL << shift)) | ((long) tag << shift);
        }

        /**
         * Starts reading the words {@link #recall} reads for a key of this hash, if there is a memory
         * of evicted origins: a new key's index slot and these words are both likely cache misses,
         * and read one after the other (the index first, to tell a new key) the processor would wait
         * for each in turn. Opaque reads, so that the compiler keeps them where they are although
         * their values are not used (a new client at a full table measured about 7 % faster).
         * Called without the segment's lock: the memory is read from its field once (it is set
         * once, and never replaced), and nothing read here is used.
         */
        void prefetchRecall(long hash) {
            long[] words = memory;
            if (words != null) {
                // A block may straddle two cache lines: its first word and its tags are in each.
                int block = block(memoryBits(hash & 0xffffffffL), words);
                long first = (long) MEMORY_WORD.getOpaque(words, block);
                long tags = (long) MEMORY_WORD.getOpaque(words, block + COUNTS);
            }
        }

        /** What the memory holds for a key of this hash: at least what it left when evicted. */
        private long recall(long hash, long nowNanos) {
            long bits = memoryBits(hash & 0xffffffffL);
            int block = block(bits, memory);
            int first = firstCount(bits);
            long held = memory[block + first];
            if (held == 0) {
                return 0;
            }
            int tag = tag(bits);
            long tags = memory[block + COUNTS];
            int second = secondCount(bits, first);
            if (!countsFor(tags, first, tag) || !countsFor(tags, second, tag)) {
                return 0; // a word with another origin's tag holds nothing of this one
            }
            return state.atMost(held, memory[block + second], nowNanos);
        }

        /** Whether count {@code i} of a block, with the block's {@code tags}, may hold what an origin tagged {@code tag} left. */
        private static boolean countsFor(long tags, int i, int tag) {
            int held = (int) (tags >>> (8 * i)) & 0xff;
            return held == SHARED || held == tag;
        }

        /** A second mix of the hash's low half: the home slot already uses its high bits. */
        private long memoryBits(long lowHash) {
            long h = lowHash * 0x9e3779b97f4a7c15L;
            return h ^ (h >>> 29);
        }

        /**
         * The first word of the key's block in {@code words}, the memory (passed in, so that a
         * reader without the lock reads the field once): from the bits' high half.
         */
        private static int block(long bits, long[] words) {
            int blocks = words.length / BLOCK;
            return (int) (((bits >>> 32) * blocks) >>> 32) * BLOCK;
        }

        /** The key's first count in its block: from bits 0-15. */
        private static int firstCount(long bits) {
            return (int) ((bits & 0xffff) % COUNTS);
        }

        /** Another count of the block: from bits 24-31. */
        private static int secondCount(long bits, int first) {
            return (first + 1 + (int) (((bits >>> 24) & 0xff) % (COUNTS - 1))) % COUNTS;
        }

        /** The key's tag, 1 to 255: from bits 16-23. */
        private static int tag(long bits) {
            return 1 + (int) (((bits >>> 16) & 0xff) % 255);
        }

        /** Removes index slot {@code slot}, shifting later slots of its probe run back. */
        private void unlink(int slot) {
            int hole = slot;
            for (int probe = next(hole); slots[probe] != 0; probe = next(probe)) {
                int home = home(slots[probe] >>> 32);
                // Move the slot into the hole unless its home lies cyclically in (hole, probe].
                boolean homeBetween = hole <= probe ? (home > hole && home <= probe) : (home > hole || home <= probe);
                if (!homeBetween) {
                    slots[hole] = slots[probe];
                    hole = probe;
                }
            }
            slots[hole] = 0;
            size--;
        }

        /** Zeroes an unlinked entry and frees it. */
        private void release(int entry) {
            clearCells(entry);
            taken[entry >>> 6] &= ~(1L << entry);
        }

        private void clearCells(int entry) {
            for (int i = entry * width, end = i + width; i < end; i++) {
                cells.setPlain(i, 0);
            }
        }

        /**
         * Moves the live entries into arrays of {@code capacity} entries (at least {@code size}),
         * each to its predicted entry in them if no other took it first, and rebuilds the index for
         * them.
         */
        private void resize(int capacity) {
            long[] oldSlots = slots;
            AtomicLongArray oldCells = cells;
            slots = new long[indexCapacityFor(capacity)];
            cells = new AtomicLongArray(capacity * width);
            entries = capacity;
            taken = emptyTaken(capacity);
            freeCursor = 0;
            // The new slots of entries whose predicted entry another took: placed once all others are.
            int[] displaced = new int[size];
            int[] displacedFrom = new int[size];
            int count = 0;
            for (long word : oldSlots) {
                if (word == 0) {
                    continue;
                }
                int to = home(word >>> 32);
                while (slots[to] != 0) {
                    to = next(to);
                }
                int entry = predicted(word >>> 32);
                if (isTaken(entry)) {
                    slots[to] = word; // a placeholder, until the entry is chosen below
                    displaced[count] = to;
                    displacedFrom[count++] = entry(word);
                } else {
                    take(entry);
                    moveEntry(oldCells, entry(word), entry);
                    slots[to] = (word & ~ENTRY) | (entry + 1);
                }
            }
            for (int i = 0; i < count; i++) {
                int entry = anyFreeEntry();
                take(entry);
                moveEntry(oldCells, displacedFrom[i], entry);
                slots[displaced[i]] = (slots[displaced[i]] & ~ENTRY) | (entry + 1);
            }
            Arrays.fill(recent, 0);
            hand = 0;
            sweepCursor = 0;
        }

        private void moveEntry(AtomicLongArray from, int source, int entry) {
            for (int i = 0; i < width; i++) {
                cells.setPlain(entry * width + i, from.getPlain(source * width + i));
            }
        }
    }
}
