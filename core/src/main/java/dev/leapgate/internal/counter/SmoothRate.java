package dev.leapgate.internal.counter;

import dev.leapgate.internal.DurationText;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A smooth rate: at most {@code N} permits per window {@code W}, handed out evenly rather than
 * counted per window. It implements the <em>pace</em>, <em>warm-up</em> and <em>warm-up + pace</em>
 * controllers of a request-rate rule ({@code dev.leapgate.rule.OnExcess}).
 *
 * <h2>From "one every W / N" to a schedule</h2>
 *
 * The rate is one permit every {@code stableInterval = W / N}. The naive way to enforce it is to
 * remember the last admission and reject whatever comes sooner than one interval after it. That
 * turns a burst of ten requests into one admission and nine rejections, although all ten could be
 * served a little later. So instead of the last admission we keep a <em>schedule</em>: {@code
 * nextFree}, the moment from which the next request may proceed. A request arriving at {@code now}
 * waits {@code max(0, nextFree - now)} on its own thread and moves {@code nextFree} on by what its
 * permits cost:
 *
 * <pre>
 *   N = 10 per W = 1 s, stableInterval = 100 ms, maxQueue = 500 ms; seven requests arrive at t = 0
 *
 *   request       1     2     3     4     5     6     7
 *   waits         0   100   200   300   400   500   (600 &gt; maxQueue: rejected)
 *   proceeds at   |-----|-----|-----|-----|-----|
 *                 0    100   200   300   400   500 ms
 * </pre>
 *
 * A request whose wait would exceed {@code maxQueue} is rejected and reserves nothing. When time
 * has passed {@code nextFree} (the rate was idle), the schedule restarts at {@code now}: the first
 * request after an idle period proceeds at once, the second waits a full interval. Idle time is
 * not banked as credit for a later burst (as a token bucket would): that is the leaky bucket of
 * Sentinel's pacing controller, and with {@code maxQueue = 0} it admits exactly one request per
 * interval and rejects the rest.
 *
 * <p><b>Pay later.</b> A request waits for what the <em>earlier</em> reservations pushed {@code
 * nextFree} to; its own cost pushes {@code nextFree} further, for the request after it to wait on.
 * So a request of 3 permits after an idle period proceeds at once, and the next one waits 3
 * intervals. This is Guava's model: it never makes a request wait for its own size, and whether a
 * request is admitted ({@code wait <= maxQueue}) does not depend on how many permits it asks for.
 *
 * <h2>Warm-up: stored permits that cost more the more there are</h2>
 *
 * A service that has been idle is cold: caches are empty, connection pools closed, code not yet
 * compiled. Letting the full rate in at once can overwhelm it. Warm-up (Guava's {@code
 * SmoothWarmingUp}, re-created here) starts at {@code N / W / coldFactor} after an idle period and
 * climbs to {@code N / W} over {@code warmUpPeriod}.
 *
 * <p>Idleness is measured in <em>stored permits</em>: while the rate is idle ({@code now >
 * nextFree}) one permit is stored every {@code coolDownInterval}, up to {@code maxPermits}. A
 * request spends stored permits first and fresh ones for the rest; a fresh permit costs {@code
 * stableInterval}, and a stored permit costs the height of this line at the point it is taken
 * from:
 *
 * <pre>
 *   ns per permit
 *        ^
 *   cold +                                  _.-+
 *        |                              _.-'   |
 *        |                          _.-'       |
 *        |                      _.-'  area:    |
 * stable +---------------------+  warmUpPeriod |
 *        |  area:              |               |
 *        |  warmUpPeriod / 2   |               |
 *        +---------------------+---------------+---&gt; stored permits
 *        0                 threshold          max
 * </pre>
 *
 * Spending {@code k} stored permits out of {@code s} costs the area under the line between {@code
 * s - k} and {@code s}: a trapezoid for the part above the threshold, {@code stableInterval} a
 * permit below it. Guava's constants follow from the two areas:
 *
 * <pre>
 *   coldInterval     = stableInterval * coldFactor
 *   thresholdPermits = 0.5 * warmUpPeriod / stableInterval              (rectangle = warmUpPeriod / 2)
 *   maxPermits       = thresholdPermits
 *                      + 2 * warmUpPeriod / (stableInterval + coldInterval)   (trapezoid = warmUpPeriod)
 *   slope            = (coldInterval - stableInterval) / (maxPermits - thresholdPermits)
 *   coolDownInterval = warmUpPeriod / maxPermits                         (idle warmUpPeriod: empty -&gt; full)
 * </pre>
 *
 * Under saturating demand no time is idle, so nothing is stored and every request spends one
 * stored permit after the other. Starting cold ({@code maxPermits} stored) the interval between
 * admissions starts at {@code coldInterval} and falls linearly in permits spent; spending the
 * permits above the threshold takes exactly the trapezoid, {@code warmUpPeriod}, after which every
 * permit costs {@code stableInterval}. A short pause stores permits below the threshold, which
 * cost {@code stableInterval} each: the rate stays warm and gets no burst. An idle {@code
 * warmUpPeriod} fills the store from empty to full: the rate is cold again.
 *
 * <p>Pace is the degenerate curve: {@code coldFactor = 1}, no stored permits, every permit costs
 * {@code stableInterval}. The warm-up rule that rejects (rather than paces) is {@code maxQueue =
 * 0}: a request is admitted only if it need not wait at all.
 *
 * <h2>Units and precision</h2>
 *
 * Time is in nanoseconds since {@code originNanos}. {@code nextFree} is held as whole nanoseconds
 * plus a fraction in {@code [0, 1)}, so that an interval that is not a whole number of nanoseconds
 * ({@code 1 s / 3}) does not drift by a rounding per admission; waits are rounded up to whole
 * nanoseconds, so a caller never proceeds early. Stored permits are a {@code double}, as in Guava.
 * Bounds keep every sum inside a {@code long}: the window, {@code maxQueue} and {@code
 * warmUpPeriod} are at most 24 h, one reservation costs at most {@code W + 1.5 warmUpPeriod}
 * (60 h), and clock readings are clamped to {@code ±2^62} ns (146 years) around the origin, so
 * {@code nextFree <= 2^62 + 84 h < 2^63}. A reading before the origin waits until the origin.
 * {@code maxPermits} is kept below {@code 2^48}, so that spending one permit still changes the
 * stored count.
 *
 * <h2>Differences from Guava</h2>
 *
 * <ul>
 *   <li>Pace stores no permits at all (Guava's {@code SmoothBursty} stores up to one second's
 *       worth, a burst after idling); it follows Sentinel's pacing controller.
 *   <li>Nanoseconds with a carried fraction instead of whole microseconds: Guava truncates each
 *       wait to whole microseconds and so runs slightly fast for intervals that are not a whole
 *       number of them.
 *   <li>The rate is fixed at creation: there is no {@code setRate}. A new rule is a new instance.
 *   <li>Time is a parameter and nothing sleeps here: the caller sleeps for the returned wait.
 * </ul>
 *
 * <p>Concurrency: all mutable state (stored permits and {@code nextFree}) is one immutable {@link
 * State} behind one {@link AtomicReference}. A reservation reads the state, decides from it alone,
 * computes the next state with the pure function {@link #reserve} and installs it with one
 * compare-and-swap; a thread whose CAS fails lost to another reservation, which moved {@code
 * nextFree}, so it re-reads and decides again. Each admission is therefore scheduled against
 * exactly the reservations before it, under any interleaving. A rejection writes nothing. No
 * locks, no background thread, no sleeping; any number of threads may call any method.
 *
 * <p><b>Going on from another rate.</b> A rate made for a changed rule ({@link #continueFrom}) takes
 * the previous rate's schedule over at its first use: it <em>seals</em> the previous state (a
 * sealed state keeps its values and is never replaced), and starts where that schedule's {@code
 * nextFree} was, so the requests the previous rate scheduled keep their slots and the new ones
 * queue behind them. A request still being decided on the previous rate (it read the rules before
 * the change) then finds it sealed and reserves on the new rate instead (see {@link Succession}).
 */
public final class SmoothRate extends Succession.Party<SmoothRate> {

    /** Returned by {@link #tryReserve} when the wait would exceed {@code maxQueue}. */
    public static final long REJECTED = -1L;

    /** The longest window, {@code maxQueue} and {@code warmUpPeriod} accepted: 24 h. */
    private static final Duration MAX_DURATION = Duration.ofHours(24);
    /** Clock readings are clamped to this distance from the origin, in ns: 2^62 (146 years). */
    private static final long HORIZON_NANOS = 1L << 62;
    /** Upper bound for {@code maxPermits}: a double still resolves 1/16 permit there. */
    private static final double MAX_STORED_PERMITS = 0x1p48;

    /** {@code N}: at least 1, at most {@link Integer#MAX_VALUE}. */
    private final long limit;
    /** {@code W}: longer than 0, at most 24 h. */
    private final Duration window;
    /** Clock reading that is time 0 of {@link State}. */
    private final long originNanos;
    /** Longest a request may be told to wait, in ns: {@code 0 <= maxQueueNanos <= 24 h}. */
    private final long maxQueueNanos;
    /** What permits cost; immutable. */
    private final Curve curve;
    /** The only mutable state; replaced as a whole by compare-and-swap. */
    private final AtomicReference<State> state;
    /** Where the schedule comes from and goes to. */
    private final Succession<SmoothRate> succession;

    private SmoothRate(long limit, Duration window, Duration maxQueue, Curve curve, long originNanos) {
        this(limit, window, maxQueue.toNanos(), curve, originNanos, null);
    }

    /** With {@code previous}, a rate pending until it takes {@code previous}'s schedule over. */
    private SmoothRate(
            long limit, Duration window, long maxQueueNanos, Curve curve, long originNanos, SmoothRate previous) {
        this.limit = limit;
        this.window = window;
        this.maxQueueNanos = maxQueueNanos;
        this.curve = curve;
        this.originNanos = originNanos;
        // A warm-up rate starts cold: the store is full, as after a long idle period.
        this.state = new AtomicReference<>(previous == null ? new State(curve.maxPermits, 0, 0, false) : PENDING);
        this.succession = new Succession<>(previous);
    }

    /**
     * Takes over now, at {@code nowNanos}, the schedule this rate goes on from, if it has not yet
     * (see {@link #continueFrom}); else nothing. As {@link LeapCounter#settle}.
     */
    public void settle(long nowNanos) {
        current(nowNanos);
    }

    /**
     * A rate of this one's settings that goes on from {@code previous}'s schedule, taken over at its
     * first use (see the class comment); until then {@code previous} is unchanged, so a rate made
     * for rules that never come into force changes nothing.
     */
    public SmoothRate continueFrom(SmoothRate previous) {
        Objects.requireNonNull(previous, "previous");
        // On the previous schedule's time line: a reading from before this rate was made (a
        // thread that read the clock, then the new rules) is no reading before the origin.
        return new SmoothRate(limit, window, maxQueueNanos, curve, previous.originNanos, previous);
    }

    /**
     * Pace: admissions spaced evenly at {@code window / limit}, a request waiting up to {@code
     * maxQueue} for its slot (coldFactor 1, no warm-up, no stored permits).
     *
     * @param originNanos a clock reading, usually the current one; the schedule starts there
     * @throws IllegalArgumentException if {@code limit} is not between 1 and {@link
     *     Integer#MAX_VALUE}, {@code window} not longer than 0 and at most 24 h, or {@code maxQueue}
     *     not between 0 and 24 h
     */
    public static SmoothRate pace(long limit, Duration window, Duration maxQueue, long originNanos) {
        double stableIntervalNanos = checkRate(limit, window, maxQueue);
        return new SmoothRate(limit, window, maxQueue, Curve.flat(stableIntervalNanos), originNanos);
    }

    /**
     * Warm-up: starting cold at {@code limit / coldFactor} per window and climbing to {@code
     * limit} per window over {@code warmUpPeriod} of saturating demand; a request waits up to
     * {@code maxQueue} for its slot ({@code Duration.ZERO}: reject whatever would have to wait).
     *
     * @param originNanos a clock reading, usually the current one; the schedule starts there
     * @throws IllegalArgumentException as {@link #pace}, or if {@code coldFactor} is not a finite
     *     number greater than 1, {@code warmUpPeriod} not longer than 0 and at most 24 h, or the
     *     warm-up would store {@code 2^48} permits or more (an absurdly high limit per window with
     *     a long warm-up)
     */
    public static SmoothRate warmUp(
            long limit,
            Duration window,
            double coldFactor,
            Duration warmUpPeriod,
            Duration maxQueue,
            long originNanos) {
        double stableIntervalNanos = checkRate(limit, window, maxQueue);
        if (!(coldFactor > 1.0) || Double.isInfinite(coldFactor)) {
            throw new IllegalArgumentException("cold-factor must be a finite number greater than 1, was " + coldFactor);
        }
        checkDuration("warm-up", warmUpPeriod, false);
        Curve curve = Curve.warmingUp(stableIntervalNanos, coldFactor, warmUpPeriod.toNanos());
        if (!(curve.maxPermits < MAX_STORED_PERMITS)) {
            throw new IllegalArgumentException("warm-up " + DurationText.format(warmUpPeriod)
                    + " is too long for a limit of " + limit + " per " + DurationText.format(window)
                    + ": it would store " + (long) curve.maxPermits + " permits, more than 2^48;"
                    + " use a shorter warm-up or a lower limit");
        }
        return new SmoothRate(limit, window, maxQueue, curve, originNanos);
    }

    /** Validates the settings both kinds share; returns {@code stableInterval} in ns. */
    private static double checkRate(long limit, Duration window, Duration maxQueue) {
        if (limit < 1 || limit > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("limit must be between 1 and " + Integer.MAX_VALUE + ", was " + limit);
        }
        checkDuration("window", window, false);
        checkDuration("max-queue", maxQueue, true);
        return (double) window.toNanos() / limit;
    }

    private static void checkDuration(String setting, Duration value, boolean zeroAllowed) {
        Objects.requireNonNull(value, setting);
        boolean tooShort = zeroAllowed ? value.isNegative() : value.isNegative() || value.isZero();
        if (tooShort || value.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(setting
                    + (zeroAllowed ? " must be between 0s and 24h" : " must be longer than 0s and at most 24h")
                    + ", was " + DurationText.format(value));
        }
    }

    /**
     * Reserves {@code permits} at {@code nowNanos}, as one atomic step.
     *
     * @param permits at least 1 and at most {@link #limit()}
     * @return the nanoseconds the caller must wait before proceeding (0: go now), or {@link
     *     #REJECTED} if that wait would exceed {@code maxQueue}; nothing is reserved then
     * @throws IllegalArgumentException if {@code permits} is out of range
     */
    public long tryReserve(long nowNanos, int permits) {
        return tryReserve(nowNanos, permits, 0);
    }

    /**
     * As {@link #tryReserve(long, int)}, for a request that goes on no sooner than {@code
     * notBeforeNanos} after {@code nowNanos} whatever this rate says (another limit makes it wait
     * that long): its turn is taken where it goes on, not earlier, so that the turns after it are
     * not given to requests that would go on beside it, if that is within {@code maxQueue};
     * farther, it takes its own turn (moved that far, the schedule would refuse every other request
     * until then, so that one client of a slower rule could block this one), and may go on beside a
     * later turn. Whether it is admitted depends on its own wait alone (at most {@code maxQueue});
     * the time between its own turn and the later one is idle time for the schedule (for warm-up:
     * stored permits, which never cost less than a fresh one).
     *
     * @return the wait this rate asks for (as {@link #tryReserve(long, int)}), or {@link #REJECTED}
     */
    public long tryReserve(long nowNanos, int permits, long notBeforeNanos) {
        checkPermits(permits);
        long now = sinceOrigin(nowNanos);
        for (; ; ) {
            State current = state.get();
            if (current.sealed()) {
                SmoothRate to = current(nowNanos);
                if (to == this) {
                    continue;
                }
                return permits > to.limit ? REJECTED : to.tryReserve(nowNanos, permits, notBeforeNanos);
            }
            long waitNanos = current.waitNanos(now);
            if (waitNanos > maxQueueNanos) {
                return REJECTED;
            }
            // Its turn where it goes on, the schedule idle until then, if that is later than its own
            // and within the queue: farther, the move would refuse every other request until then.
            long goesOn = notBeforeNanos <= maxQueueNanos ? Math.max(waitNanos, notBeforeNanos) : waitNanos;
            State next = goesOn > waitNanos
                    ? reserve(curve, current, now + goesOn, permits)
                    : reserve(curve, current, now, permits); // its own turn, the fraction of a ns carried
            if (state.compareAndSet(current, next)) {
                return waitNanos;
            }
            // Another reservation got in first and moved nextFree: decide again against it.
        }
    }

    /**
     * Nanoseconds from {@code nowNanos} until a request of {@code permits} would be admitted
     * (its wait at most {@code maxQueue}), assuming no other reservations meanwhile: 0 if it would
     * be admitted now. For a {@code Retry-After} on rejection. Under pay-later the answer does not
     * depend on {@code permits}, which are validated all the same.
     *
     * @throws IllegalArgumentException if {@code permits} is out of range
     */
    public long nanosUntilAvailable(long nowNanos, int permits) {
        checkPermits(permits);
        SmoothRate to = current(nowNanos);
        if (to != this) {
            return to.nanosUntilAvailable(nowNanos, (int) Math.min(permits, to.limit));
        }
        // Sealed just now: the values are the schedule's as it was sealed, an answer as good as any.
        return Math.max(0, state.get().waitNanos(sinceOrigin(nowNanos)) - maxQueueNanos);
    }

    /**
     * Requests of one permit that would be admitted at {@code nowNanos}, one after the other, if
     * nothing else were reserved meanwhile: 0 if the next one would wait longer than {@code
     * maxQueue}, and at most the limit. For the {@code remaining} of a quota; never more than would
     * be admitted: each request after the next is counted as waiting the price of the next permit
     * more, the highest of the prices to come (stored permits get cheaper as they are spent, and
     * fresh ones cost {@code stableInterval}, the least).
     */
    public long remaining(long nowNanos) {
        SmoothRate to = current(nowNanos);
        if (to != this) {
            return to.remaining(nowNanos);
        }
        State current = state.get();
        long now = sinceOrigin(nowNanos);
        long waitNanos = current.waitNanos(now);
        if (waitNanos > maxQueueNanos) {
            return 0;
        }
        double stored = current.storedPermits();
        if (now > current.nextFreeNanos()) { // idle time stores permits first, as in reserve
            double idleNanos = (double) (now - current.nextFreeNanos()) - current.nextFreeFractionNanos();
            stored = Math.min(curve.maxPermits, stored + idleNanos / curve.coolDownIntervalNanos);
        }
        // Waits are rounded up to whole ns: unless every price is whole (pace at a whole interval),
        // a wait may come out up to 1 ns longer than the sum of the prices.
        double price = curve.intervalAt(stored);
        boolean whole = curve.warmUpNanos == 0 && price == Math.rint(price) && current.nextFreeFractionNanos() == 0;
        double more = Math.max(0, Math.floor((maxQueueNanos - waitNanos - (whole ? 0 : 1)) / price));
        return (long) Math.min(limit, 1 + more);
    }

    /**
     * Nanoseconds from {@code nowNanos} until the schedule is free (a request then goes at once,
     * and {@link #remaining} is back to its most), assuming nothing else is reserved meanwhile; 0
     * if it is free now. For the {@code reset} of a quota.
     */
    public long nanosUntilFree(long nowNanos) {
        SmoothRate to = current(nowNanos);
        if (to != this) {
            return to.nanosUntilFree(nowNanos);
        }
        return state.get().waitNanos(sinceOrigin(nowNanos));
    }

    @Override
    Succession<SmoothRate> succession() {
        return succession;
    }

    @Override
    boolean decides() {
        return !state.get().sealed();
    }

    @Override
    void seal() {
        State last = state.get();
        while (!last.sealed() && !state.compareAndSet(last, last.sealedCopy())) {
            last = state.get();
        }
    }

    /**
     * Starts the schedule where {@code sealed}'s is free, and cold (see {@link #continueFrom}); or
     * sooner, where this rate's price of the last reservation's permits ends, if that is sooner
     * (a raised limit): that reservation, the latest booked, paid the old price, which for a slow
     * rate or a cold warm-up holds every new request back for up to an old interval, nobody
     * waiting.
     */
    @Override
    void goOnFrom(SmoothRate sealed, long nowNanos) {
        // nextFree on this rate's time line: the previous one's, moved by the difference of origins
        // (none, unless this rate was made for rules that did not come into force).
        State old = sealed.state.get();
        long shift = sealed.originNanos - originNanos;
        long nextFree = shift + old.waitNanos(0);
        // The last booking is carried on, so that a version after this one, made before any
        // request came, prices it at its own rate too.
        long lastTurn = shift + old.lastTurnNanos();
        if (old.lastPermits() > 0) {
            // In double: a reservation far above this rate's limit may cost more than a long holds.
            double price = Math.ceil(old.lastPermits() * curve.stableIntervalNanos);
            if (price < (double) (nextFree - lastTurn)) {
                nextFree = lastTurn + (long) price;
            }
        }
        long start = Math.max(0, Math.min(HORIZON_NANOS, nextFree));
        state.compareAndSet(
                PENDING, new State(curve.maxPermits, start, 0, Math.max(0, lastTurn), old.lastPermits(), false));
    }

    /** The most permits per {@link #window()} in the steady state. */
    public long limit() {
        return limit;
    }

    /** The window {@code W} the limit applies to. */
    public Duration window() {
        return window;
    }

    /**
     * The pure function behind {@link #tryReserve}: the state after reserving {@code permits} at
     * {@code nowNanos} (ns since the origin, clamped) from {@code state}. It reads nothing else and
     * changes nothing, so a thread whose CAS fails simply calls it again on the newer state. The
     * caller has checked that the wait, {@code state.waitNanos(nowNanos)}, is acceptable.
     *
     * <ol>
     *   <li>If the rate was idle ({@code now} past {@code nextFree}), the idle time stores permits
     *       (none for pace) and the schedule restarts at {@code now}.
     *   <li>Stored permits are spent first, at the curve's price; the rest are fresh, at {@code
     *       stableInterval} each.
     *   <li>{@code nextFree} moves on by that cost, carrying the fraction of a nanosecond.
     * </ol>
     */
    private static State reserve(Curve curve, State state, long nowNanos, int permits) {
        double stored = state.storedPermits();
        long nextFreeNanos = state.nextFreeNanos();
        double fractionNanos = state.nextFreeFractionNanos();
        if (nowNanos > nextFreeNanos) {
            // now - nextFreeNanos >= 1 > fraction, so the idle time is positive.
            double idleNanos = (double) (nowNanos - nextFreeNanos) - fractionNanos;
            stored = Math.min(curve.maxPermits, stored + idleNanos / curve.coolDownIntervalNanos);
            nextFreeNanos = nowNanos;
            fractionNanos = 0;
        }
        double fromStored = Math.min(permits, stored);
        double costNanos = curve.nanosToSpend(stored, fromStored) + (permits - fromStored) * curve.stableIntervalNanos;
        double carried = fractionNanos + costNanos; // < 2^48: exact enough, and floor is exact
        long wholeNanos = (long) carried;
        return new State(
                stored - fromStored, nextFreeNanos + wholeNanos, carried - wholeNanos, nextFreeNanos, permits, false);
    }

    /** Clock reading as ns since the origin, clamped to {@code ±2^62}. */
    private long sinceOrigin(long nowNanos) {
        // Subtraction wraps like System.nanoTime differences do; readings are clamped after it.
        long since = nowNanos - originNanos;
        return Math.max(-HORIZON_NANOS, Math.min(HORIZON_NANOS, since));
    }

    private void checkPermits(int permits) {
        if (permits < 1 || permits > limit) {
            throw new IllegalArgumentException("permits must be between 1 and the limit " + limit + ", was " + permits);
        }
    }

    /** The state of a rate that has not yet taken over the schedule it goes on from: sealed. */
    private static final State PENDING = new State(0, 0, 0, true);

    @Override
    public String toString() {
        String kind = curve.warmUpNanos == 0
                ? "pace"
                : "warm-up cold-factor=" + curve.coldFactor + " warm-up="
                        + DurationText.format(Duration.ofNanos(curve.warmUpNanos));
        return "SmoothRate[" + limit + " per " + DurationText.format(window) + ", " + kind + " max-queue="
                + DurationText.format(Duration.ofNanos(maxQueueNanos)) + "]";
    }

    /**
     * The mutable state, as one immutable value.
     *
     * @param storedPermits permits banked by idle time; always {@code 0 <= storedPermits <=
     *     maxPermits} (so always 0 for pace)
     * @param nextFreeNanos whole ns since the origin of {@code nextFree}, the moment from which the
     *     next request may proceed; only grows, and {@code nextFreeNanos <= 2^62 + 84 h}
     * @param nextFreeFractionNanos the fraction of a ns beyond {@code nextFreeNanos}; always {@code
     *     0 <= nextFreeFractionNanos < 1}
     * @param lastTurnNanos whole ns since the origin of the last reservation's turn (the latest
     *     booked), for {@link #goOnFrom}; 0 before any
     * @param lastPermits the permits of that reservation; 0 before any
     * @param sealed whether another rate took this schedule over (or, for {@link #PENDING}, this
     *     rate has yet to take its own over): then the state is never replaced
     */
    private record State(
            double storedPermits,
            long nextFreeNanos,
            double nextFreeFractionNanos,
            long lastTurnNanos,
            int lastPermits,
            boolean sealed) {

        State(double storedPermits, long nextFreeNanos, double nextFreeFractionNanos, boolean sealed) {
            this(storedPermits, nextFreeNanos, nextFreeFractionNanos, 0, 0, sealed);
        }

        /** This state, sealed: its values stay, and it is never replaced. */
        State sealedCopy() {
            return new State(storedPermits, nextFreeNanos, nextFreeFractionNanos, lastTurnNanos, lastPermits, true);
        }

        /** {@code nextFree - now} rounded up to whole ns, or 0 if {@code nextFree} has passed. */
        long waitNanos(long nowNanos) {
            long nextFreeCeilNanos = nextFreeNanos + (nextFreeFractionNanos > 0 ? 1 : 0);
            return Math.max(0, nextFreeCeilNanos - nowNanos);
        }
    }

    /** The price of permits: the chart of the class comment, fixed at creation. */
    private static final class Curve {

        /** The setting: {@code > 1} for warm-up, 1 for pace. */
        final double coldFactor;
        /** The setting, in ns: {@code 0 < warmUpNanos <= 24 h} for warm-up, 0 for pace. */
        final long warmUpNanos;

        /** {@code W / N} in ns: what a fresh permit costs; {@code > 0}. */
        final double stableIntervalNanos;
        /** {@code stableInterval * coldFactor} in ns: the price of the last stored permit; {@code >= stable}. */
        final double coldIntervalNanos;
        /** Stored permits below which a permit costs {@code stableInterval}; {@code >= 0} (0 for pace). */
        final double thresholdPermits;
        /** The most permits idle time stores; {@code >= thresholdPermits} (0 for pace), {@code < 2^48}. */
        final double maxPermits;
        /** ns per permit per stored permit above the threshold; {@code >= 0} (0 for pace). */
        final double slopeNanosPerPermit;
        /** Idle ns that store one permit: {@code warmUpPeriod / maxPermits}; infinite for pace. */
        final double coolDownIntervalNanos;

        private Curve(
                double coldFactor,
                long warmUpNanos,
                double stableIntervalNanos,
                double coldIntervalNanos,
                double thresholdPermits,
                double maxPermits,
                double coolDownIntervalNanos) {
            this.coldFactor = coldFactor;
            this.warmUpNanos = warmUpNanos;
            this.stableIntervalNanos = stableIntervalNanos;
            this.coldIntervalNanos = coldIntervalNanos;
            this.thresholdPermits = thresholdPermits;
            this.maxPermits = maxPermits;
            this.slopeNanosPerPermit = maxPermits > thresholdPermits
                    ? (coldIntervalNanos - stableIntervalNanos) / (maxPermits - thresholdPermits)
                    : 0;
            this.coolDownIntervalNanos = coolDownIntervalNanos;
        }

        static Curve flat(double stableIntervalNanos) {
            return new Curve(1, 0, stableIntervalNanos, stableIntervalNanos, 0, 0, Double.POSITIVE_INFINITY);
        }

        static Curve warmingUp(double stableIntervalNanos, double coldFactor, long warmUpNanos) {
            double coldIntervalNanos = stableIntervalNanos * coldFactor;
            double thresholdPermits = 0.5 * warmUpNanos / stableIntervalNanos;
            double maxPermits = thresholdPermits + 2.0 * warmUpNanos / (stableIntervalNanos + coldIntervalNanos);
            return new Curve(
                    coldFactor,
                    warmUpNanos,
                    stableIntervalNanos,
                    coldIntervalNanos,
                    thresholdPermits,
                    maxPermits,
                    warmUpNanos / maxPermits);
        }

        /** Height of the chart's line: ns per permit taken while {@code storedPermits} are stored. */
        double intervalAt(double storedPermits) {
            return stableIntervalNanos + slopeNanosPerPermit * Math.max(0, storedPermits - thresholdPermits);
        }

        /**
         * ns it costs to spend {@code take} of {@code stored} permits: the area under the line from
         * {@code stored - take} to {@code stored}, with {@code 0 <= take <= stored}.
         */
        double nanosToSpend(double stored, double take) {
            double above = Math.min(take, Math.max(0, stored - thresholdPermits));
            double trapezoidNanos = above * (intervalAt(stored) + intervalAt(stored - above)) / 2;
            return trapezoidNanos + (take - above) * stableIntervalNanos;
        }
    }
}
