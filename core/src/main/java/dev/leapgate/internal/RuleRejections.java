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
    /** The most {@link #read} ever said were over the limit: what it says never goes down. */
    private final AtomicLong highestLimitExceeded = new AtomicLong();

    RuleRejections(String rule, Clock clock) {
        this.seconds = new ResourceRecorder(rule, clock);
        this.own = true;
    }

    /**
     * Rejections read from {@code resource}, whose {@link ResourceRecorder#onReject} the caller
     * calls for every rejection, after {@link #count} (see {@link #read}).
     */
    RuleRejections(ResourceRecorder resource) {
        this.seconds = resource;
        this.own = false;
    }

    /** Counts a rejection at {@code nowNanos} for {@code reason}, one of {@link Admission}'s reasons. */
    void count(String reason, long nowNanos) {
        // The rare reason before the total: see read().
        if (reason == Admission.LIMIT_EXCEEDED) {
            // the rest of the total
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
        if (own) {
            seconds.onReject(nowNanos);
        }
    }

    /** The rejections in each of the 60 whole seconds before the current one, oldest first. */
    long[] lastMinuteBySecond() {
        return seconds.rejectedBySecond();
    }

    /**
     * The counts now, as counters that never go down (monitoring systems read them so). The limit
     * exceeded is the total less the rare reasons; a rare reason is counted before the total, and
     * the total read before the reasons, so that a rejection being counted while this reads is never
     * in the total without its reason: the rest is never above the truth (it may lag by the
     * rejections being counted), and never shown below what an earlier read showed.
     */
    RejectionCounts read() {
        long all = seconds.totals().rejected();
        long untracked = notTracked.get();
        long tooMany = tooManyPermits.get();
        long stopped = interrupted.get();
        long noStore = storeUnavailable.get();
        long exceeded = highestLimitExceeded.accumulateAndGet(
                Math.max(0, all - untracked - tooMany - stopped - noStore), Math::max);
        return new RejectionCounts(exceeded, untracked, tooMany, stopped, noStore);
    }
}
