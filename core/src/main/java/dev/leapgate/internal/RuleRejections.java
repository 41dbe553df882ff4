package dev.leapgate.internal;

import dev.leapgate.Clock;
import dev.leapgate.stats.RejectionCounts;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests one limit rejected (or, in shadow mode, would have rejected): by reason since the
 * limit was made, and second by second over the last minute. Every rejection is recorded once, in
 * a {@link ResourceRecorder} of the limit's own that only ever records rejections; the rare
 * reasons are counted apart besides, and the common one, the limit exceeded, is the rest. One
 * addition per rejection over the limit, none for an admission.
 *
 * <p>A limit that is alone on its resource (a {@code Limiter} of one rule) and never in shadow mode
 * rejects exactly the requests its resource's recorder records as rejected: its rejections are read
 * from that recorder, and counting one adds nothing besides a rare reason.
 *
 * <p>Concurrency: thread-safe.
 */
final class RuleRejections {

    /** The rejections second by second. */
    private final ResourceRecorder seconds;
    /** Whether {@link #seconds} is the limit's own, counted here; else its resource's, counted by the caller. */
    private final boolean own;

    private final AtomicLong notTracked = new AtomicLong();
    private final AtomicLong tooManyPermits = new AtomicLong();
    private final AtomicLong interrupted = new AtomicLong();
    private final AtomicLong storeUnavailable = new AtomicLong();

    RuleRejections(String rule, Clock clock) {
        this.seconds = new ResourceRecorder(rule, clock);
        this.own = true;
    }

    /**
     * Rejections read from {@code resource}, whose {@link ResourceRecorder#onReject} the caller
     * calls for every rejection, before {@link #count}.
     */
    RuleRejections(ResourceRecorder resource) {
        this.seconds = resource;
        this.own = false;
    }

    /** Counts a rejection at {@code nowNanos} for {@code reason}, one of {@link Admission}'s reasons. */
    void count(String reason, long nowNanos) {
        if (own) {
            seconds.onReject(nowNanos); // first: a reader may see a rare reason late, never early
        }
        if (reason == Admission.LIMIT_EXCEEDED) {
            return;
        } else if (reason == Admission.UNTRACKED) {
            notTracked.incrementAndGet();
        } else if (reason == Admission.TOO_MANY_PERMITS) {
            tooManyPermits.incrementAndGet();
        } else if (reason == Admission.INTERRUPTED) {
            interrupted.incrementAndGet();
        } else if (reason == Admission.STORE_UNAVAILABLE) {
            storeUnavailable.incrementAndGet();
        } else {
            throw new IllegalArgumentException("not a reason: " + reason);
        }
    }

    /** The rejections in each of the 60 whole seconds before the current one, oldest first. */
    long[] lastMinuteBySecond() {
        return seconds.rejectedBySecond();
    }

    /**
     * The counts now. A rejection for a rare reason being counted while this reads may show as one
     * over the limit for that moment.
     */
    RejectionCounts read() {
        long untracked = notTracked.get();
        long tooMany = tooManyPermits.get();
        long stopped = interrupted.get();
        long noStore = storeUnavailable.get();
        long all = seconds.totals().rejected();
        return new RejectionCounts(
                Math.max(0, all - untracked - tooMany - stopped - noStore), untracked, tooMany, stopped, noStore);
    }
}
