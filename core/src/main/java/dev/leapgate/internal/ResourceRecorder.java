package dev.leapgate.internal;

import dev.leapgate.Clock;
import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.stats.StatsTotals;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Records the statistics of one resource on the request path, for two uncontended atomic additions
 * per request (a third for a response of 65 ms or more; a compare-and-set when a request raises
 * the second's peak in flight or lowers its minimum response time), and answers {@link
 * ResourceStats} from them.
 *
 * <h2>From striped buckets to running counts</h2>
 *
 * The obvious design keeps a ring of per-second buckets and adds each event to the bucket of its
 * time. Every event then looks up its bucket, and a bucket that rolls over must be reset or
 * replaced: either a new object per second, or a reset in place that races with late writers.
 * Here the request path never looks for a bucket. It adds to a few <em>running counts</em> that
 * are never reset, and once a second the first event after a second boundary (or a reader) takes
 * the difference since the previous boundary and files it in a ring of per-second records. A
 * window is the sum of its seconds' records plus what the running counts gained since the last
 * boundary.
 *
 * <pre>
 *   running (request path)             ring of seconds (filed once a second, under the roll lock)
 *   admissions (with an entry)         [s-2: adm 840, rej 3, ...] [s-1: adm 911, ...]
 *   instants, rejections (striped)     live second s = running - running at the last roll
 *   successes = count | rt
 *   failures = count | rt
 *   late failures, borrowed, shadow rejections
 * </pre>
 *
 * <h2>Two atomic additions per request</h2>
 *
 * An admission with an entry adds 1 to {@code admissions}, one without ({@code
 * Limiter.tryAcquire}) 1 to {@code instants}, a rejection 1 to {@code rejections}; a completion
 * adds {@code 1 | rt << 24} to {@code successes}, or to {@code failures} if it failed (a count in
 * the low 24 bits, the response time in microseconds in the high 40). One word per outcome, so
 * that a failed request is counted, as completed and as failed, by one addition: a reader that saw
 * its completion before its failure (two words) would show one success too many, taken back a
 * moment later. A request failed after its close (a success
 * turned into a failure) adds 1 to {@code lateFailures}: the statistics' successes are successes
 * minus late failures. Requests in flight are not counted either: they are admissions with an
 * entry minus both outcomes' completions. The packed fields wrap; only their differences over one
 * second are ever used, which are exact while a second holds fewer than 2<sup>24</sup> completions
 * of each outcome. A count's wrap carries 1 into the response time above it, so a difference is
 * taken of the whole words and then split: {@code (suc - seen) >>> 24}, never {@code (suc >>> 24)
 * - (seen >>> 24)}, which would count each carry as a microsecond of response time (one per
 * 2<sup>24</sup> completions).
 *
 * <p>{@code instants} and {@code rejections} are {@link LongAdder}s: one compare-and-set while a
 * single thread adds, a cell per thread once threads collide. They are what the cheapest calls
 * add, a rate limit's {@code tryAcquire} and every rejection, and those calls write nothing else
 * but the limit's window (a rejection not even that): threads deciding on one limit at once then
 * contend on the window's word alone, not also on a statistics word (at 2 threads,
 * {@code tryAcquire} went from 165-261 to 95-128 ns, and a rejection from 92-100 to 31 ns, in the
 * slower of the two modes this machine runs two threads in: BENCHMARKS.md). Their sums are read
 * only by a roll and by readers; each part only grows and is read with a volatile read, so a later
 * sum is never below an earlier one, and an addition a sum misses is in the next. The price in
 * memory: an adder is a few dozen bytes until threads collide on it, then it gains cells, padded to
 * lines of their own, at most about one per processor.
 *
 * <p>A response time of {@value #LONG_RT_UNITS} microseconds (65 ms) or more is not packed: it
 * adds to {@code longRtUnits}, a count of its own, besides the completion's 1 (a second atomic
 * addition, for requests that took that long). So what a second packs is below 2<sup>24</sup>
 * completions times 2<sup>16</sup> microseconds, which the 40 bits hold: a few hundred streams
 * or long polls open for an hour and closed in the same second (a deploy) would otherwise wrap
 * them, and lose 12.7 days of response time at each wrap. The price: a second filed between a
 * long completion's two additions gets its response time without its count, and the next second
 * its count without the response time (a window of a few nanoseconds per such completion; the
 * totals, and a window holding both seconds, are exact).
 *
 * <p>Requests in flight read this way can only be under-estimated: the engine counts an admission
 * after its slots are taken, and a completion before they are given back, and a reader sees the
 * admission before the completions read after it. So the peak, kept as a running maximum per
 * second, never exceeds an enforced in-flight limit; it can be too low, by the requests that
 * completed between an admission's count and its reading of the completions.
 *
 * <h2>The minimum response time</h2>
 *
 * A completion lowers the running minimum ({@code minRtUnits}, in microseconds like the sums)
 * before it is counted, and a roll reads the counts before it takes the minimum and resets it in
 * one {@code getAndSet}: a completion counted in a second has lowered that second's minimum or the
 * one before. The one before is possible (a completion that lowered the minimum just before a roll
 * took it, and was counted just after the roll read the counts), so a second can hold completions
 * whose minimum is not its own: none at all, or only the others'. A reader therefore never reports
 * more than a part's average for its minimum (the average is an upper bound of the true minimum),
 * and uses the average where a part with completions has no minimum: a window with completions
 * always has a minimum, and min &le; average holds in every snapshot.
 *
 * <h2>Concurrency</h2>
 *
 * The running counts are written with atomic additions by any thread, without locks. Filing a
 * second, and reading, take a one-bit lock: the request path only ever tries it (a thread that
 * finds it taken goes on, and the next event files the second), a reader spins for it, and reads
 * the clock once it holds it, so that no second is filed after its reading. Everything
 * behind the lock (the ring, the roller's last-seen counts and totals) is plain memory guarded by
 * it. An event racing with a roll may be filed in the second before or after its own; counts are
 * never lost.
 */
public final class ResourceRecorder implements ResourceStats {

    private static final long SECOND_NANOS = 1_000_000_000L;
    private static final Duration ONE_SECOND = Duration.ofSeconds(1);
    /** Seconds in the ring: more than the 61 a minute's window spans. */
    private static final int RING = 64;
    /** Longs per second in the ring. */
    private static final int SLOT = 8;
    // Fields of a slot: the second it records (+1, so that 0 means empty), then per-second counts.
    private static final int TAG = 0;
    private static final int ADMITTED_REJECTED = 1; // admitted (low 32) | rejected (high 32)
    private static final int COMPLETED_FAILED = 2; // completed (low 32) | failed (high 32)
    private static final int RT_UNITS = 3;
    private static final int BORROWED_PEAK = 4; // borrowed (low 32) | peak in flight (high 32)
    private static final int MIN_RT = 5; // in units; Long.MAX_VALUE if none
    private static final int SHADOW_REJECTED = 6;
    /**
     * Requests in flight when the second was rolled into: all through the seconds before it that had
     * no event, and so no record of their own.
     */
    private static final int START_IN_FLIGHT = 7;

    private static final long LOW32 = 0xFFFF_FFFFL;
    private static final long COUNT24 = (1L << 24) - 1;
    private static final int RT_SHIFT = 24;
    private static final long RT_MASK = (1L << 40) - 1;
    /** A response time's unit in the running counts: a microsecond. */
    private static final long RT_UNIT_NANOS = 1_000;
    /**
     * Response times from this many units on go to {@code longRtUnits}: below it, fewer than
     * 2<sup>24</sup> completions a second pack fewer than 2<sup>40</sup> units.
     */
    private static final long LONG_RT_UNITS = 1L << 16;

    private static final VarHandle ADMISSIONS;
    private static final VarHandle SUCCESSES;
    private static final VarHandle FAILURES;
    private static final VarHandle LONG_RT;
    private static final VarHandle LATE_FAILURES;
    private static final VarHandle BORROWED;
    private static final VarHandle SHADOW_REJECTIONS;
    private static final VarHandle PEAK;
    private static final VarHandle MIN;
    private static final VarHandle LOCK;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            ADMISSIONS = l.findVarHandle(ResourceRecorder.class, "admissions", long.class);
            SUCCESSES = l.findVarHandle(ResourceRecorder.class, "successes", long.class);
            FAILURES = l.findVarHandle(ResourceRecorder.class, "failures", long.class);
            LONG_RT = l.findVarHandle(ResourceRecorder.class, "longRtUnits", long.class);
            LATE_FAILURES = l.findVarHandle(ResourceRecorder.class, "lateFailures", long.class);
            BORROWED = l.findVarHandle(ResourceRecorder.class, "borrowed", long.class);
            SHADOW_REJECTIONS = l.findVarHandle(ResourceRecorder.class, "shadowRejections", long.class);
            PEAK = l.findVarHandle(ResourceRecorder.class, "peak", long.class);
            MIN = l.findVarHandle(ResourceRecorder.class, "minRtUnits", long.class);
            LOCK = l.findVarHandle(ResourceRecorder.class, "lock", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String resource;
    private final Clock clock;
    /** The clock reading second 0 starts at. */
    private final long originNanos;

    // Running counts, written by any thread with atomic additions.
    /** Admissions with an entry. */
    private volatile long admissions;
    /** Admissions without an entry: striped (see the class comment). */
    private final LongAdder instants = new LongAdder();
    /** Completions that succeeded: count | rt. */
    private volatile long successes;
    /** Completions that failed: count | rt. */
    private volatile long failures;
    /** The response times of {@link #LONG_RT_UNITS} units or more, in units: never packed, never wraps. */
    private volatile long longRtUnits;

    /** Striped (see the class comment). */
    private final LongAdder rejections = new LongAdder();
    /** Successes failed after their close. */
    private volatile long lateFailures;

    private volatile long borrowed;
    private volatile long shadowRejections;
    /** The most requests in flight seen since the last roll. */
    private volatile long peak;
    /** The shortest response time since the last roll, in units; {@link Long#MAX_VALUE} if none. */
    private volatile long minRtUnits = Long.MAX_VALUE;
    /** The clock reading at which the next second starts: the request path rolls when it passes it. */
    private volatile long nextRollNanos;

    @SuppressWarnings("unused") // through LOCK
    private volatile int lock;

    // Guarded by the lock.
    private long[] ring; // allocated at the first roll with something to file
    private long rolledSecond; // the second the running counts since the last roll belong to
    private long rolledInFlight; // requests in flight at the last roll, into rolledSecond
    private long seenAdmissions;
    private long seenInstants;
    private long seenSuccesses;
    private long seenFailures;
    private long seenLongRtUnits;
    private long seenRejections;
    private long seenLateFailures;
    private long seenBorrowed;
    private long seenShadowRejections;
    private long totalEntered;
    private long totalInstant;
    private long totalCompleted;
    private long totalFailed; // failures and late failures
    /** In units (microseconds): a long of them holds 292,000 years of summed response time. */
    private long totalRtUnits;

    /**
     * @param resource the resource's name
     * @param clock the limiter's clock, read by {@link #lastMinute()} and friends
     */
    public ResourceRecorder(String resource, Clock clock) {
        this.resource = Objects.requireNonNull(resource, "resource");
        this.clock = Objects.requireNonNull(clock, "clock");
        // Whole seconds of the clock, not of this recorder: every recorder of one clock files its
        // counts in the same seconds (a rule's rejections and its resource's, a resource added by
        // a reload and the others), so their series can be read side by side.
        long now = clock.nanoTime();
        this.originNanos = now - Math.floorMod(now, SECOND_NANOS);
        this.nextRollNanos = originNanos + SECOND_NANOS;
    }

    /** The clock the recorder's limiter reads. */
    public Clock clock() {
        return clock;
    }

    /** Records an admission with an entry, to be followed by exactly one {@link #onExit}. */
    public void onEnter(long nowNanos) {
        maybeRoll(nowNanos);
        long admitted = (long) ADMISSIONS.getAndAdd(this, 1L) + 1;
        long inFlight = inFlight(admitted, successes, failures);
        if (inFlight > peak) {
            raisePeak(inFlight);
        }
    }

    /** Records an admission without an entry: nothing is held, nothing will complete. */
    public void onInstant(long nowNanos) {
        maybeRoll(nowNanos);
        instants.increment();
    }

    /** Records an admission that borrowed from the next bucket (besides its {@link #onEnter}). */
    public void onBorrowed() {
        BORROWED.getAndAdd(this, 1L);
    }

    /** Records a rejection. */
    public void onReject(long nowNanos) {
        maybeRoll(nowNanos);
        rejections.increment();
    }

    /** Records a request that a shadow rule would have rejected, and let through. */
    public void onShadowReject(long nowNanos) {
        maybeRoll(nowNanos);
        SHADOW_REJECTIONS.getAndAdd(this, 1L);
    }

    /** Records the completion of an admission with an entry. */
    public void onExit(long nowNanos, long rtNanos, boolean failed) {
        maybeRoll(nowNanos);
        long units = Math.max(0, rtNanos) / RT_UNIT_NANOS;
        if (units < minRtUnits) {
            lowerMin(units); // before the completion is counted: see the class comment
        }
        long packed = units;
        if (units >= LONG_RT_UNITS) {
            LONG_RT.getAndAdd(this, units); // see the class comment: a long one is not packed
            packed = 0;
        }
        // Each VarHandle a constant at its call site, which the compiler turns into one atomic addition.
        if (failed) {
            FAILURES.getAndAdd(this, 1L | (packed << RT_SHIFT));
        } else {
            SUCCESSES.getAndAdd(this, 1L | (packed << RT_SHIFT));
        }
    }

    /** A completion recorded as a success failed after all: one failure more, one success less. */
    public void onFailedAfterExit() {
        LATE_FAILURES.getAndAdd(this, 1L);
    }

    /**
     * Requests in flight from the running counts, {@code admissions} read before the completions:
     * completions read later can only make the result smaller than the truth, never larger (a
     * completion read that the admissions do not include yet makes it negative: 0).
     */
    private static long inFlight(long admissions, long successes, long failures) {
        long difference = (admissions - successes - failures) << 40 >> 40; // the low 24 bits, signed
        return Math.max(0, difference);
    }

    private void raisePeak(long inFlight) {
        for (long p = peak; inFlight > p; p = peak) {
            if (PEAK.compareAndSet(this, p, inFlight)) {
                return;
            }
        }
    }

    private void lowerMin(long units) {
        for (long m = minRtUnits; units < m; m = minRtUnits) {
            if (MIN.compareAndSet(this, m, units)) {
                return;
            }
        }
    }

    private void maybeRoll(long nowNanos) {
        if (nowNanos - nextRollNanos >= 0 && LOCK.compareAndSet(this, 0, 1)) {
            try {
                roll(nowNanos);
            } finally {
                LOCK.setVolatile(this, 0);
            }
        }
    }

    private long secondOf(long nowNanos) {
        return Math.floorDiv(nowNanos - originNanos, SECOND_NANOS);
    }

    /**
     * Files what the running counts gained since the last roll as the record of the second they
     * belong to, if {@code nowNanos} is in a later second. Lock held.
     */
    private void roll(long nowNanos) {
        long second = secondOf(nowNanos);
        if (second <= rolledSecond) {
            return;
        }
        long adm = admissions;
        long inst = instants.sum();
        long suc = successes;
        long fail = failures;
        long longRt = longRtUnits;
        long rej = rejections.sum();
        long late = lateFailures;
        long bor = borrowed;
        long shadow = shadowRejections;
        if (ring == null) {
            if (adm == seenAdmissions
                    && inst == seenInstants
                    && suc == seenSuccesses
                    && fail == seenFailures
                    && longRt == seenLongRtUnits
                    && rej == seenRejections
                    && late == seenLateFailures
                    && bor == seenBorrowed
                    && shadow == seenShadowRejections) {
                // Nothing happened yet: no ring until there is a second to file (a reader, or a
                // rule that never rejects, allocates nothing).
                rolledSecond = second;
                nextRollNanos = originNanos + (second + 1) * SECOND_NANOS;
                return;
            }
            ring = new long[RING * SLOT];
        }
        // The new second starts with what is in flight now, and no response time yet. Each running
        // extreme is taken and reset at once, after the counts were read (see the class comment):
        // an update between a read and a reset would be lost.
        long inFlight = inFlight(adm, suc, fail);
        long peakInFlight = (long) PEAK.getAndSet(this, inFlight);
        long minUnits = (long) MIN.getAndSet(this, Long.MAX_VALUE);
        long entered = adm - seenAdmissions;
        long instant = inst - seenInstants;
        long succeeded = (suc - seenSuccesses) & COUNT24;
        long failedFirst = (fail - seenFailures) & COUNT24;
        long failed = failedFirst + (late - seenLateFailures);
        long rtUnits = packedUnits(suc - seenSuccesses) + packedUnits(fail - seenFailures) + (longRt - seenLongRtUnits);
        int base = (int) Math.floorMod(rolledSecond, (long) RING) * SLOT;
        ring[base + TAG] = rolledSecond + 1;
        ring[base + ADMITTED_REJECTED] = saturate(entered + instant) | saturate(rej - seenRejections) << 32;
        ring[base + COMPLETED_FAILED] = (succeeded + failedFirst) | saturate(failed) << 32;
        ring[base + RT_UNITS] = rtUnits;
        ring[base + BORROWED_PEAK] = saturate(bor - seenBorrowed) | saturate(peakInFlight) << 32;
        ring[base + MIN_RT] = minUnits;
        ring[base + SHADOW_REJECTED] = shadow - seenShadowRejections;
        ring[base + START_IN_FLIGHT] = rolledInFlight;
        totalEntered += entered;
        totalInstant += instant;
        totalCompleted += succeeded + failedFirst;
        totalFailed += failed;
        totalRtUnits += rtUnits;
        seenAdmissions = adm;
        seenInstants = inst;
        seenSuccesses = suc;
        seenFailures = fail;
        seenLongRtUnits = longRt;
        seenRejections = rej;
        seenLateFailures = late;
        seenBorrowed = bor;
        seenShadowRejections = shadow;
        rolledInFlight = inFlight;
        rolledSecond = second;
        nextRollNanos = originNanos + (second + 1) * SECOND_NANOS;
    }

    /**
     * Whether the ring's slot at {@code base} holds second {@code s}. Seconds before the first
     * (negative: a window read in the recorder's first minute reaches back before it) were never
     * filed; without the check an empty slot's tag, 0, would pass for second -1's. Lock held.
     */
    private boolean filed(int base, long s) {
        return s >= 0 && ring[base + TAG] == s + 1;
    }

    /**
     * The failures to report for a part of time with {@code completed} completions, of the {@code
     * failed} counted in it: at most its completions. A success failed after its close is counted
     * when it fails, which can be in a later second than its completion (or, at a window's start,
     * after the completion fell out of the window): such a second would show a failure it has no
     * completion for, and a minimum above its average. The totals count every failure.
     */
    private static long failedOf(long failed, long completed) {
        return Math.max(0, Math.min(failed, completed));
    }

    private static long saturate(long count) {
        return Math.min(Math.max(count, 0), LOW32);
    }

    /** The response time units in the difference of two packed completion words. */
    private static long packedUnits(long difference) {
        return (difference >>> RT_SHIFT) & RT_MASK;
    }

    /**
     * The minimum to report for a part of a window (a filed second, or the running counts since the
     * last roll) with {@code completed} completions summing {@code rtUnits}, whose running minimum
     * was {@code minUnits}: never above the part's average, and the average when the part has
     * completions and no minimum of its own (see the class comment). {@link Long#MAX_VALUE} for a
     * part without completions and without a minimum.
     */
    private static long boundedMin(long minUnits, long completed, long rtUnits) {
        return completed <= 0 ? minUnits : Math.min(minUnits, rtUnits / completed);
    }

    /** A reported minimum in nanoseconds: -1 when nothing completed. */
    private static long minNanos(long minUnits, long completed, long rtUnits) {
        return completed <= 0 ? -1 : boundedMin(minUnits, completed, rtUnits) * RT_UNIT_NANOS;
    }

    /**
     * Summed units in nanoseconds, saturated at {@link Long#MAX_VALUE} (292 years summed in one
     * window, only by requests that each took years) rather than wrapped negative.
     */
    private static long nanos(long units) {
        return units > Long.MAX_VALUE / RT_UNIT_NANOS ? Long.MAX_VALUE : units * RT_UNIT_NANOS;
    }

    /**
     * The clock, read by a reader with the lock held: a reading taken before the lock could be
     * older than a second that a request filed meanwhile, and the reader would take that second for
     * the current one and leave it out of every window. Lock held.
     */
    private long now() {
        return clock.nanoTime();
    }

    private void lockForRead() {
        for (int spins = 0; !LOCK.compareAndSet(this, 0, 1); spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    @Override
    public String resource() {
        return resource;
    }

    @Override
    public long inFlight() {
        long adm = admissions;
        long suc = successes;
        return inFlight(adm, suc, failures);
    }

    @Override
    public StatsSnapshot lastSecond() {
        return window(1);
    }

    @Override
    public StatsSnapshot lastMinute() {
        return window(60);
    }

    /** The {@code seconds} whole seconds before the current one, and the current one so far. */
    StatsSnapshot window(int seconds) {
        lockForRead();
        try {
            long now = now();
            roll(now);
            long current = secondOf(now);
            // The running counts since the last roll, which is in the current second now.
            long adm = admissions;
            long suc = successes;
            long fail = failures;
            long admitted = (adm - seenAdmissions) + (instants.sum() - seenInstants);
            long rejected = rejections.sum() - seenRejections;
            long failedFirst = (fail - seenFailures) & COUNT24;
            long completed = ((suc - seenSuccesses) & COUNT24) + failedFirst;
            long failed = failedFirst + (lateFailures - seenLateFailures);
            long rtUnits = packedUnits(suc - seenSuccesses)
                    + packedUnits(fail - seenFailures)
                    + (longRtUnits - seenLongRtUnits);
            long borrowedCount = borrowed - seenBorrowed;
            long shadowRejected = shadowRejections - seenShadowRejections;
            long peakInFlight = peak;
            long min = boundedMin(minRtUnits, completed, rtUnits);
            if (ring != null) {
                for (long s = current - seconds; s < current; s++) {
                    int base = (int) Math.floorMod(s, (long) RING) * SLOT;
                    if (!filed(base, s)) {
                        continue; // no request in that second
                    }
                    long secondCompleted = ring[base + COMPLETED_FAILED] & LOW32;
                    admitted += ring[base + ADMITTED_REJECTED] & LOW32;
                    rejected += ring[base + ADMITTED_REJECTED] >>> 32;
                    completed += secondCompleted;
                    failed += ring[base + COMPLETED_FAILED] >>> 32;
                    rtUnits += ring[base + RT_UNITS];
                    borrowedCount += ring[base + BORROWED_PEAK] & LOW32;
                    shadowRejected += ring[base + SHADOW_REJECTED];
                    peakInFlight = Math.max(peakInFlight, ring[base + BORROWED_PEAK] >>> 32);
                    min = Math.min(min, boundedMin(ring[base + MIN_RT], secondCompleted, ring[base + RT_UNITS]));
                }
            }
            long intoCurrent = now - (originNanos + current * SECOND_NANOS);
            failed = failedOf(failed, completed);
            return new StatsSnapshot(
                    resource,
                    Duration.ofSeconds(seconds).plusNanos(intoCurrent),
                    admitted,
                    rejected,
                    shadowRejected,
                    completed - failed,
                    failed,
                    borrowedCount,
                    nanos(rtUnits),
                    minNanos(min, completed, rtUnits),
                    inFlight(adm, suc, fail),
                    peakInFlight);
        } finally {
            LOCK.setVolatile(this, 0);
        }
    }

    @Override
    public List<StatsSnapshot> lastMinuteBySecond() {
        StatsSnapshot[] seconds = new StatsSnapshot[60];
        lockForRead();
        try {
            long now = now();
            roll(now);
            long adm = admissions;
            long suc = successes;
            long inFlight = inFlight(adm, suc, failures);
            long current = secondOf(now);
            // Newest first: a second without a record had no event, and what was in flight all
            // through it is what the next second with one (or the current one) started with.
            long inFlightThrough = rolledInFlight;
            for (int i = seconds.length - 1; i >= 0; i--) {
                long s = current - seconds.length + i;
                int base = (int) Math.floorMod(s, (long) RING) * SLOT;
                if (ring == null || !filed(base, s)) {
                    long peak = s < 0 ? 0 : inFlightThrough; // none before the resource was protected
                    seconds[i] = new StatsSnapshot(resource, ONE_SECOND, 0, 0, 0, 0, 0, 0, 0, -1, inFlight, peak);
                    continue;
                }
                inFlightThrough = ring[base + START_IN_FLIGHT];
                long completed = ring[base + COMPLETED_FAILED] & LOW32;
                long failed = failedOf(ring[base + COMPLETED_FAILED] >>> 32, completed);
                long rtUnits = ring[base + RT_UNITS];
                seconds[i] = new StatsSnapshot(
                        resource,
                        ONE_SECOND,
                        ring[base + ADMITTED_REJECTED] & LOW32,
                        ring[base + ADMITTED_REJECTED] >>> 32,
                        ring[base + SHADOW_REJECTED],
                        completed - failed,
                        failed,
                        ring[base + BORROWED_PEAK] & LOW32,
                        nanos(rtUnits),
                        minNanos(ring[base + MIN_RT], completed, rtUnits),
                        inFlight,
                        ring[base + BORROWED_PEAK] >>> 32);
            }
        } finally {
            LOCK.setVolatile(this, 0);
        }
        return List.of(seconds);
    }

    /**
     * The rejections of each of the 60 whole seconds before the current one, oldest first: what
     * {@link #lastMinuteBySecond()} says of them, without a snapshot per second.
     */
    long[] rejectedBySecond() {
        long[] seconds = new long[60];
        lockForRead();
        try {
            long now = now();
            roll(now);
            long current = secondOf(now);
            for (int i = 0; ring != null && i < seconds.length; i++) {
                long s = current - seconds.length + i;
                int base = (int) Math.floorMod(s, (long) RING) * SLOT;
                if (filed(base, s)) {
                    seconds[i] = ring[base + ADMITTED_REJECTED] >>> 32;
                }
            }
        } finally {
            LOCK.setVolatile(this, 0);
        }
        return seconds;
    }

    @Override
    public StatsTotals totals() {
        lockForRead();
        try {
            roll(now());
            long adm = admissions;
            long suc = successes;
            long fail = failures;
            long entered = totalEntered + (adm - seenAdmissions);
            long instant = totalInstant + (instants.sum() - seenInstants);
            long failedFirst = (fail - seenFailures) & COUNT24;
            long completed = totalCompleted + ((suc - seenSuccesses) & COUNT24) + failedFirst;
            long failed = totalFailed + failedFirst + (lateFailures - seenLateFailures);
            long rtUnits = totalRtUnits
                    + packedUnits(suc - seenSuccesses)
                    + packedUnits(fail - seenFailures)
                    + (longRtUnits - seenLongRtUnits);
            return new StatsTotals(
                    entered + instant,
                    rejections.sum(),
                    shadowRejections,
                    Math.max(0, completed - failed),
                    failed,
                    borrowed,
                    rtUnits);
        } finally {
            LOCK.setVolatile(this, 0);
        }
    }

    @Override
    public String toString() {
        return "ResourceRecorder[" + resource + ", inFlight=" + inFlight() + "]";
    }
}
