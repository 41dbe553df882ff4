package dev.leapgate.internal;

import dev.leapgate.Clock;
import dev.leapgate.stats.RejectionCounts;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The requests one limit rejected (or, in shadow mode, would have rejected): by reason since the
 * limit was made, and second by second over the last minute (a {@link ResourceRecorder} of its
 * own, which only ever records rejections). Two additions per rejection, none for an admission.
 *
 * <p>Concurrency: thread-safe.
 */
final class RuleRejections {

    /** The rejections second by second. */
    private final ResourceRecorder seconds;

    /** The common reason, under contention in a flood: striped. */
    private final LongAdder limitExceeded = new LongAdder();

    private final AtomicLong notTracked = new AtomicLong();
    private final AtomicLong tooManyPermits = new AtomicLong();
    private final AtomicLong interrupted = new AtomicLong();

    RuleRejections(String rule, Clock clock) {
        this.seconds = new ResourceRecorder(rule, clock);
    }

    /** Counts a rejection at {@code nowNanos} for {@code reason}, one of {@link Admission}'s reasons. */
    void count(String reason, long nowNanos) {
        seconds.onReject(nowNanos);
        if (reason == Admission.LIMIT_EXCEEDED) {
            limitExceeded.increment();
        } else if (reason == Admission.UNTRACKED) {
            notTracked.incrementAndGet();
        } else if (reason == Admission.TOO_MANY_PERMITS) {
            tooManyPermits.incrementAndGet();
        } else if (reason == Admission.INTERRUPTED) {
            interrupted.incrementAndGet();
        } else {
            throw new IllegalArgumentException("not a reason: " + reason);
        }
    }

    /** The rejections in each of the 60 whole seconds before the current one, oldest first. */
    long[] lastMinuteBySecond() {
        return seconds.rejectedBySecond();
    }

    RejectionCounts read() {
        return new RejectionCounts(limitExceeded.sum(), notTracked.get(), tooManyPermits.get(), interrupted.get());
    }
}
