package dev.leapgate.internal;

import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.internal.counter.InFlightCounter;
import dev.leapgate.internal.counter.KeyedInFlightCounter;
import dev.leapgate.internal.counter.KeyedRateCounter;
import dev.leapgate.internal.counter.LeapCounter;
import dev.leapgate.internal.counter.RateCounter;
import dev.leapgate.internal.counter.SmoothRate;
import dev.leapgate.net.ClientKey;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.stats.RejectionCounts;
import dev.leapgate.stats.StoreStats;
import dev.leapgate.store.FailurePolicy;
import dev.leapgate.store.SharedWindow;
import dev.leapgate.store.StoreSettings;
import dev.leapgate.store.Verdict;
import dev.leapgate.store.WindowStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rule compiled for enforcement: the counter that enforces its limit (one shared counter, or a
 * table of per-origin counters) and the recorder of its resource's statistics. Kept across reloads
 * while the rule is unchanged. Not part of Leapgate's API.
 *
 * <p>Every kind answers the same questions: try to take permits (a primitive result, so the
 * admitted path allocates nothing here), give them back, and describe the quota. Results: a
 * non-negative token when admitted, {@link #REJECTED}, or {@link #UNTRACKED}.
 *
 * <p>Concurrency: immutable; the counters and the recorder are thread-safe.
 */
public abstract sealed class Limit {

    static final long REJECTED = RateCounter.REJECTED;
    static final long UNTRACKED = KeyedRateCounter.UNTRACKED;
    /** The token of a shadow limit that would have rejected: it holds nothing. */
    static final long SHADOW_REJECTED = Long.MIN_VALUE;
    /** Returned by {@link #tryAcquire} when a shared rule's store cannot decide and its policy is to reject. */
    static final long STORE_UNAVAILABLE = -3;

    final FlowRule rule;
    final ResourceRecorder recorder;
    final boolean perOrigin;
    /** Whether the rule only watches ({@link FlowRule#shadow}). */
    final boolean shadow;
    /** The origins a per-origin rule rejected (or, in shadow mode, would have rejected) most recently; null for other scopes. */
    final RecentOffenders offenders;
    /** The requests the limit rejected (in shadow mode: would have rejected), by reason. */
    final RuleRejections rejections;
    /** The requests that waited for the limit; null for a limit that never makes one wait. */
    final Waits waits;

    private final String namedOrigin;
    /** Whether {@link #namedOrigin} is an IP address, which only a client counted by its address is. */
    private final boolean namedAddress;

    /**
     * With {@code alone}, the limit is the only one recording into {@code recorder} and never
     * watches in shadow mode, so its rejections are the recorder's, counted once for both. With
     * {@code history}, the limit of the rule's previous version (same name and shadow
     * mode), the rule keeps its rejection counts, its offenders and its waits.
     */
    Limit(FlowRule rule, ResourceRecorder recorder, boolean alone, Limit history) {
        this.rule = rule;
        this.recorder = recorder;
        this.perOrigin = rule.scope().kind() == Scope.Kind.PER_ORIGIN;
        this.shadow = rule.shadow();
        this.offenders = !perOrigin
                ? null
                : history != null && history.offenders != null ? history.offenders : new RecentOffenders();
        this.rejections = alone && !shadow
                ? new RuleRejections(recorder)
                : history != null ? history.rejections : new RuleRejections(rule.name(), recorder.clock());
        this.waits = rule.isInFlight() || rule.shadow() || rule.onExcess().kind() == OnExcess.Kind.REJECT
                ? null
                : history != null && history.waits != null ? history.waits : new Waits();
        this.namedOrigin =
                rule.scope().kind() == Scope.Kind.ORIGIN ? rule.scope().origin() : null;
        this.namedAddress = namedOrigin != null && ListSeparators.isAddress(namedOrigin);
    }

    /**
     * Compiles the rules of one limiter, all recording into {@code recorder}, which is made for
     * them; counters start empty at {@code nowNanos}.
     */
    public static Limit[] create(List<FlowRule> rules, ResourceRecorder recorder, long nowNanos) {
        Limit[] limits = new Limit[rules.size()];
        for (int i = 0; i < limits.length; i++) {
            limits[i] = create(rules.get(i), recorder, nowNanos, null, limits.length == 1, null);
        }
        return limits;
    }

    /**
     * Compiles {@code rule}; a rule that {@link FlowRule#isShared() is shared} keeps its windows in
     * {@code store} (null: no store, every rule per instance).
     */
    public static Limit create(FlowRule rule, ResourceRecorder recorder, long nowNanos, Store store) {
        return create(rule, recorder, nowNanos, store, false, null);
    }

    /**
     * Compiles {@code rule}, a changed version of {@code previous}'s rule (same name, whatever its
     * match), so that it goes on from what {@code previous} counts where it can: a window or an
     * in-flight limit of the same scope keeps counting the requests {@code previous} counted,
     * against the new limit, also where the rule moves into or out of the store (from this
     * instance's share); see {@link #continued}. Else as {@link #create(FlowRule,
     * ResourceRecorder, long, Store)}.
     */
    public static Limit create(FlowRule rule, ResourceRecorder recorder, long nowNanos, Store store, Limit previous) {
        return create(rule, recorder, nowNanos, store, false, previous);
    }

    private static Limit create(
            FlowRule rule, ResourceRecorder recorder, long nowNanos, Store store, boolean alone, Limit previous) {
        // The rule's statistics go on under the same name and mode: a limit changed during an attack
        // keeps the counts and the clients it rejected most.
        Limit history = previous != null && previous.shadow == rule.shadow() ? previous : null;
        if (store != null && rule.isShared()) {
            return new Shared(rule, recorder, nowNanos, store, alone, history, previous);
        }
        if (rule.isInFlight()) {
            return new InFlight(rule, recorder, alone, history, previous instanceof InFlight same ? same : null);
        }
        return switch (rule.onExcess().kind()) {
            case REJECT, BORROW -> {
                // A rule that leaves the shared store goes on from this instance's share, what the
                // instance admitted without the store (during an outage); what the store counted
                // stays there.
                Window counted = previous instanceof Window same
                        ? same
                        : previous instanceof Shared shared ? shared.shareWindow() : null;
                yield new Window(rule, recorder, nowNanos, alone, history, counted);
            }
            case PACE, WARM_UP, WARM_UP_PACE ->
                new Smooth(rule, recorder, nowNanos, alone, history, previous instanceof Smooth same ? same : null);
        };
    }

    /**
     * Whether this limit went on from what the limit of its rule's previous version counted: a
     * window of the same scope (whatever its window, limit, borrowing, path or {@code
     * max-origins}), or an in-flight limit of the same scope (and, per origin, the same {@code
     * max-origins}), or pacing or warm-up of the same scope (after what the previous schedule
     * holds; warm-up starts cold). A rule in a shared store keeps its windows there, whose keys do
     * not depend on the limit.
     */
    public boolean continued() {
        return false;
    }

    /** The rule this limit enforces. */
    public final FlowRule rule() {
        return rule;
    }

    /** The origins this per-origin limit rejected most over the last one to two minutes; empty for other scopes. */
    public final List<TopOrigins.Counted> recentOffenders(int n, long nowNanos) {
        return offenders == null ? List.of() : offenders.top(n, nowNanos);
    }

    /** The requests that waited for this limit (paced, warming up, borrowing); empty if none ever waits. */
    public final Optional<Waits> waits() {
        return Optional.ofNullable(waits);
    }

    /** The requests this limit rejected (in shadow mode: would have rejected), by reason. */
    public final RejectionCounts rejections() {
        return rejections.read();
    }

    /**
     * The requests this limit rejected (in shadow mode: would have rejected) in each of the 60
     * whole seconds before the current one, oldest first.
     */
    public final long[] rejectionsBySecond() {
        return rejections.lastMinuteBySecond();
    }

    /** The statistics of the rule's resource. */
    public final ResourceRecorder recorder() {
        return recorder;
    }

    /**
     * Whether the rule's scope includes the origin (always, but for a rule of one named origin). An
     * address names a client counted by its address, never an identifier (an API key, a user name)
     * written the same way: else a key "203.0.113.7" would spend that address's window.
     */
    public final boolean includes(Origin origin) {
        return namedOrigin == null || (namedAddress == (origin.ip() != null) && namedOrigin.equals(origin.id()));
    }

    /** The one rejection shared by every rejected request of one permit, for a limit without origins. */
    private volatile LimitRejection sharedRejection;

    final LimitRejection sharedRejection(dev.leapgate.Clock clock) {
        LimitRejection shared = sharedRejection;
        if (shared == null) {
            shared = LimitRejection.shared(this, null, clock);
            sharedRejection = shared; // a racing second one is equal
        }
        return shared;
    }

    /**
     * The last rejection shared by the rejected requests of one permit that this limit rejected
     * among the limits {@code applied}, none of them per origin: a route's limits are usually the
     * same array request after request, so a flood allocates nothing.
     */
    private volatile LimitRejection sharedAmong;

    final LimitRejection sharedRejection(dev.leapgate.Clock clock, Limit[] applied) {
        LimitRejection shared = sharedAmong;
        if (shared == null || !shared.among(applied)) {
            shared = LimitRejection.shared(this, applied, clock);
            sharedAmong = shared; // a racing other one is as good
        }
        return shared;
    }

    /** Whether the limit decides at once: it neither schedules nor borrows, so no request waits. */
    public final boolean decidesAtOnce() {
        return !schedules() && !borrows();
    }

    /** Whether a request this limit rejects may borrow from its next bucket. */
    boolean borrows() {
        return false;
    }

    /** Whether the rule schedules requests (pace, warm-up): such rules are tried after the others. */
    boolean schedules() {
        return false;
    }

    abstract long tryAcquire(long nowNanos, Origin origin, int permits);

    /**
     * As {@link #tryAcquire(long, Origin, int)}, for a request that another limit makes wait {@code
     * notBeforeNanos} from {@code nowNanos} at least: a schedule books its turn where the request
     * goes on, and still admits by its own wait alone. Only scheduling limits care.
     */
    long tryAcquireGoingOnAfter(long nowNanos, Origin origin, int permits, long notBeforeNanos) {
        return tryAcquire(nowNanos, origin, permits);
    }

    /**
     * For a scheduling limit, the nanoseconds a one-permit request deciding at {@code nowNanos}
     * would wait for its turn, if it were admitted (0 if it would be rejected); 0 for other limits.
     */
    long turnNanos(long nowNanos) {
        return 0;
    }

    /** Whether the limit decides in a shared store, through {@link #begin} and the four-argument {@link #tryAcquire}. */
    boolean remote() {
        return false;
    }

    /**
     * Starts a decision in the shared store without waiting for it, so that the decisions of
     * several shared limits on one request take one round trip; what it returns is passed to
     * {@link #tryAcquire(long, Origin, int, Object)} or {@link #abandon}. Only for {@link #remote()} limits.
     */
    Object begin(long nowNanos, Origin origin, int permits) {
        throw new UnsupportedOperationException("not a shared limit");
    }

    /** Finishes a decision started with {@link #begin}: as {@link #tryAcquire(long, Origin, int)}. */
    long tryAcquire(long nowNanos, Origin origin, int permits, Object begun) {
        throw new UnsupportedOperationException("not a shared limit");
    }

    /** Drops a decision started with {@link #begin} that will not be finished; what it admits is given back. */
    void abandon(Object begun) {}

    /** Gives back what {@link #tryAcquire} took: its result is {@code token}. */
    abstract void release(Origin origin, long token, int permits);

    /** Nanoseconds to wait before proceeding for an admission at {@code nowNanos} that returned {@code token}. */
    long waitNanos(long nowNanos, long token) {
        return 0;
    }

    /**
     * Counts an admission that returned {@code token} at {@code startNanos}, when the request goes
     * on then, after waiting for another limit (a paced turn, a loan): a window whose ticket's
     * bucket has passed by then gives the permits back and takes them again at {@code startNanos},
     * so that its promise holds at the times requests reach the application. Refund first: the
     * request has not gone on yet, and taking first would make it refuse itself at a limit of 1.
     * Only on the waiting path; kinds that count no bucket (in flight, pacing) move nothing.
     *
     * @return {@code token} if nothing moved; else the token of the admission at {@code startNanos},
     *     or a negative result if the limit refuses the permits then, holding nothing (as it holds
     *     nothing if this throws)
     */
    long movedTo(long startNanos, Origin origin, long token, int permits) {
        return token;
    }

    /** How the rule's shared store is doing; empty for a rule whose windows are in this process. */
    public Optional<StoreStats> store() {
        return Optional.empty();
    }

    /**
     * Whether requests this limit admitted still hold something of it at {@code nowNanos} (in-flight
     * slots, turns booked ahead), so that a version of the rule written back goes on from it.
     */
    boolean holdsRequests(long nowNanos) {
        return false;
    }

    /** Origins a per-origin rule tracks now; -1 for a rule of another scope (it tracks none). */
    public int trackedOrigins() {
        return -1;
    }

    /** Origins a per-origin rule evicted to make room for new ones; -1 for a rule of another scope. */
    public long evictions() {
        return -1;
    }

    /**
     * Origins a per-origin rule holds at their limit at {@code nowNanos} (a window full, or every
     * in-flight slot taken): a scan of its table, for monitoring; -1 for a rule of another scope.
     */
    public int limitedOrigins(long nowNanos) {
        return -1;
    }

    /**
     * What a rule that counts everyone together holds at {@code nowNanos}: permits counted in its
     * window, or requests in flight; -1 for a per-origin rule or a paced one.
     */
    public long sharedUse(long nowNanos) {
        return -1;
    }

    /** Permits left under the limit for {@code origin} after an admission that returned {@code token}. */
    public abstract long remaining(long nowNanos, Origin origin, long token);

    /**
     * Nanoseconds from {@code nowNanos} until the quota is whole again after an admission that
     * returned {@code token}; 0 for an in-flight limit.
     */
    public abstract long resetNanos(long nowNanos, Origin origin, long token);

    /**
     * {@link #remaining}, for a request that waited after its decision until {@code nowNanos}:
     * others may have been counted meanwhile.
     */
    public long remainingAfterWait(long nowNanos, Origin origin, long token) {
        return remaining(nowNanos, origin, token);
    }

    /**
     * Where the origin stands after an admission that returned {@code token}, with {@code waited}
     * after a wait (see {@link #remainingAfterWait}).
     */
    final Quota quota(long nowNanos, Origin origin, long token, boolean waited) {
        return new Quota(
                rule.name(),
                rule.limit(),
                rule.isInFlight() ? null : rule.window().length(),
                waited ? remainingAfterWait(nowNanos, origin, token) : remaining(nowNanos, origin, token),
                Duration.ofNanos(resetNanos(nowNanos, origin, token)));
    }

    /** Where the origin stands after a rejection of {@code permits}, and when to retry. */
    abstract Quota rejectedQuota(long nowNanos, Origin origin, int permits);

    abstract Duration retryAfter(long nowNanos, Origin origin, int permits);

    /**
     * What the rejection this limit has just decided on this thread knows that the limit may not
     * keep (a shared limit's answer from the store, which it remembers in a slot that another
     * client's rejection may take), for {@link #rejectedQuota(long, Origin, int, Object)} and
     * {@link #retryAfter(long, Origin, int, Object)}; null if the counters say it all.
     */
    Object decidedRejection() {
        return null;
    }

    /** {@link #rejectedQuota(long, Origin, int)}, told what the decision knew ({@link #decidedRejection}). */
    Quota rejectedQuota(long nowNanos, Origin origin, int permits, Object decided) {
        return rejectedQuota(nowNanos, origin, permits);
    }

    /** {@link #retryAfter(long, Origin, int)}, told what the decision knew ({@link #decidedRejection}). */
    Duration retryAfter(long nowNanos, Origin origin, int permits, Object decided) {
        return retryAfter(nowNanos, origin, permits);
    }

    /**
     * Whether the quota of an admission by this limit with {@code token} is shown to the client
     * ({@link dev.leapgate.Entry#quotas}, the {@code RateLimit} fields): not for a shadow limit,
     * which limits nothing, nor for a shared one whose store could not decide and whose policy let
     * the request pass ({@code store-on-failure = open}), which limits nothing meanwhile either.
     */
    boolean quotaShown(long token) {
        return !shadow;
    }

    /**
     * Nanoseconds from {@code nowNanos} until this limit would take {@code permits} for {@code
     * origin}, as far as it knows without deciding (0: it would now); for a request that another
     * limit rejected, whose retry time is the longest of all ({@link LimitRejection}).
     */
    long knownRetryNanos(long nowNanos, Origin origin, int permits) {
        return retryAfter(nowNanos, origin, permits).toNanos();
    }

    /**
     * A limit on requests per window, exact, shared or per origin; with {@link OnExcess.Kind#BORROW}
     * a request the window rejects may borrow from the next bucket. Tokens: tickets.
     */
    static final class Window extends Limit {
        private final LeapCounter shared;
        private final KeyedRateCounter keyed;
        /** Longest wait for a loan from the next bucket; -1 never borrows. */
        private final long maxWaitNanos;
        /** Buckets a bucket stays in the window, its own included: {@code n + 1} strict, {@code n} sliding. */
        private final int countedBuckets;

        /** Whether this limit went on from the counts of the limit it was made from. */
        private final boolean continued;

        /** With {@code previous} (or null), a window of another version of the rule: see {@link #continued}. */
        Window(FlowRule rule, ResourceRecorder recorder, long nowNanos, boolean alone, Limit history, Window previous) {
            super(rule, recorder, alone, history);
            boolean borrowing = rule.onExcess().kind() == OnExcess.Kind.BORROW;
            this.maxWaitNanos = borrowing ? rule.onExcess().maxWait().toNanos() : -1;
            this.countedBuckets = rule.window().buckets() + (rule.window().mode() == WindowMode.STRICT ? 1 : 0);
            this.continued = previous != null && previous.rule.scope().equals(rule.scope());
            if (continued && !perOrigin) {
                // In force, perhaps still to take over from its own previous version: now, so that
                // reloads before any request make no chain of them.
                previous.shared.settle(nowNanos);
            }
            if (perOrigin) {
                this.keyed = continued
                        ? previous.keyed.withLimit(rule.window(), rule.limit(), borrowing, rule.maxOrigins(), nowNanos)
                        : new KeyedRateCounter(rule.window(), rule.limit(), nowNanos, rule.maxOrigins(), borrowing);
                this.shared = null;
            } else {
                this.shared = continued
                        ? previous.shared.withLimit(rule.window(), rule.limit(), borrowing)
                        : new LeapCounter(rule.window(), rule.limit(), nowNanos, borrowing);
                this.keyed = null;
            }
        }

        @Override
        public boolean continued() {
            return continued;
        }

        @Override
        long tryAcquire(long nowNanos, Origin origin, int permits) {
            return perOrigin
                    ? keyed.tryAcquire(origin.key(), nowNanos, permits, maxWaitNanos)
                    : shared.tryAcquire(nowNanos, permits, maxWaitNanos);
        }

        @Override
        boolean borrows() {
            return maxWaitNanos >= 0;
        }

        @Override
        long waitNanos(long nowNanos, long token) {
            if (maxWaitNanos < 0) {
                return 0;
            }
            long start = perOrigin ? keyed.ticketStartNanos(token) : shared.ticketStartNanos(token);
            return Math.max(0, start - nowNanos);
        }

        @Override
        void release(Origin origin, long token, int permits) {
            if (perOrigin) {
                keyed.refund(origin.key(), token, permits);
            } else {
                shared.refund(token, permits);
            }
        }

        /**
         * While {@code startNanos} is within the ticket's bucket (or before it: a loan's, waited
         * for), the ticket stands; later, the permits move to the bucket of {@code startNanos},
         * never as a loan (the request goes on now). But where the permits cannot be given back
         * while their bucket still counts (a reload handed the client, or a borrowing window, to
         * the new version's counter, which keeps them), the ticket stands too: taken again, the
         * request would be counted twice, and refuse itself at a limit of 1. The price (README,
         * "Several rules per request"): such a request's count ends a bucket or more before a count
         * at {@code startNanos} would, and an evicted client's count, remembered at its eviction,
         * may refuse the request when it is taken again. Counting the permits at {@code
         * startNanos} without asking the limit would close both, and needs a way to count past a
         * full window.
         */
        @Override
        long movedTo(long startNanos, Origin origin, long token, int permits) {
            long bucketStart = perOrigin ? keyed.ticketStartNanos(token) : shared.ticketStartNanos(token);
            if (startNanos - bucketStart < rule.window().bucketNanos()) {
                return token;
            }
            boolean gaveBack = perOrigin ? keyed.refund(origin.key(), token, permits) : shared.refund(token, permits);
            long bucketEnd = perOrigin ? keyed.ticketEndNanos(token) : shared.ticketEndNanos(token);
            if (!gaveBack && startNanos - bucketEnd < 0) {
                return token; // still counted where it was decided
            }
            return perOrigin
                    ? keyed.tryAcquire(origin.key(), startNanos, permits, -1)
                    : shared.tryAcquire(startNanos, permits, -1);
        }

        @Override
        public int trackedOrigins() {
            return perOrigin ? keyed.trackedOrigins() : -1;
        }

        @Override
        public long evictions() {
            return perOrigin ? keyed.evictions() : -1;
        }

        @Override
        public int limitedOrigins(long nowNanos) {
            return perOrigin ? keyed.limitedOrigins(nowNanos) : -1;
        }

        @Override
        public long sharedUse(long nowNanos) {
            return perOrigin ? -1 : shared.used(nowNanos);
        }

        private long used(long nowNanos, Origin origin) {
            return perOrigin ? keyed.used(origin.key(), nowNanos) : shared.used(nowNanos);
        }

        /**
         * Nanoseconds until {@code permits} fit, {@link Long#MAX_VALUE} if they never can: more
         * than the limit of the counter that decides, which is not always this rule's (see {@link
         * #retryAfter}).
         */
        private long untilAvailable(long nowNanos, Origin origin, long permits) {
            return perOrigin
                    ? keyed.nanosUntilAvailable(origin.key(), nowNanos, (int) permits)
                    : shared.nanosUntilAvailable(nowNanos, permits);
        }

        /**
         * From the ticket, without reading the window again, while {@code nowNanos} is within the
         * admission's bucket (or before it, for a loan). Later, for a request that waited for another
         * rule's turn until its bucket had passed, the ticket tells of a window that has moved on
         * since, perhaps to a quota whole again: the window is read as it is then.
         */
        @Override
        public long remaining(long nowNanos, Origin origin, long token) {
            long bucketStart = perOrigin ? keyed.ticketStartNanos(token) : shared.ticketStartNanos(token);
            if (nowNanos - bucketStart < rule.window().bucketNanos()) {
                return perOrigin ? keyed.remainingAfter(token) : shared.remainingAfter(token);
            }
            return Math.max(0, rule.limit() - used(nowNanos, origin));
        }

        /**
         * Never more than the window holds when the request goes on: while it waited, other
         * requests were counted (loans of the same bucket, admissions while another rule's turn
         * came), and the ticket tells of the window as it stood at the decision.
         */
        @Override
        public long remainingAfterWait(long nowNanos, Origin origin, long token) {
            return Math.min(remaining(nowNanos, origin, token), Math.max(0, rule.limit() - used(nowNanos, origin)));
        }

        @Override
        public long resetNanos(long nowNanos, Origin origin, long token) {
            // Whole again when the admission's own bucket, the newest counted, leaves the window:
            // known from the ticket, without reading the window again.
            long bucketStart = perOrigin ? keyed.ticketStartNanos(token) : shared.ticketStartNanos(token);
            return Math.max(0, bucketStart + countedBuckets * rule.window().bucketNanos() - nowNanos);
        }

        /**
         * The reset is when the window counts nothing, asked as such: not as when this rule's
         * limit fits, which, once a changed rule's counter (or table, for the client) took this one
         * over (see {@link #retryAfter}), is asked of a counter whose lower limit it never fits.
         */
        @Override
        Quota rejectedQuota(long nowNanos, Origin origin, int permits) {
            long remaining = Math.max(0, rule.limit() - used(nowNanos, origin));
            long reset = perOrigin ? keyed.nanosUntilEmpty(origin.key(), nowNanos) : shared.nanosUntilEmpty(nowNanos);
            return new Quota(rule.name(), rule.limit(), rule.window().length(), remaining, Duration.ofNanos(reset));
        }

        /**
         * When {@code permits} fit in the window in force; {@link Duration#ZERO} if no wait admits
         * them (as {@link dev.leapgate.Rejection#retryAfter} says), never "never" ({@link
         * Long#MAX_VALUE}, which made a retry of 292 years). The caller checked the permits against
         * this rule's limit, but the counter that answers may be a changed version's: once a
         * reload's new version of the rule (another window or borrowing) has taken this counter's
         * counts over, at its first use, this counter hands every call on to it, limit included.
         * Per origin, once the new version's table (another window, or wider buckets) has taken
         * the client over, at its first request there, this table hands every call for that client
         * on to it in the same way. A request that read the rules before the reload and is decided
         * after that use, or a rejection asked after it (rejections are computed when asked), gets
         * the new window's answer: the true one, since a retry meets the new version; and a
         * lowered limit may be below the permits.
         */
        @Override
        Duration retryAfter(long nowNanos, Origin origin, int permits) {
            long until = untilAvailable(nowNanos, origin, permits);
            return until == Long.MAX_VALUE ? Duration.ZERO : Duration.ofNanos(until);
        }
    }

    /** A limit on requests in flight, shared or per origin. Tokens: 1 when taken. */
    static final class InFlight extends Limit {
        private final InFlightCounter shared;
        private final KeyedInFlightCounter keyed;

        /** Whether this limit counts the requests in flight of the limit it was made from. */
        private final boolean continued;

        /** With {@code previous} (or null), a limit of another version of the rule: see {@link #continued}. */
        InFlight(FlowRule rule, ResourceRecorder recorder, boolean alone, Limit history, InFlight previous) {
            super(rule, recorder, alone, history);
            boolean continues = previous != null && previous.rule.scope().equals(rule.scope());
            if (perOrigin) {
                continues = continues && previous.keyed.maxOrigins() == rule.maxOrigins();
                this.keyed = continues
                        ? previous.keyed.withLimit(rule.limit())
                        : new KeyedInFlightCounter(rule.limit(), rule.maxOrigins());
                this.shared = null;
            } else {
                this.shared = continues ? previous.shared.withLimit(rule.limit()) : new InFlightCounter(rule.limit());
                this.keyed = null;
            }
            this.continued = continues;
        }

        @Override
        public boolean continued() {
            return continued;
        }

        @Override
        long tryAcquire(long nowNanos, Origin origin, int permits) {
            if (perOrigin) {
                long taken = keyed.tryAcquire(origin.key(), permits);
                return taken == 1 ? 1 : taken == 0 ? REJECTED : UNTRACKED;
            }
            return shared.tryAcquire(permits) ? 1 : REJECTED;
        }

        @Override
        void release(Origin origin, long token, int permits) {
            if (perOrigin) {
                keyed.release(origin.key(), permits);
            } else {
                shared.release(permits);
            }
        }

        @Override
        public int trackedOrigins() {
            return perOrigin ? keyed.trackedOrigins() : -1;
        }

        @Override
        public long evictions() {
            return perOrigin ? keyed.evictions() : -1;
        }

        @Override
        public int limitedOrigins(long nowNanos) {
            return perOrigin ? keyed.limitedOrigins(nowNanos) : -1;
        }

        @Override
        public long sharedUse(long nowNanos) {
            return perOrigin ? -1 : shared.inFlight();
        }

        @Override
        boolean holdsRequests(long nowNanos) {
            return perOrigin ? keyed.holdsAny(nowNanos) : shared.inFlight() > 0;
        }

        private long inFlight(Origin origin) {
            return perOrigin ? keyed.inFlight(origin.key()) : shared.inFlight();
        }

        @Override
        public long remaining(long nowNanos, Origin origin, long token) {
            return Math.max(0, rule.limit() - inFlight(origin));
        }

        @Override
        public long resetNanos(long nowNanos, Origin origin, long token) {
            return 0;
        }

        @Override
        Quota rejectedQuota(long nowNanos, Origin origin, int permits) {
            return quota(nowNanos, origin, 0, false);
        }

        @Override
        Duration retryAfter(long nowNanos, Origin origin, int permits) {
            return Duration.ZERO; // a slot frees whenever a request completes
        }
    }

    /** Pacing and warm-up, shared by everyone or for one named origin. Tokens: the wait in ns. */
    static final class Smooth extends Limit {
        private final SmoothRate rate;

        /** Whether this limit's schedule goes on after the one of the limit it was made from. */
        private final boolean continued;

        /** With {@code previous} (or null), the limit of another version of the rule: see {@link #continued}. */
        Smooth(FlowRule rule, ResourceRecorder recorder, long nowNanos, boolean alone, Limit history, Smooth previous) {
            super(rule, recorder, alone, history);
            OnExcess c = rule.onExcess();
            Duration w = rule.window().length();
            SmoothRate made = switch (c.kind()) {
                case PACE -> SmoothRate.pace(rule.limit(), w, c.maxQueue(), nowNanos);
                case WARM_UP -> SmoothRate.warmUp(rule.limit(), w, c.coldFactor(), c.warmUp(), Duration.ZERO, nowNanos);
                case WARM_UP_PACE ->
                    SmoothRate.warmUp(rule.limit(), w, c.coldFactor(), c.warmUp(), c.maxQueue(), nowNanos);
                default -> throw new IllegalArgumentException("not a smooth on-excess: " + c);
            };
            this.continued = previous != null && previous.rule.scope().equals(rule.scope());
            if (continued) {
                previous.rate.settle(nowNanos); // as Window does
            }
            this.rate = continued ? made.continueFrom(previous.rate) : made;
        }

        @Override
        public boolean continued() {
            return continued;
        }

        @Override
        boolean schedules() {
            return true;
        }

        @Override
        long tryAcquire(long nowNanos, Origin origin, int permits) {
            long wait = rate.tryReserve(nowNanos, permits);
            return wait == SmoothRate.REJECTED ? REJECTED : wait;
        }

        @Override
        long tryAcquireGoingOnAfter(long nowNanos, Origin origin, int permits, long notBeforeNanos) {
            long wait = rate.tryReserve(nowNanos, permits, notBeforeNanos);
            return wait == SmoothRate.REJECTED ? REJECTED : wait;
        }

        @Override
        long turnNanos(long nowNanos) {
            return rate.nanosUntilAvailable(nowNanos, 1) == 0 ? rate.nanosUntilFree(nowNanos) : 0;
        }

        @Override
        void release(Origin origin, long token, int permits) {
            // A reservation moves the schedule for everyone after it and cannot be taken back.
        }

        /**
         * While turns are booked ahead (requests waiting for them, up to {@code max-queue}, which may
         * be longer than the window), a version written back must go on after them.
         */
        @Override
        boolean holdsRequests(long nowNanos) {
            return rate.nanosUntilFree(nowNanos) > 0;
        }

        @Override
        long waitNanos(long nowNanos, long token) {
            return token;
        }

        /**
         * How many more one-permit requests the schedule would admit at {@code nowNanos}, now that
         * this admission is on it, within {@code max-queue} (0 when the next would be rejected):
         * whether the admitted request itself waited says nothing about the next one (after an
         * admission at an idle schedule, a warm-up rule or a pace whose interval exceeds {@code
         * max-queue} rejects the next request at once).
         */
        @Override
        public long remaining(long nowNanos, Origin origin, long token) {
            return rate.remaining(nowNanos);
        }

        /** Nanoseconds from {@code nowNanos} until the schedule is free: nothing queued on it. */
        @Override
        public long resetNanos(long nowNanos, Origin origin, long token) {
            return rate.nanosUntilFree(nowNanos);
        }

        @Override
        Quota rejectedQuota(long nowNanos, Origin origin, int permits) {
            return new Quota(
                    rule.name(),
                    rule.limit(),
                    rule.window().length(),
                    rate.remaining(nowNanos), // 0 but for a request of more permits than the limit
                    retryAfter(nowNanos, origin, permits));
        }

        @Override
        Duration retryAfter(long nowNanos, Origin origin, int permits) {
            // Pay later: the wait does not depend on the permits. A request of more than the limit,
            // which no wait admits, gets the quota of one of the limit (as a window's does).
            return Duration.ofNanos(rate.nanosUntilAvailable(nowNanos, (int) Math.min(permits, rule.limit())));
        }
    }

    /**
     * The health of a shared rule's store as the rule sees it, and the log's account of it; shared
     * by the versions of a rule that go on from its statistics. The switches and the log's state
     * are guarded by this object.
     */
    private static final class Health {
        /** How long a stretch of switch messages runs: at most {@link #SWITCH_MESSAGES} in it. */
        private static final long SWITCH_LOG_NANOS = 60_000_000_000L;
        /** An outage and its end: more a minute is a store that fails some keys and decides others. */
        private static final int SWITCH_MESSAGES = 2;

        volatile boolean unavailable;
        final LongAdder decidedWithoutStore = new LongAdder();
        final AtomicLong outages = new AtomicLong();

        /** When the stretch of switch messages began, on the gate's clock. Written under this. */
        private volatile long switchLogSince;
        /** Switch messages in the stretch, and switches not logged since the last message. Guarded by this. */
        private int switchesLogged;

        private long switchesNotLogged;

        /**
         * Whether the latest switch was left out of the log (the cap): the state the last message
         * gave is then not the rule's. It is given once the cap allows again, also without a
         * further switch: an outage that began after two switches in a minute and lasts was never
         * logged, the last message saying the store decides.
         */
        private volatile boolean switchNotLogged;

        /** A health that starts where {@code other}'s is, with statistics of its own (another mode). */
        static Health after(Health other) {
            Health health = new Health();
            health.unavailable = other.unavailable;
            if (health.unavailable) {
                health.outages.set(1); // statistics started over in another mode, within this outage
            }
            return health;
        }

        /** Whether the rule's state is to be logged again now ({@link #switchNotLogged}, and the cap allows). */
        boolean stateToLog(long nowNanos) {
            return switchNotLogged && nowNanos - switchLogSince >= SWITCH_LOG_NANOS;
        }

        /**
         * Whether to log a switch between the store and the failure policy: at most {@link
         * #SWITCH_MESSAGES} a minute, since a store that fails some keys and decides others (a
         * Redis Cluster with a master down, a key of the wrong type) switches on almost every
         * request. Null if not; else what the message adds about the switches not logged (all are
         * counted in the statistics, {@code outages}). Guarded by this.
         */
        String switchLogged(long now, boolean switched) {
            if (switchesLogged == 0 || now - switchLogSince >= SWITCH_LOG_NANOS) {
                switchLogSince = now;
                switchesLogged = 0;
            }
            if (switchesLogged == SWITCH_MESSAGES) {
                switchesNotLogged += switched ? 1 : 0;
                switchNotLogged = true;
                return null;
            }
            switchNotLogged = false;
            switchesLogged++;
            String notLogged = switchesNotLogged == 0
                    ? ""
                    : " (" + switchesNotLogged + " switches since the last message; at most " + SWITCH_MESSAGES
                            + " are logged a minute, the statistics count all)";
            switchesNotLogged = 0;
            return notLogged;
        }
    }

    /** A store opened for a gate, with the settings it was opened with. */
    public record Store(WindowStore windows, StoreSettings settings) {}

    /**
     * A rate limit whose window is in a shared store (Redis), for every instance that uses the same
     * store: each decision is one call to the store, bounded by the time budget. Tokens: the bucket
     * the permits were counted in and the permits remaining, packed (below 2<sup>62</sup>); {@link
     * #LOCAL} for a decision made without the store that holds nothing; and for an admission by this
     * instance's share, {@link #SHARE} with the generation of the window that admitted and its ticket,
     * so that a request another limit rejects gives its permits back to that window too.
     *
     * <p>While the store cannot decide (it fails, or does not answer within the budget), the
     * failure policy decides: this instance's share of the limit in a window of its own, everyone,
     * or no one. The first failure after a success is logged once (WARN), and so is the return to
     * the shared window, which is automatic: every decision asks the store first (the store's
     * circuit breaker, if it has one, keeps a dead store from being waited for).
     *
     * <p>A rejection is remembered, per key, until the store said the permits would fit again: a
     * request in that time is rejected without a call (permits are only freed by time, or by a
     * refund, so this only ever errs towards rejecting).
     */
    static final class Shared extends Limit {
        private static final Logger LOG = LoggerFactory.getLogger("dev.leapgate.store");
        /** The token of an admission decided without the store: nothing to give back to it. */
        static final long LOCAL = Long.MAX_VALUE;
        /**
         * The retry time of a request rejected because the store could not decide ({@code
         * store-on-failure = closed}). The store is asked again on the next decision, but what it
         * will do then is not known here (the seam tells no circuit breaker's state); one second is
         * also how long Leapgate's Redis store's circuit breaker, once open, waits before it tries
         * Redis again.
         */
        static final Duration STORE_RETRY = Duration.ofSeconds(1);
        /**
         * Marks the token of an admission by this instance's share: the generation of the {@link
         * #fallback} window that admitted (6 bits, from bit 56) and that window's ticket (below bit
         * 56), to be refunded there and in no later window. A fallback window's epochs count from
         * when it was made, so its tickets stay below 2<sup>56</sup> for at least 2<sup>55</sup>
         * ns (a year) of outage; an admission whose ticket does not fit is not refunded, which errs
         * on the strict side.
         */
        private static final long SHARE = 1L << 62;

        private static final int GENERATION_SHIFT = 56;
        private static final long TICKET_MASK = (1L << GENERATION_SHIFT) - 1;
        private static final int GENERATIONS = 64;

        private static final int REJECTIONS = 1024;

        /**
         * The bits of a store token's remaining permits: as many as the limit takes (a fixed 21
         * bits cut every limit above 2<sup>21</sup> - 1). The bucket above them stays below bit 62
         * for some 70 years from the store's origin: a limit is below twice the bucket's length in
         * ns ({@link dev.leapgate.internal.counter.LeapCounter#maxLimit}), so the token is below
         * twice the store's time in ns.
         */
        private final int remainingBits;

        private final long remainingMask;

        private final WindowStore store;
        private final SharedWindow window;
        /**
         * The window, going on from the previous version's of another shape (another {@code
         * window}, the same scope) until {@link #changedUntilNanos}; else {@link #window}.
         */
        private final SharedWindow changed;
        /** When nothing the previous version counted is in its window any more, on the gate's clock. */
        private final long changedUntilNanos;

        /** The rule's {@code store-on-failure}, else the store's. */
        private final FailurePolicy policy;

        private final int configuredInstances;
        private final long timeoutNanos;
        /** The rule's part of every key ({@link SharedWindow#keySuffix}), so that a changed shape never meets old counts. */
        private final String suffix;
        /** The key of a rule without origins. */
        private final String sharedKey;

        /** The length of the store's buckets ({@link SharedWindow#bucketMicros}), in which its bucket numbers count. */
        private final long bucketNanos;
        /** The store's time minus this process's clock, from the latest answer, in ns. */
        private volatile long skewNanos;
        /** Rejections remembered until their retry time, one slot per key hash. */
        private final AtomicReferenceArray<Remembered> rejected = new AtomicReferenceArray<>(REJECTIONS);

        /**
         * This instance's window for the decisions the store could not make (local share), and
         * which one it is; null until the first. Kept when the store decides again, since it may
         * fail some keys while it decides others (a Redis Cluster master down): made anew, with the
         * share of the time, only once its counts have all left the window. Under a policy other
         * than local share, only the previous version's, kept unused ({@link #deciding}).
         */
        private volatile Fallback fallback;
        /** When {@link #fallback} last decided, on the gate's clock. */
        private volatile long fallbackUsedNanos;
        /** How many fallback windows were made. Guarded by this. */
        private int fallbacks;

        /** A window of this instance's share, the {@code generation}-th made (counting from 0). */
        private record Fallback(Window window, int generation) {}

        /**
         * Whether the store decides, what the failure policy decided, and what the log said of it:
         * the store's state, not the rule's, shared by the versions of a changed rule that go on
         * from its statistics (a request decided on the previous version after a reload, while the
         * store fails, counts where the status reads).
         */
        private final Health health;

        private record Remembered(String key, int permits, long untilNanos, long used) {}

        /**
         * The rejection this limit decided last on this thread, from the store's answer or a
         * remembered one ({@link #decidedRejection}): its slot in {@link #rejected} may be another
         * key's by the time the rejection's retry time is read. Null after an admission.
         */
        private final ThreadLocal<Remembered> decided = new ThreadLocal<>();

        /**
         * With {@code before} (or null), the limit of the rule's previous version: shared too, or
         * decided by this instance alone (a rule that joins the store).
         */
        Shared(
                FlowRule rule,
                ResourceRecorder recorder,
                long nowNanos,
                Store store,
                boolean alone,
                Limit history,
                Limit before) {
            super(rule, recorder, alone, history);
            Shared previous = before instanceof Shared same ? same : null;
            this.store = store.windows();
            this.window = SharedWindow.of(rule.name(), rule.window(), rule.limit());
            boolean reshaped = previous != null
                    && previous.rule.scope().equals(rule.scope())
                    && !previous.window.sameShape(window);
            this.changed = reshaped ? window.after(previous.window) : window;
            // The previous window counts its newest bucket and span more, from the last decision on it.
            this.changedUntilNanos =
                    reshaped ? nowNanos + (previous.window.span() + 2L) * previous.bucketNanos : nowNanos;
            this.policy = rule.storeOnFailure() != null
                    ? rule.storeOnFailure()
                    : store.settings().onFailure();
            this.configuredInstances = store.settings().instances();
            this.timeoutNanos = store.settings().timeout().toNanos();
            this.bucketNanos = window.bucketMicros() * 1000;
            this.remainingBits = 64 - Long.numberOfLeadingZeros(rule.limit());
            this.remainingMask = (1L << remainingBits) - 1;
            this.suffix = window.keySuffix();
            this.sharedKey = "{r:" + rule.name() + "}" + suffix;
            // Whether the store decides is the store's state, not the rule's: a rule changed
            // during an outage is still decided without it, and its statistics go on, as its
            // rejections do (or start over in another mode).
            this.health = previous == null
                    ? new Health()
                    : history == previous ? previous.health : Health.after(previous.health);
            if (previous != null) {
                // No fresh allowance: this instance's share goes on from what the previous
                // version's counted (as a changed rule in this process does), against the new share.
                // Made now if the previous version has none yet: the requests that read the rules
                // before this reload and meet a failing store after it count in that one's share.
                // Under another policy (the rule's store-on-failure changed) a share the previous
                // version has is kept all the same, unused, for a version that shares again.
                Fallback share = !previous.rule.scope().equals(rule.scope())
                        ? null
                        : policy == FailurePolicy.LOCAL_SHARE ? previous.localShare(nowNanos) : previous.fallback;
                if (share != null) {
                    this.fallback =
                            new Fallback(new Window(shareRule(), recorder, nowNanos, false, null, share.window), 0);
                    this.fallbackUsedNanos = previous.fallbackUsedNanos;
                    this.fallbacks = 1;
                }
            } else if (before instanceof Window local
                    && policy == FailurePolicy.LOCAL_SHARE
                    && local.rule.scope().equals(rule.scope())) {
                // A rule this instance decided alone until now: while the store cannot decide, its
                // share goes on from what the instance counted, not from a fresh share. (The store's
                // windows start from what they hold: see the README's "Hot reload".)
                this.fallback = new Fallback(new Window(shareRule(), recorder, nowNanos, false, null, local), 0);
                this.fallbackUsedNanos = nowNanos;
                this.fallbacks = 1;
            }
        }

        /** The window of this instance's share, if it has one: what it admitted without the store. */
        Window shareWindow() {
            Fallback share = fallback;
            return share == null ? null : share.window;
        }

        /** The key of the origin's window, without the store's prefix; the braces make it one Redis Cluster slot per client. */
        String key(Origin origin) {
            if (!perOrigin) {
                return sharedKey;
            }
            dev.leapgate.net.IpAddress ip = origin.ip();
            String id;
            if (ip != null) {
                // An IPv4 client (also one written in 64:ff9b::/96, see ClientKey) by its address, an
                // IPv6 one by its /64 (or so) prefix.
                String client = ip.isIpv4()
                        ? ip.toString()
                        : ClientKey.format(origin.key(), ClientKey.DEFAULT_IPV6_PREFIX_LENGTH);
                id = client.indexOf(':') < 0 ? client : "6:" + Long.toHexString(origin.key());
            } else if (origin.equals(Origin.unknown())) {
                id = "u"; // no address: not a client identified as "unknown", which i:unknown keys
            } else {
                // A secret (an API key) is kept under its hash, like an identifier too long for a key
                // or one with a brace, which would choose the Redis Cluster hash tag: "acme}1",
                // "acme}2", ... all in the slot of "o:i:acme", a flood of made-up clients on one node.
                String shown = origin.id();
                id = shown.length() <= 64 && !origin.isSecret() && shown.indexOf('{') < 0 && shown.indexOf('}') < 0
                        ? "i:" + shown
                        : "h:" + Sha256.hex(shown, 32);
            }
            return "{o:" + id + "}" + suffix;
        }

        @Override
        long tryAcquire(long nowNanos, Origin origin, int permits) {
            return tryAcquire(nowNanos, origin, permits, begin(nowNanos, origin, permits));
        }

        /**
         * A decision started in the store: the key, the permits, the store's answer to come, and
         * when the time budget for it ends ({@link System#nanoTime()}).
         */
        private record Pending(String key, int permits, CompletableFuture<Verdict> verdict, long deadlineNanos) {}

        @Override
        boolean remote() {
            return true;
        }

        /**
         * Starts the decision in the store; the remembered rejection ({@link Remembered}) when one
         * decides it without the store.
         */
        @Override
        Object begin(long nowNanos, Origin origin, int permits) {
            String key = key(origin);
            Remembered remembered = rejected.get(key.hashCode() & (REJECTIONS - 1));
            if (remembered != null
                    && remembered.untilNanos - nowNanos > 0
                    && permits >= remembered.permits
                    && remembered.key.equals(key)) {
                return remembered;
            }
            return ask(nowNanos, key, permits);
        }

        /** Starts the decision on {@code key} in the store, whatever rejection is remembered. */
        private Pending ask(long nowNanos, String key, int permits) {
            // The budget runs from the start: the decisions of several shared limits of one request,
            // started together, are waited for within one budget, not one each.
            long deadline = System.nanoTime() + timeoutNanos;
            try {
                SharedWindow shape = nowNanos - changedUntilNanos < 0 ? changed : window;
                return new Pending(
                        key, permits, store.tryAcquire(shape, key, permits).toCompletableFuture(), deadline);
            } catch (Throwable e) {
                // Whatever the store throws (an Error of a class it could not load too) is its
                // failure, for the failure policy, not the request's; but for the JVM's own.
                if (e instanceof VirtualMachineError) {
                    throw e;
                }
                return new Pending(key, permits, CompletableFuture.failedFuture(e), deadline);
            }
        }

        /**
         * Gives {@code permits} back to the store, best effort, as its contract says: a store that
         * throws keeps them counted (the strict side), and the request goes on with its decision.
         */
        private void refund(String key, long bucket, int permits) {
            try {
                store.refund(window, key, bucket, permits);
            } catch (Throwable e) {
                if (e instanceof VirtualMachineError) {
                    throw e;
                }
                LOG.debug("Leapgate rule '{}': the store refused a refund: {}", rule.name(), e.toString());
            }
        }

        @Override
        void abandon(Object begun) {
            if (begun instanceof Pending pending && !pending.verdict.cancel(false)) {
                // Answered already (a cancelled decision's admission the store gives back itself).
                Verdict verdict = pending.verdict.exceptionally(failure -> null).join();
                if (verdict != null && verdict.admitted()) {
                    refund(pending.key, verdict.bucket(), pending.permits);
                }
            }
        }

        @Override
        long tryAcquire(long nowNanos, Origin origin, int permits, Object begun) {
            if (!(begun instanceof Pending pending)) {
                decided.set((Remembered) begun);
                return REJECTED;
            }
            decided.set(null);
            Verdict verdict;
            try {
                verdict = pending.verdict.get(
                        Math.max(0, pending.deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                abandon(pending);
                return withoutStore(nowNanos, origin, permits, e instanceof ExecutionException ? e.getCause() : e);
            } catch (InterruptedException e) {
                abandon(pending);
                Thread.currentThread().interrupt();
                return withoutStore(nowNanos, origin, permits, e);
            }
            if (verdict == null) {
                // A store's answer of nothing: its failure, not a recovery.
                return withoutStore(
                        nowNanos, origin, permits, new IllegalStateException("the store answered nothing (null)"));
            }
            if (health.unavailable || health.stateToLog(nowNanos)) {
                recovered(nowNanos);
            }
            skewNanos = verdict.nowMicros() * 1000 - nowNanos;
            if (!verdict.admitted()) {
                Remembered rejection = new Remembered(
                        pending.key,
                        permits,
                        nowNanos + verdict.retryMicros() * 1000,
                        rule.limit() - verdict.remaining());
                rejected.set(pending.key.hashCode() & (REJECTIONS - 1), rejection);
                decided.set(rejection);
                return REJECTED;
            }
            return verdict.bucket() << remainingBits | Math.min(verdict.remaining(), remainingMask);
        }

        /** The failure policy's decision, while the store cannot decide. */
        private long withoutStore(long nowNanos, Origin origin, int permits, Throwable cause) {
            health.decidedWithoutStore.increment();
            LOG.debug("Leapgate rule '{}': decided without the store: {}", rule.name(), cause.toString());
            // The caller's own interruption (its thread was interrupted, perhaps before it asked)
            // says nothing of the store: no switch, no outage, nothing logged.
            if (!(cause instanceof InterruptedException) && (!health.unavailable || health.stateToLog(nowNanos))) {
                synchronized (health) {
                    boolean switched = !health.unavailable;
                    if (switched || health.stateToLog(nowNanos)) {
                        if (switched) {
                            health.unavailable = true;
                            health.outages.incrementAndGet();
                        }
                        String notLogged = health.switchLogged(nowNanos, switched);
                        if (notLogged != null) {
                            LOG.warn(
                                    "Leapgate rule '{}': the shared store did not decide ({}); until it does, {}{}",
                                    rule.name(),
                                    cause instanceof TimeoutException
                                            ? "no answer within " + DurationText.format(Duration.ofNanos(timeoutNanos))
                                            : String.valueOf(cause),
                                    switch (policy) {
                                        case LOCAL_SHARE ->
                                            "this instance enforces its share of the limit, " + share() + " per "
                                                    + rule.window();
                                        case OPEN -> "the rule lets every request pass (store-on-failure = open)";
                                        case CLOSED -> "the rule rejects every request (store-on-failure = closed)";
                                    },
                                    notLogged);
                        }
                    }
                }
            }
            return switch (policy) {
                case OPEN -> LOCAL;
                case CLOSED -> STORE_UNAVAILABLE;
                case LOCAL_SHARE -> {
                    Fallback share = localShare(nowNanos);
                    Window local = share.window;
                    if (permits > local.rule.limit()) {
                        yield REJECTED; // more than this instance's share can ever admit
                    }
                    long ticket = local.tryAcquire(nowNanos, origin, permits);
                    yield ticket < 0
                            ? ticket
                            : ticket < TICKET_MASK
                                    ? SHARE | (long) (share.generation % GENERATIONS) << GENERATION_SHIFT | ticket
                                    : LOCAL;
                }
            };
        }

        private void recovered(long nowNanos) {
            synchronized (health) {
                boolean switched = health.unavailable;
                if (switched || health.stateToLog(nowNanos)) {
                    health.unavailable = false;
                    String notLogged = health.switchLogged(nowNanos, switched);
                    if (notLogged != null) {
                        LOG.warn("Leapgate rule '{}': the shared store decides again{}", rule.name(), notLogged);
                    }
                }
            }
        }

        /**
         * The window of this instance's share if the policy is to decide by it, else null: one
         * kept for a later version under another policy ({@link #fallback}) says nothing of this
         * version's decisions.
         */
        private Fallback deciding() {
            return policy == FailurePolicy.LOCAL_SHARE ? fallback : null;
        }

        /** This instance's share of the limit. */
        private long share() {
            int instances = configuredInstances > 0 ? configuredInstances : Math.max(1, store.instances());
            return Math.max(1, (rule.limit() + instances - 1) / instances);
        }

        /** The rule of this instance's share: the rule with its share of the limit, in a window of its own. */
        private FlowRule shareRule() {
            return FlowRule.builder(rule.name())
                    .limit(share(), rule.window())
                    .scope(rule.scope())
                    .maxOrigins(rule.maxOrigins())
                    .build();
        }

        private Fallback localShare(long nowNanos) {
            Fallback local = fallback;
            // Unused for the window and a bucket (its last use is noted to within a bucket):
            // nothing it counts is in the window any more.
            long idle = (window.span() + 2) * bucketNanos;
            long sinceUse = nowNanos - fallbackUsedNanos;
            if (local == null || sinceUse > idle) {
                synchronized (this) {
                    local = fallback;
                    if (local == null || nowNanos - fallbackUsedNanos > idle) {
                        local = new Fallback(
                                new Window(shareRule(), recorder, nowNanos, false, null, null), fallbacks++);
                        fallbackUsedNanos = nowNanos;
                        fallback = local;
                    }
                }
            } else if (sinceUse > bucketNanos) {
                fallbackUsedNanos = nowNanos;
            }
            return local;
        }

        /**
         * A store's admission, while the request goes on within the store's bucket that counted it
         * (on the store's clock as of the latest answer: this process's plus {@link #skewNanos}),
         * stands; later, its permits are given back to the store and asked for again, a second
         * round trip, only ever on the waiting path. The refund is sent first (the Redis store sends
         * the two in order on one connection), so that the store gives it back before it decides
         * again; a refund the store misses errs on the strict side. A rejection remembered
         * meanwhile is not believed, since it may count the request's own permits. If the store
         * cannot decide then, the failure policy does, as for any decision. An admission by this
         * instance's share moves in the share's window, as a local window's; one decided without
         * the store ({@link #LOCAL}) holds nothing to move.
         */
        @Override
        long movedTo(long startNanos, Origin origin, long token, int permits) {
            if (token == LOCAL) {
                return token;
            }
            if ((token & SHARE) != 0) {
                Fallback share = fallback;
                int generation = (int) ((token & ~SHARE) >>> GENERATION_SHIFT);
                if (share == null || share.generation % GENERATIONS != generation) {
                    return token; // that window is gone, and with it what it counted
                }
                long ticket = token & TICKET_MASK;
                long moved = share.window.movedTo(startNanos, origin, ticket, permits);
                return moved == ticket
                        ? token
                        : moved < 0
                                ? moved
                                : moved < TICKET_MASK ? SHARE | (long) generation << GENERATION_SHIFT | moved : LOCAL;
            }
            if (Math.floorDiv(startNanos + skewNanos, bucketNanos) <= token >>> remainingBits) {
                return token;
            }
            release(origin, token, permits);
            return tryAcquire(startNanos, origin, permits, ask(startNanos, key(origin), permits));
        }

        @Override
        void release(Origin origin, long token, int permits) {
            if (token < 0 || token == LOCAL) {
                return;
            }
            if ((token & SHARE) == 0) {
                refund(key(origin), token >>> remainingBits, permits);
                return;
            }
            // Into the window of this instance's share that counted the permits, if still in use.
            Fallback share = fallback;
            if (share != null && share.generation % GENERATIONS == (int) ((token & ~SHARE) >>> GENERATION_SHIFT)) {
                share.window.release(origin, token & TICKET_MASK, permits);
            }
        }

        @Override
        boolean quotaShown(long token) {
            // Under open, LOCAL is every admission decided without the store; the store's own
            // tokens are below it.
            return !shadow && !(token == LOCAL && policy == FailurePolicy.OPEN);
        }

        @Override
        public Optional<StoreStats> store() {
            return Optional.of(
                    new StoreStats(!health.unavailable, health.decidedWithoutStore.sum(), health.outages.get()));
        }

        @Override
        public long remaining(long nowNanos, Origin origin, long token) {
            if (token == LOCAL || (token & SHARE) != 0) {
                Fallback share = deciding();
                return share == null
                        ? rule.limit()
                        : Math.max(0, share.window.rule.limit() - share.window.used(nowNanos, origin));
            }
            return token & remainingMask;
        }

        @Override
        public long resetNanos(long nowNanos, Origin origin, long token) {
            if ((token & SHARE) != 0 && token != LOCAL) {
                // When the share's window is whole again, up to a bucket after the window's length
                // for a strict one: from the ticket if the window that admitted is still in use,
                // else as that window's successor counts the origin now.
                Fallback share = fallback;
                if (share == null) {
                    return 0;
                }
                return share.generation % GENERATIONS == (int) ((token & ~SHARE) >>> GENERATION_SHIFT)
                        ? share.window.resetNanos(nowNanos, origin, token & TICKET_MASK)
                        : share.window
                                .rejectedQuota(nowNanos, origin, 1)
                                .reset()
                                .toNanos();
            }
            if (token == LOCAL) {
                return rule.window().length().toNanos();
            }
            // Whole again when the admission's bucket, the newest counted, leaves the window, in
            // the store's time.
            long end = ((token >>> remainingBits) + window.span() + 1) * bucketNanos;
            return Math.max(0, end - (nowNanos + skewNanos));
        }

        private Remembered remembered(long nowNanos, Origin origin) {
            String key = key(origin);
            Remembered r = rejected.get(key.hashCode() & (REJECTIONS - 1));
            return r != null && r.key.equals(key) && r.untilNanos - nowNanos > 0 ? r : null;
        }

        /** The rejection {@code decided} ({@link #decidedRejection}) if it still holds, else what is remembered. */
        private Remembered remembered(long nowNanos, Origin origin, Object decided) {
            if (decided instanceof Remembered r && r.key.equals(key(origin))) {
                return r.untilNanos - nowNanos > 0 ? r : null;
            }
            return remembered(nowNanos, origin);
        }

        @Override
        Object decidedRejection() {
            Remembered r = decided.get();
            if (r != null) {
                decided.set(null);
            }
            return r;
        }

        @Override
        Quota rejectedQuota(long nowNanos, Origin origin, int permits) {
            return rejectedQuota(nowNanos, origin, permits, null);
        }

        @Override
        Quota rejectedQuota(long nowNanos, Origin origin, int permits, Object decided) {
            Fallback share = deciding();
            if (health.unavailable && share != null) {
                // What remains and when, from the share; the quota and window the rule's own, as
                // an admission by the share says them: a policy is one statement on every answer.
                Quota inShare = share.window.rejectedQuota(nowNanos, origin, permits);
                return new Quota(
                        rule.name(), rule.limit(), rule.window().length(), inShare.remaining(), inShare.reset());
            }
            Remembered r = remembered(nowNanos, origin, decided);
            long remaining = r == null ? 0 : Math.max(0, rule.limit() - r.used);
            return new Quota(
                    rule.name(),
                    rule.limit(),
                    rule.window().length(),
                    remaining,
                    retryAfter(nowNanos, origin, permits, r));
        }

        /**
         * What the store said (a rejection remembered until its retry time), or this instance's
         * share while the store cannot decide: the store's window itself is not asked.
         */
        @Override
        long knownRetryNanos(long nowNanos, Origin origin, int permits) {
            Fallback share = deciding();
            if (health.unavailable && share != null) {
                return share.window.knownRetryNanos(nowNanos, origin, permits);
            }
            Remembered r = remembered(nowNanos, origin);
            return r == null ? 0 : Math.max(0, r.untilNanos - nowNanos);
        }

        @Override
        Duration retryAfter(long nowNanos, Origin origin, int permits) {
            return retryAfter(nowNanos, origin, permits, null);
        }

        @Override
        Duration retryAfter(long nowNanos, Origin origin, int permits, Object decided) {
            Fallback share = deciding();
            if (health.unavailable && share != null) {
                // More than this instance's share never fits it: a retry waits for the store, whose
                // return is not known ahead of time (and the share's window would say "never").
                return permits > share.window.rule.limit()
                        ? Duration.ZERO
                        : share.window.retryAfter(nowNanos, origin, permits);
            }
            Remembered r = remembered(nowNanos, origin, decided);
            return Duration.ofNanos(r == null ? bucketNanos : r.untilNanos - nowNanos);
        }
    }
}
