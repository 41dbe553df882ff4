package dev.leapgate.internal;

import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.internal.counter.InFlightCounter;
import dev.leapgate.internal.counter.KeyedInFlightCounter;
import dev.leapgate.internal.counter.KeyedRateCounter;
import dev.leapgate.internal.counter.LeapCounter;
import dev.leapgate.internal.counter.RateCounter;
import dev.leapgate.internal.counter.SmoothRate;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.stats.RejectionCounts;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

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

    Limit(FlowRule rule, ResourceRecorder recorder) {
        this.rule = rule;
        this.recorder = recorder;
        this.perOrigin = rule.scope().kind() == Scope.Kind.PER_ORIGIN;
        this.shadow = rule.shadow();
        this.offenders = perOrigin ? new RecentOffenders() : null;
        this.rejections = new RuleRejections(rule.name(), recorder.clock());
        this.waits = rule.isInFlight() || rule.shadow() || rule.onExcess().kind() == OnExcess.Kind.REJECT
                ? null
                : new Waits();
        this.namedOrigin =
                rule.scope().kind() == Scope.Kind.ORIGIN ? rule.scope().origin() : null;
    }

    /** Compiles {@code rule}, recording into {@code recorder}; counters start empty at {@code nowNanos}. */
    public static Limit create(FlowRule rule, ResourceRecorder recorder, long nowNanos) {
        if (rule.isInFlight()) {
            return new InFlight(rule, recorder);
        }
        return switch (rule.onExcess().kind()) {
            case REJECT, BORROW -> new Window(rule, recorder, nowNanos);
            case PACE, WARM_UP, WARM_UP_PACE -> new Smooth(rule, recorder, nowNanos);
        };
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

    /** Whether the rule's scope includes the origin (always, but for a rule of one named origin). */
    public final boolean includes(Origin origin) {
        return namedOrigin == null || namedOrigin.equals(origin.id());
    }

    /** The one rejection shared by every rejected request of one permit, for a limit without origins. */
    private volatile LimitRejection sharedRejection;

    final LimitRejection sharedRejection(dev.leapgate.Clock clock) {
        LimitRejection shared = sharedRejection;
        if (shared == null) {
            shared = LimitRejection.shared(this, clock);
            sharedRejection = shared; // a racing second one is equal
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

    /** Gives back what {@link #tryAcquire} took: its result is {@code token}. */
    abstract void release(Origin origin, long token, int permits);

    /** Nanoseconds to wait before proceeding for an admission at {@code nowNanos} that returned {@code token}. */
    long waitNanos(long nowNanos, long token) {
        return 0;
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

    /** Where the origin stands after an admission that returned {@code token}. */
    final Quota quota(long nowNanos, Origin origin, long token) {
        return new Quota(
                rule.name(),
                rule.limit(),
                rule.isInFlight() ? null : rule.window().length(),
                remaining(nowNanos, origin, token),
                Duration.ofNanos(resetNanos(nowNanos, origin, token)));
    }

    /** Where the origin stands after a rejection of {@code permits}, and when to retry. */
    abstract Quota rejectedQuota(long nowNanos, Origin origin, int permits);

    abstract Duration retryAfter(long nowNanos, Origin origin, int permits);

    /**
     * A limit on requests per window, exact, shared or per origin; with {@link OnExcess.Kind#BORROW}
     * a request the window rejects may borrow from the next bucket. Tokens: tickets.
     */
    static final class Window extends Limit {
        private final RateCounter shared;
        private final KeyedRateCounter keyed;
        /** Longest wait for a loan from the next bucket; -1 never borrows. */
        private final long maxWaitNanos;
        /** Buckets a bucket stays in the window, its own included: {@code n + 1} strict, {@code n} sliding. */
        private final int countedBuckets;

        Window(FlowRule rule, ResourceRecorder recorder, long nowNanos) {
            super(rule, recorder);
            boolean borrowing = rule.onExcess().kind() == OnExcess.Kind.BORROW;
            this.maxWaitNanos = borrowing ? rule.onExcess().maxWait().toNanos() : -1;
            this.countedBuckets = rule.window().buckets() + (rule.window().mode() == WindowMode.STRICT ? 1 : 0);
            if (perOrigin) {
                this.keyed = new KeyedRateCounter(rule.window(), rule.limit(), nowNanos, rule.maxOrigins(), borrowing);
                this.shared = null;
            } else {
                this.shared = new LeapCounter(rule.window(), rule.limit(), nowNanos, borrowing);
                this.keyed = null;
            }
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

        private long untilAvailable(long nowNanos, Origin origin, long permits) {
            return perOrigin
                    ? keyed.nanosUntilAvailable(origin.key(), nowNanos, (int) permits)
                    : shared.nanosUntilAvailable(nowNanos, permits);
        }

        @Override
        public long remaining(long nowNanos, Origin origin, long token) {
            return perOrigin ? keyed.remainingAfter(token) : shared.remainingAfter(token);
        }

        @Override
        public long resetNanos(long nowNanos, Origin origin, long token) {
            // Whole again when the admission's own bucket, the newest counted, leaves the window:
            // known from the ticket, without reading the window again.
            long bucketStart = perOrigin ? keyed.ticketStartNanos(token) : shared.ticketStartNanos(token);
            return Math.max(0, bucketStart + countedBuckets * rule.window().bucketNanos() - nowNanos);
        }

        @Override
        Quota rejectedQuota(long nowNanos, Origin origin, int permits) {
            long remaining = Math.max(0, rule.limit() - used(nowNanos, origin));
            long reset = untilAvailable(nowNanos, origin, rule.limit());
            return new Quota(rule.name(), rule.limit(), rule.window().length(), remaining, Duration.ofNanos(reset));
        }

        @Override
        Duration retryAfter(long nowNanos, Origin origin, int permits) {
            return Duration.ofNanos(untilAvailable(nowNanos, origin, permits));
        }
    }

    /** A limit on requests in flight, shared or per origin. Tokens: 1 when taken. */
    static final class InFlight extends Limit {
        private final InFlightCounter shared;
        private final KeyedInFlightCounter keyed;

        InFlight(FlowRule rule, ResourceRecorder recorder) {
            super(rule, recorder);
            if (perOrigin) {
                this.keyed = new KeyedInFlightCounter(rule.limit(), rule.maxOrigins());
                this.shared = null;
            } else {
                this.shared = new InFlightCounter(rule.limit());
                this.keyed = null;
            }
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
            return quota(nowNanos, origin, 0);
        }

        @Override
        Duration retryAfter(long nowNanos, Origin origin, int permits) {
            return Duration.ZERO; // a slot frees whenever a request completes
        }
    }

    /** Pacing and warm-up, shared by everyone or for one named origin. Tokens: the wait in ns. */
    static final class Smooth extends Limit {
        private final SmoothRate rate;

        Smooth(FlowRule rule, ResourceRecorder recorder, long nowNanos) {
            super(rule, recorder);
            OnExcess c = rule.onExcess();
            Duration w = rule.window().length();
            this.rate = switch (c.kind()) {
                case PACE -> SmoothRate.pace(rule.limit(), w, c.maxQueue(), nowNanos);
                case WARM_UP -> SmoothRate.warmUp(rule.limit(), w, c.coldFactor(), c.warmUp(), Duration.ZERO, nowNanos);
                case WARM_UP_PACE ->
                    SmoothRate.warmUp(rule.limit(), w, c.coldFactor(), c.warmUp(), c.maxQueue(), nowNanos);
                default -> throw new IllegalArgumentException("not a smooth on-excess: " + c);
            };
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
        void release(Origin origin, long token, int permits) {
            // A reservation moves the schedule for everyone after it and cannot be taken back.
        }

        @Override
        long waitNanos(long nowNanos, long token) {
            return token;
        }

        @Override
        public long remaining(long nowNanos, Origin origin, long token) {
            return token == 0 ? 1 : 0; // paced: a request that did not wait found the schedule free
        }

        @Override
        public long resetNanos(long nowNanos, Origin origin, long token) {
            return token;
        }

        @Override
        Quota rejectedQuota(long nowNanos, Origin origin, int permits) {
            return new Quota(
                    rule.name(), rule.limit(), rule.window().length(), 0, retryAfter(nowNanos, origin, permits));
        }

        @Override
        Duration retryAfter(long nowNanos, Origin origin, int permits) {
            return Duration.ofNanos(rate.nanosUntilAvailable(nowNanos, permits));
        }
    }
}
