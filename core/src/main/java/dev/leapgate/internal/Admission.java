package dev.leapgate.internal;

import dev.leapgate.Clock;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.Sleeper;

/**
 * The decision layer: whether a request with an origin and a number of permits may enter, under
 * the {@link Limit}s that apply to it. Who decides which limits apply is the caller's business:
 * {@code Limiter} applies all of its own, the HTTP layer those whose patterns match the request.
 *
 * <h2>Several limits per request</h2>
 *
 * Every limit whose scope includes the origin applies, and the request is admitted only if all of
 * them admit it. Limits are tried in two passes: first those that decide at once (windows and
 * in-flight limits), in their order, then those that may make a request wait (pace, warm-up).
 * When a limit rejects, the permits the limits before it took are given back: window counts are
 * refunded and in-flight slots released, so a rejected request leaves nothing consumed in them.
 * The one exception is a pace or warm-up reservation made before a <em>later</em> pace or warm-up
 * limit rejected: a reservation moves the schedule of every request after it and is not taken
 * back. The rejection names the limit that rejected; its retry time is the longest any limit that
 * applied knows of, since a retry must pass them all.
 *
 * <p>A shadow limit ({@code mode = shadow}) decides like the others, but a request it would reject
 * goes on: the would-be rejection is counted in its statistics ({@code shadowRejected}), and the
 * limit holds no permit for it (its token, {@code Limit.SHADOW_REJECTED}, gives none back and asks
 * for no wait); the entry still lists it, so its resource counts the request as admitted and its
 * completion, also when only shadow limits applied, all refusing it.
 * A request it admits counts against it as under an enforced limit, so its statistics show what
 * the rule would do if it were enforced. Shadow limits only reject (never wait).
 *
 * <p>A request that must wait (paced, or borrowing from the next bucket) waits on the caller's
 * thread through the {@link Sleeper}, for the longest wait any limit asked. If the thread is
 * interrupted meanwhile, its permits are given back as for a rejection (window counts and
 * in-flight slots; a pace or warm-up reservation, as above, is not taken back), the interrupt
 * status is restored, and the request is rejected with reason {@code "interrupted"}. If the
 * sleeper throws an unchecked exception instead (an application's sleeper), or the clock read after
 * the wait does, its permits are given back the same way, its wait is over, and the exception
 * propagates.
 *
 * <p>The windows decided at the decision's clock reading and counted the request in its bucket,
 * but a request that waited reaches the application when its wait ends: so that a strict window's
 * promise (no span of its length holds more than its limit) holds at those times, each enforced
 * window whose bucket has passed by then moves its count to the end of the wait ({@code
 * Limit.movedTo}: given back, then taken again), and a window that refuses it then rejects the
 * request, which gives back what it holds as on any rejection. A window in a shared store moves
 * on the store's clock, with a second round trip to the store; a request that did not wait never
 * makes one.
 *
 * <p>Limits whose windows are in a shared store ({@code Limit.Shared}) decide there; when several
 * apply to one request, their store decisions are started together before any is waited for, so a
 * request costs one round trip to the store however many shared rules it meets. A decision started
 * and then not needed (an earlier limit rejected) is abandoned, and the store gives back what it
 * admitted.
 *
 * <p>The clock is read once per decision (twice after a wait), and the reading is shared by the
 * counters and the statistics. The admitted path allocates the entry and nothing else for up to
 * two limits; a rejection by a limit everyone shares allocates nothing.
 *
 * <p>Concurrency: stateless; the limits are thread-safe.
 */
public final class Admission {

    static final String LIMIT_EXCEEDED = "limit exceeded";
    static final String UNTRACKED = "too many origins tracked";
    static final String TOO_MANY_PERMITS = "request needs more permits than the limit";
    static final String INTERRUPTED = "interrupted";
    public static final String STORE_UNAVAILABLE = "shared store unavailable";

    /**
     * Whether no retry of the rejected request can be admitted, however long it waits: a request
     * for more permits than the rejecting rule's limit. Its answer then tells no time to retry,
     * as a denied origin's does not ({@link Rejection#retryAfter} is zero for it, as for a slot,
     * whose retry time is unknown but which a retry may get).
     */
    public static boolean admitsNoRetry(Rejection rejection) {
        return rejection instanceof LimitRejection && TOO_MANY_PERMITS.equals(rejection.reason());
    }

