package dev.leapgate.internal;

import dev.leapgate.Clock;
import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.Rejection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A rejection by one {@link Limit}. Its quota and retry time are computed when asked, from the
 * limit's counters (and what the decision learnt that they may not keep: a shared store's answer,
 * {@link Limit#decidedRejection}): as of {@code decidedNanos} when it is known, else (a limit's one
 * shared rejection, for rules that do not count per origin) as of the moment asked.
 *
 * <p>When other limits applied to the request too, a retry succeeds only once every one of them
 * would admit it: the retry time is the longest any of them knows of, and the quotas list the
 * rejecting limit's, then those of the others that would reject the request as well (a limit
 * tried after the rejecting one was not asked, and may be just as exhausted: a per-second rule
 * that rejects first must not send a client back within a second to an hourly rule that is
 * spent). Shadow limits limit nothing and are left out. A rejection because a shared store could
 * not decide ({@code store-on-failure = closed}) has no quota at all: the store could not tell what
 * remains.
 *
 * <p>Immutable; safe to share.
 */
final class LimitRejection extends Rejection {

    private final Limit limit;
    /** Every limit that applied to the request, {@code limit} among them; null when it was alone. */
    private final Limit[] applied;

    private final Origin origin;
    private final int permits;
    private final String reason;
    private final long decidedNanos;
    /** The clock to read when asked, for a limit's shared rejection; null: as of {@link #decidedNanos}. */
    private final Clock clock;
    /** What the decision learnt ({@link Limit#decidedRejection}), or null. */
    private final Object decided;

    private LimitRejection(
            Limit limit,
            Limit[] applied,
            Origin origin,
            int permits,
            String reason,
            long decidedNanos,
            Clock clock,
            Object decided) {
        this.limit = limit;
        this.applied = applied;
        this.origin = origin;
        this.permits = permits;
        this.reason = reason;
        this.decidedNanos = decidedNanos;
        this.clock = clock;
        this.decided = decided;
    }

    /**
     * A rejection of {@code permits} for {@code origin} decided at {@code decidedNanos}, among the
     * limits {@code applied} (null: {@code limit} alone); {@code decided}, what {@link
     * Limit#decidedRejection} returned just after the decision.
     */
    static LimitRejection at(
            Limit limit,
            Limit[] applied,
            Origin origin,
            int permits,
            String reason,
            long decidedNanos,
            Object decided) {
        return new LimitRejection(limit, applied, origin, permits, reason, decidedNanos, null, decided);
    }

    /**
     * The shared rejection of one permit by a limit that does not count per origin, among the
     * limits {@code applied} (null: alone), none of which counts per origin.
     */
    static LimitRejection shared(Limit limit, Limit[] applied, Clock clock) {
        return new LimitRejection(limit, applied, Origin.unknown(), 1, Admission.LIMIT_EXCEEDED, 0, clock, null);
    }

    /** Whether this rejection was made among the limits {@code applied}, that very array. */
    boolean among(Limit[] applied) {
        return this.applied == applied;
    }

    private long now() {
        // Not a marker reading: any reading, Long.MIN_VALUE included, may be a decision's.
        return clock == null ? decidedNanos : clock.nanoTime();
    }

    @Override
    public String rule() {
        return limit.rule.name();
    }

    @Override
    public String reason() {
        return reason;
    }

    @Override
    public Quota quota() {
        if (reason == Admission.STORE_UNAVAILABLE) {
            // The store could not tell what remains, and nothing was counted: no quota describes
            // the rejection (the HTTP answer, a 503, has no rate-limit fields either).
            return null;
        }
        Quota quota = limit.rejectedQuota(now(), origin, permits, decided);
        // A client the limit could not make room for has nothing available: it holds no count
        // there, so the count alone would offer it the whole quota on a rejection.
        return reason == Admission.UNTRACKED && quota.remaining() > 0
                ? new Quota(quota.rule(), quota.limit(), quota.window(), 0, quota.reset())
                : quota;
    }

    @Override
    public Duration retryAfter() {
        if (permits > limit.rule.limit()) {
            return Duration.ZERO;
        }
        long now = now();
        // A store that could not decide says nothing of the window: retry when it is asked again.
        Duration retry = reason == Admission.STORE_UNAVAILABLE
                ? Limit.Shared.STORE_RETRY
                : limit.retryAfter(now, origin, permits, decided);
        if (applied != null) {
            long longest = retry.toNanos();
            for (Limit other : applied) {
                if (counts(other)) {
                    longest = Math.max(longest, other.knownRetryNanos(now, origin, permits));
                }
            }
            if (longest > retry.toNanos()) {
                retry = Duration.ofNanos(longest);
            }
        }
        return retry;
    }

    @Override
    public List<Quota> quotas() {
        if (reason == Admission.STORE_UNAVAILABLE) {
            // Not the other rules' either: a list without the rule that rejected reads as quotas
            // the client may spend, as the 503 answer has no rate-limit fields ({@link #retryAfter}
            // still waits for them).
            return List.of();
        }
        Quota own = quota();
        if (applied == null) {
            return List.of(own);
        }
        long now = now();
        List<Quota> all = new ArrayList<>(2);
        all.add(own);
        for (Limit other : applied) {
            if (!counts(other)) {
                continue;
            }
            if (other.knownRetryNanos(now, origin, permits) > 0) {
                all.add(other.rejectedQuota(now, origin, permits));
            } else if (other.rule.isInFlight()) {
                // No retry time is known for a slot, but every slot taken rejects the request too.
                Quota slots = other.rejectedQuota(now, origin, permits);
                if (slots.remaining() < permits) {
                    all.add(slots);
                }
            }
        }
        return List.copyOf(all);
    }

    /** Whether {@code other}, another limit that applied, holds the retry back when it is spent. */
    private boolean counts(Limit other) {
        return other != limit && !other.shadow && permits <= other.rule.limit();
    }
}
