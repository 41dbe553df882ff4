package dev.leapgate.internal;

import dev.leapgate.stats.RejectionCounts;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The requests one limit rejected (or, in shadow mode, would have rejected), by reason: one
 * addition per rejection, none for an admission.
 *
 * <p>Concurrency: thread-safe.
 */
final class RuleRejections {

    /** The common reason, under contention in a flood: striped. */
    private final LongAdder limitExceeded = new LongAdder();

    private final AtomicLong notTracked = new AtomicLong();
    private final AtomicLong tooManyPermits = new AtomicLong();
    private final AtomicLong interrupted = new AtomicLong();

    /** Counts a rejection for {@code reason}, one of {@link Admission}'s reasons. */
    void count(String reason) {
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

    RejectionCounts read() {
        return new RejectionCounts(limitExceeded.sum(), notTracked.get(), tooManyPermits.get(), interrupted.get());
    }
}