    /**
     * Whether the request was rejected because a shared rule's store could not decide ({@code
     * store-on-failure = closed}): nothing was counted, and the client sent no more than allowed.
     */
    public static boolean storeUnavailable(Rejection rejection) {
        return rejection instanceof LimitRejection && STORE_UNAVAILABLE.equals(rejection.reason());
    }

    private final Clock clock;
    private final Sleeper sleeper;
    private final RejectionLog rejections; // null: no rejection log

    public Admission(Clock clock, Sleeper sleeper) {
        this(clock, sleeper, null);
    }

    /** @param rejections where rejections are told, with the decision's clock reading; null for nowhere */
    public Admission(Clock clock, Sleeper sleeper, RejectionLog rejections) {
        this.clock = clock;
        this.sleeper = sleeper;
        this.rejections = rejections;
    }

    public Clock clock() {
        return clock;
    }

    /**
     * Decides on a request that the limits {@code candidates} apply to (their scopes not yet
     * checked against the origin).
     *
     * @param permits at least 1 (checked by the caller)
     */
    public Decision decide(Limit[] candidates, Origin origin, int permits) {
        return decide(candidates, origin, permits, false);
    }

    /**
     * Takes permits of rate limits that may make the request wait (pacing, warm-up, borrowing),
     * without an entry: for {@code Limiter.tryAcquire}, counted as admitted with nothing to end, as
     * {@link #acquire} counts.
     *
     * @param permits at least 1 (checked by the caller)
     */
    public boolean acquireWaiting(Limit[] candidates, Origin origin, int permits) {
        return decide(candidates, origin, permits, true) instanceof Entry;
    }

