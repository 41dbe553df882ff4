package dev.leapgate.internal;

import dev.leapgate.Clock;
import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.Rejection;
import java.time.Duration;

/**
 * A rejection by one {@link Limit}. Its quota and retry time are computed when asked, from the
 * limit's counters: as of {@code decidedNanos} when it is known, else (a limit's one shared
 * rejection, for rules that do not count per origin) as of the moment asked.
 *
 * <p>Immutable; safe to share.
 */
final class LimitRejection extends Rejection {

    /** Marks a rejection that reads the clock when asked. */
    private static final long WHEN_ASKED = Long.MIN_VALUE;

    private final Limit limit;
    private final Origin origin;
    private final int permits;
    private final String reason;
    private final long decidedNanos;
    private final Clock clock;

    private LimitRejection(Limit limit, Origin origin, int permits, String reason, long decidedNanos, Clock clock) {
        this.limit = limit;
        this.origin = origin;
        this.permits = permits;
        this.reason = reason;
        this.decidedNanos = decidedNanos;
        this.clock = clock;
    }

    /** A rejection of {@code permits} for {@code origin} decided at {@code decidedNanos}. */
    static LimitRejection at(Limit limit, Origin origin, int permits, String reason, long decidedNanos) {
        return new LimitRejection(limit, origin, permits, reason, decidedNanos, null);
    }

    /** The shared rejection of one permit by a limit that does not count per origin. */
    static LimitRejection shared(Limit limit, Clock clock) {
        return new LimitRejection(limit, Origin.unknown(), 1, Admission.LIMIT_EXCEEDED, WHEN_ASKED, clock);
    }

    private long now() {
        return decidedNanos == WHEN_ASKED ? clock.nanoTime() : decidedNanos;
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
        return limit.rejectedQuota(now(), origin, permits);
    }

    @Override
    public Duration retryAfter() {
        return permits > limit.rule.limit() ? Duration.ZERO : limit.retryAfter(now(), origin, permits);
    }
}