    /** {@code instant}: an admission without an entry (nothing held, no response time), as a constant entry. */
    private Decision decide(Limit[] candidates, Origin origin, int permits, boolean instant) {
        Limit[] limits = forOrigin(candidates, origin);
        if (limits == null) {
            return UnlimitedEntry.INSTANCE;
        }
        if (limits.length == 1 && limits[0].decidesAtOnce() && !instant) {
            return decideAtOnce(limits, origin, permits);
        }
        long now = clock.nanoTime();
        int n = limits.length;
        long t0 = 0;
        long t1 = 0;
        long[] all = n > 2 ? new long[n] : null;
        // Several shared limits: their store decisions start together, one round trip for all.
        Object[] begun = remotes(limits) > 1 ? begin(limits, now, origin, permits) : null;
        boolean schedules = false;
        // The longest wait known when a schedule books its turn: the request goes on no sooner.
        long notBefore = 0;
        // Pass 1: limits that decide at once; pass 2: limits that may make the request wait.
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < n; i++) {
                Limit limit = limits[i];
                if (limit.schedules() != (pass == 1)) {
                    continue;
                }
                if (pass == 1 && !schedules) {
                    notBefore = longestWait(limits, t0, t1, all, now); // the loans of the first pass
                }
                schedules |= pass == 1;
                long token;
                try {
                    if (permits > limit.rule.limit()) {
                        token = Limit.REJECTED;
                    } else if (begun != null && begun[i] != null) {
                        token = limit.tryAcquire(now, origin, permits, begun[i]);
                        begun[i] = null;
                    } else if (pass == 1) {
                        long others = Math.max(notBefore, laterTurns(limits, i, now));
                        token = limit.tryAcquireGoingOnAfter(now, origin, permits, others);
                    } else {
                        token = limit.tryAcquire(now, origin, permits);
                    }
                } catch (Throwable e) {
                    // A fault, not a decision: what the limits before this one took goes back. Any
                    // throwable, also a checked one nothing declares (a "sneaky throw"), rethrown
                    // as it came (the compiler knows only unchecked ones can reach here).
                    abandon(limits, begun);
                    giveBack(limits, t0, t1, all, i, pass, origin, permits);
                    throw e;
                }
                if (token < 0 && limit.shadow) {
                    // The resource counts it once the request is let through (below): not when
                    // another rule rejects it, whichever of the two decided first.
                    shadowRejected(limit, origin, now, reason(limit, permits, token), false);
                    token = Limit.SHADOW_REJECTED; // holds nothing, gives nothing back
                } else if (token < 0) {
                    abandon(limits, begun);
                    giveBack(limits, t0, t1, all, i, pass, origin, permits);
                    return reject(limits, limit, now, origin, permits, reason(limit, permits, token));
                }
                if (all != null) {
                    all[i] = token;
                } else if (i == 0) {
                    t0 = token;
                } else {
                    t1 = token;
                }
                if (pass == 1) {
                    notBefore = Math.max(notBefore, waitNanos(limit, now, token));
                }
            }
        }
        // The entry holds every limit, shadow limits that would have rejected included (their
        // tokens hold nothing and ask for no wait), so that each limit's statistics count the
        // request and its end, also when only shadow limits applied and each would have rejected.
        long wait = 0;
        int longest = 0; // the limit that asked for the longest wait
        if (schedules || hasBorrowing(limits)) {
            for (int i = 0; i < n; i++) {
                long w = waitNanos(limits[i], now, token(t0, t1, all, i));
                if (w > wait) {
                    wait = w;
                    longest = i;
                }
            }
        }
        // Whether the request goes on by a loan from a window's next bucket: decided once the
        // windows have moved to the end of the wait, since a loan whose bucket has passed by then
        // is given back and taken again as an ordinary count (Limit.movedTo), and is a loan no more.
        boolean borrowed = false;
        long start = now;
        if (wait > 0) {
            waiting(limits, t0, t1, all, now, 0);
            try {
                sleeper.sleep(wait);
                start = clock.nanoTime();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                giveBack(limits, t0, t1, all, n, 1, origin, permits);
                long waited = waitedSince(now, wait);
                waiting(limits, t0, t1, all, now, waited);
                // As of the interruption: the retry time and the statistics' second are then's.
                return reject(limits, limits[longest], now + waited, origin, permits, INTERRUPTED);
            } catch (Throwable e) {
                // A fault of the sleeper (an application's own) or of the clock after it, not a
                // decision: the request holds nothing, and waits no more.
                giveBack(limits, t0, t1, all, n, 1, origin, permits);
                waiting(limits, t0, t1, all, now, waitedSince(now, wait));
                throw e;
            }
            waiting(limits, t0, t1, all, now, Math.max(1, start - now));
            // The windows counted the request at `now`; it goes on at `start`. Each whose bucket
            // has passed since counts it again at `start`, or rejects it (see Limit.movedTo).
            for (int i = 0; i < n; i++) {
                Limit limit = limits[i];
                long token = token(t0, t1, all, i);
                if (limit.shadow || token == Limit.SHADOW_REJECTED) {
                    continue; // a shadow limit's count stays with the decision, as its statistics do
                }
                long moved;
                try {
                    moved = limit.movedTo(start, origin, token, permits);
                } catch (Throwable e) {
                    // A fault, not a decision: this limit holds nothing (see Limit.movedTo), the
                    // others give back what they took, and the request waits no more.
                    giveBackAllBut(limits, t0, t1, all, i, origin, permits);
                    throw e;
                }
                if (moved == token) {
                    borrowed |= !limit.schedules() && waitNanos(limit, now, token) > 0;
                    continue;
                }
                if (moved < 0) {
                    giveBackAllBut(limits, t0, t1, all, i, origin, permits);
                    return reject(limits, limit, start, origin, permits, reason(limit, permits, moved));
                }
                if (all != null) {
                    all[i] = moved;
                } else if (i == 0) {
                    t0 = moved;
                } else {
                    t1 = moved;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            if (firstWithItsRecorder(limits, i)) {
                if (instant) {
                    limits[i].recorder.onInstant(start);
                } else {
                    limits[i].recorder.onEnter(start);
                }
                if (borrowed) {
                    limits[i].recorder.onBorrowed();
                }
            }
            if (token(t0, t1, all, i) == Limit.SHADOW_REJECTED && !shadowRejectedBefore(limits, t0, t1, all, i)) {
                limits[i].recorder.onShadowReject(start);
            }
        }
        return instant
                ? UnlimitedEntry.INSTANCE
                : new AdmittedEntry(limits, t0, t1, all, origin, permits, start, wait > 0);
    }

    /**
     * The longest wait that the limits decided so far ask of the request (a window's loan), when a
     * schedule is about to book its turn: a schedule books the turn where the request goes on, not
     * earlier, or it would give the turns after it to other requests that then go on beside this
     * one (a pace of one per 20 ms letting two go on at once, after one waited 100 ms for a loan).
     */
    private static long longestWait(Limit[] limits, long t0, long t1, long[] all, long now) {
        long longest = 0;
        for (int i = 0; i < limits.length; i++) {
            if (!limits[i].schedules()) {
                longest = Math.max(longest, waitNanos(limits[i], now, token(t0, t1, all, i)));
            }
        }
        return longest;
    }

    /**
     * The longest turn, as it stands at {@code now}, of the schedules after the {@code i}th, which
     * book theirs after it: so that the {@code i}th books its turn no earlier than a later,
     * slower schedule makes the request go on. A schedule moved by another request meanwhile may
     * still give a later turn than this read said (the {@code i}th's turn then comes that much
     * early, once).
     */
    private static long laterTurns(Limit[] limits, int i, long now) {
        long longest = 0;
        for (int j = i + 1; j < limits.length; j++) {
            if (limits[j].schedules()) {
                longest = Math.max(longest, limits[j].turnNanos(now));
            }
        }
        return longest;
    }

    /**
     * Nanoseconds since {@code now}, at least 1, for a wait that ended without admission; {@code
     * planned} if the clock fails (the request ends on that fault, or is rejected, either way).
     * Any throwable, as in {@code decide}: the clock's first failure is the one that propagates.
     */
    private long waitedSince(long now, long planned) {
        try {
            return Math.max(1, clock.nanoTime() - now);
        } catch (Throwable e) {
            return planned;
        }
    }

    /** The wait a limit asks of an admission that returned {@code token}; none for a shadow limit's refusal. */
    private static long waitNanos(Limit limit, long now, long token) {
        return token == Limit.SHADOW_REJECTED ? 0 : limit.waitNanos(now, token);
    }

    /**
     * Counts a wait that begins ({@code waitedNanos} 0) or ends after {@code waitedNanos} in the
     * {@link Waits} of each limit that asked for it. Each limit counts the wait it asked for itself,
     * cut to the time waited (a wait interrupted early): the request waits for the longest of them,
     * but a paced turn of 10 ms is not a wait of 90 ms because a loan of the same request asked
     * that long.
     */
    private static void waiting(Limit[] limits, long t0, long t1, long[] all, long now, long waitedNanos) {
        for (int i = 0; i < limits.length; i++) {
            Limit limit = limits[i];
            long asked = limit.waits == null ? 0 : waitNanos(limit, now, token(t0, t1, all, i));
            if (asked > 0) {
                if (waitedNanos == 0) {
                    limit.waits.begin();
                } else {
                    limit.waits.end(Math.min(asked, waitedNanos));
                }
            }
        }
    }

    /**
     * Takes permits of one rate limit that rejects its excess, without an entry: the cheapest
     * decision, for {@code Limiter.tryAcquire}. One clock reading, one counter update, one
     * statistics update; allocates nothing.
     */
    public boolean acquire(Limit rate, Origin origin, int permits) {
        long now = clock.nanoTime();
        boolean admitted = permits <= rate.rule.limit() && rate.tryAcquire(now, origin, permits) >= 0;
        if (admitted) {
            rate.recorder.onInstant(now);
        } else {
            rate.rejections.count(permits > rate.rule.limit() ? TOO_MANY_PERMITS : LIMIT_EXCEEDED, now);
            rate.recorder.onReject(now); // after the reason: see RuleRejections.read
        }
        return admitted;
    }

    /**
     * The common case, one limit that neither waits nor borrows ({@link Limit#decidesAtOnce()}),
     * whose scope includes the origin: no passes, no give-back. {@code limits} is the array {@code
     * {limit}}, which the entry keeps. Kept small, so that the compiler inlines it into its callers.
     */
    public Decision decideAtOnce(Limit[] limits, Origin origin, int permits) {
        Limit limit = limits[0];
        long now = clock.nanoTime();
        long token = permits <= limit.rule.limit() ? limit.tryAcquire(now, origin, permits) : Limit.REJECTED;
        if (token < 0) {
            if (limit.shadow) {
                shadowRejected(limit, origin, now, reason(limit, permits, token), true);
                return admittedByShadowAlone(limits, origin, permits, now);
            }
            return rejectAtOnce(limit, origin, permits, token, now);
        }
        limit.recorder.onEnter(now);
        return new AdmittedEntry(limits, token, 0, null, origin, permits, now, false);
    }

    private Rejection rejectAtOnce(Limit limit, Origin origin, int permits, long token, long now) {
        String reason = reason(limit, permits, token);
        limit.rejections.count(reason, now);
        limit.recorder.onReject(now); // after the reason: see RuleRejections.read
        named(limit, origin, reason, false, now);
        return reason != LIMIT_EXCEEDED || limit.perOrigin || permits != 1
                ? LimitRejection.at(limit, null, origin, permits, reason, now, limit.decidedRejection())
                : limit.sharedRejection(clock);
    }

    /** Why {@code limit} refused {@code permits} with {@code token}. */
    private static String reason(Limit limit, int permits, long token) {
        if (permits > limit.rule.limit()) {
            return TOO_MANY_PERMITS;
        }
        return token == Limit.UNTRACKED
                ? UNTRACKED
                : token == Limit.STORE_UNAVAILABLE ? STORE_UNAVAILABLE : LIMIT_EXCEEDED;
    }

    private static long token(long t0, long t1, long[] all, int i) {
        return all != null ? all[i] : i == 0 ? t0 : t1;
    }

    private static int remotes(Limit[] limits) {
        int remotes = 0;
        for (Limit limit : limits) {
            remotes += limit.remote() ? 1 : 0;
        }
        return remotes;
    }

    /** Starts the store decisions of the shared limits among {@code limits}; null entries for the others. */
    private static Object[] begin(Limit[] limits, long now, Origin origin, int permits) {
        Object[] begun = new Object[limits.length];
        for (int i = 0; i < limits.length; i++) {
            if (limits[i].remote() && permits <= limits[i].rule.limit()) {
                begun[i] = limits[i].begin(now, origin, permits);
            }
        }
        return begun;
    }

    /** Drops the store decisions started and not yet finished: a rejection came first. */
    private static void abandon(Limit[] limits, Object[] begun) {
        if (begun != null) {
            for (int i = 0; i < limits.length; i++) {
                if (begun[i] != null) {
                    limits[i].abandon(begun[i]);
                }
            }
        }
    }

    private static boolean hasBorrowing(Limit[] limits) {
        for (Limit limit : limits) {
            if (limit.borrows()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Gives back what the limits before {@code upTo} in pass {@code pass} (and all of pass 0, when
     * in pass 1) took.
     */
    private static void giveBack(
            Limit[] limits, long t0, long t1, long[] all, int upTo, int pass, Origin origin, int permits) {
        for (int p = 0; p <= pass; p++) {
            for (int i = 0; i < limits.length; i++) {
                if (limits[i].schedules() != (p == 1) || (p == pass && i >= upTo)) {
                    continue;
                }
                long token = token(t0, t1, all, i);
                if (token != Limit.SHADOW_REJECTED) {
                    limits[i].release(origin, token, permits);
                }
            }
        }
    }

    /** Gives back what every limit but {@code limits[except]} (which holds nothing) took. */
    private static void giveBackAllBut(
            Limit[] limits, long t0, long t1, long[] all, int except, Origin origin, int permits) {
        for (int i = 0; i < limits.length; i++) {
            long token = token(t0, t1, all, i);
            if (i != except && token != Limit.SHADOW_REJECTED) {
                limits[i].release(origin, token, permits);
            }
        }
    }

    /**
     * A request that only one shadow limit, {@code limits[0]}, applied to, and that it would have
     * refused: admitted all the same, and counted so (and its completion) in its resource's
     * statistics, as the request it is; its entry holds nothing in the limit.
     */
    private static AdmittedEntry admittedByShadowAlone(Limit[] limits, Origin origin, int permits, long now) {
        limits[0].recorder.onEnter(now);
        return new AdmittedEntry(limits, Limit.SHADOW_REJECTED, 0, null, origin, permits, now, false);
    }

    /**
     * Records what the shadow limit {@code limit} would have rejected: its own counts, offenders and
     * log line, and, with {@code inResource}, the request in its resource's statistics (which count
     * a request once, however many of its shadow rules would have rejected it).
     */
    private void shadowRejected(Limit limit, Origin origin, long now, String reason, boolean inResource) {
        if (inResource) {
            limit.recorder.onShadowReject(now);
        }
        limit.rejections.count(reason, now);
        named(limit, origin, reason, true, now);
    }

    /**
     * Counts a rejection by {@code limit} (or, {@code shadow}, one it would have made) in the
     * rejection log and among the limit's offenders, who name the clients rejected most: a
     * rejection because the store could not decide names no client there, since the client sent no
     * more than allowed (its log line says how many there were).
     */
    private void named(Limit limit, Origin origin, String reason, boolean shadow, long now) {
        boolean undecided = reason == STORE_UNAVAILABLE;
        if (rejections != null) {
            String rule = limit.rule.name();
            if (undecided) {
                rejections.recordUndecided(rule, shadow, now);
            } else if (shadow) {
                rejections.recordShadow(rule, origin, now);
            } else {
                rejections.record(rule, origin, now);
            }
        }
        if (limit.offenders != null && !undecided) {
            limit.offenders.offer(origin, now);
        }
    }

    private Rejection reject(Limit[] limits, Limit by, long now, Origin origin, int permits, String reason) {
        by.rejections.count(reason, now); // before the recorder, which may be where it counts: see RuleRejections.read
        for (int i = 0; i < limits.length; i++) {
            if (firstWithItsRecorder(limits, i)) {
                limits[i].recorder.onReject(now);
            }
        }
        named(by, origin, reason, false, now);
        // The others that applied hold a retry back too (see LimitRejection).
        Limit[] applied = limits.length > 1 ? limits : null;
        if (permits == 1 && reason == LIMIT_EXCEEDED && !by.perOrigin) {
            if (applied == null) {
                return by.sharedRejection(clock);
            }
            if (!anyPerOrigin(applied)) {
                return by.sharedRejection(clock, applied);
            }
        }
        return LimitRejection.at(by, applied, origin, permits, reason, now, by.decidedRejection());
    }

    private static boolean anyPerOrigin(Limit[] limits) {
        for (Limit limit : limits) {
            if (limit.perOrigin) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a shadow limit before {@code limits[i]} with the same recorder would have rejected the
     * request too: its resource counts the request once, for that one.
     */
    private static boolean shadowRejectedBefore(Limit[] limits, long t0, long t1, long[] all, int i) {
        for (int j = 0; j < i; j++) {
            if (limits[j].recorder == limits[i].recorder
                    && !limits[j].schedules()
                    && token(t0, t1, all, j) == Limit.SHADOW_REJECTED) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code limits[i]} is the first of the limits with its recorder: limits may share a
     * resource, whose statistics must count a request once. Limit lists are short; no allocation.
     */
    static boolean firstWithItsRecorder(Limit[] limits, int i) {
        ResourceRecorder recorder = limits[i].recorder;
        for (int j = 0; j < i; j++) {
            if (limits[j].recorder == recorder) {
                return false;
            }
        }
        return true;
    }

    /** Of the candidate limits, those whose scope includes the origin; null if none. */
    private static Limit[] forOrigin(Limit[] candidates, Origin origin) {
        int included = 0;
        for (Limit limit : candidates) {
            included += limit.includes(origin) ? 1 : 0;
        }
        if (included == candidates.length) {
            return included == 0 ? null : candidates;
        }
        if (included == 0) {
            return null;
        }
        Limit[] limits = new Limit[included];
        int n = 0;
        for (Limit limit : candidates) {
            if (limit.includes(origin)) {
                limits[n++] = limit;
            }
        }
        return limits;
    }
}
