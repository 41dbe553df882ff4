package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A counter made by {@link LeapCounter#withLimit} with other borrowing (a reload that switches a
 * rule between reject and borrow) takes over what the old one counts, and the old one, still used
 * by requests decided on the old rules, hands its calls on: no admission is lost on either side.
 */
class LeapCounterTakeOverTest {

    private static final long MS = 1_000_000L;
    private static final long NEVER = -1;
    /** 10 s in 10 buckets of 1 s. */
    private static final WindowSpec TEN_SECONDS = WindowSpec.of(Duration.ofSeconds(10), 10);

    private static final long NOW = 2_500 * MS;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anAdmissionOnTheOldCounter_afterTheNewOneTookOver_countsInTheNewOne(boolean borrowingBefore) {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 5, 0, borrowingBefore);
        assertThat(admitAll(old, 3)).isEqualTo(3);
        LeapCounter next = old.withLimit(5, !borrowingBefore);

        assertThat(admitAll(next, 10)).as("3 of 5 counted").isEqualTo(2);
        assertThat(admitAll(old, 10))
                .as("the old counter, after the new one took over")
                .isZero();
        assertThat(next.used(NOW)).isEqualTo(5);
    }

    @Test
    void admissionsOnTheOldCounter_beforeTheNewOneIsUsed_areTakenOver() {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 5, 0);
        LeapCounter next = old.withLimit(5, true);
        assertThat(admitAll(old, 4)).as("the new rules not in force yet").isEqualTo(4);

        assertThat(admitAll(next, 10)).isEqualTo(1);
        assertThat(admitAll(old, 10)).isZero();
    }

    @Test
    void overALongerWindow_goesOnFromWhatTheOldOneCounts() {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 10, 0);
        assertThat(admitAll(old, 7)).isEqualTo(7); // at 2.5 s
        LeapCounter minute = old.withLimit(WindowSpec.of(Duration.ofMinutes(1), 6), 10, false);

        assertThat(admitAll(minute, 10)).isEqualTo(3);
        assertThat(admitAll(old, 10)).as("the old counter hands on").isZero();
        assertThat(minute.tryAcquire(62_000 * MS, 1))
                .as("admitted at 2.5 s: still in a minute's window at 62 s")
                .isEqualTo(RateCounter.REJECTED);
        assertThat(minute.tryAcquire(70_000 * MS, 10)).isNotNegative();
    }

    /**
     * A request decided on the old rules reads the old counter, which, once the new one took over,
     * answers as the new one does, with the new limit: a limit lowered below the old one's never
     * fits (the caller maps that to no wait), and the time until the window is empty is the new
     * window's, whatever the limit.
     */
    @Test
    void theOldCounter_afterTheNewOneWithALowerLimitTookOver_answersAsTheNewOne_neverBeyondItsWindow() {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 10, 0);
        assertThat(admitAll(old, 8)).isEqualTo(8); // at 2.5 s, bucket 2
        LeapCounter next = old.withLimit(WindowSpec.of(Duration.ofSeconds(20), 10), 3, false);
        assertThat(next.tryAcquire(NOW, 1)).isEqualTo(RateCounter.REJECTED);

        // Taken over in the 2-s bucket where the old one at 2-3 s ends, [2 s, 4 s): out at 24 s.
        assertThat(old.nanosUntilEmpty(NOW))
                .isEqualTo(next.nanosUntilEmpty(NOW))
                .isEqualTo(21_500 * MS);
        assertThat(old.nanosUntilAvailable(NOW, 1)).isEqualTo(21_500 * MS);
        assertThat(old.nanosUntilAvailable(NOW, 5))
                .as("within the old limit, beyond the new")
                .isEqualTo(Long.MAX_VALUE);
        assertThat(old.nanosUntilAvailable(NOW, 10)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void overAShorterWindow_holdsWhatTheLongerOneCounts_forOneShortWindowAfterTheOldBucket() {
        LeapCounter old = new LeapCounter(WindowSpec.of(Duration.ofMinutes(1), 6), 10, 0);
        assertThat(old.tryAcquire(55_000 * MS, 10)).isNotNegative();
        LeapCounter shorter = old.withLimit(TEN_SECONDS, 10, false);

        // Taken over at 64 s: counted as if admitted at the end of the newest old bucket that
        // counts anything, 50-60 s (not of the bucket of the take-over, 60-70 s, which counts
        // nothing): in the new window's bucket of 59 s, out of the window at 70 s.
        assertThat(shorter.tryAcquire(64_000 * MS, 1)).isEqualTo(RateCounter.REJECTED);
        assertThat(shorter.tryAcquire(69_900 * MS, 1)).isEqualTo(RateCounter.REJECTED);
        long ticket = old.tryAcquire(70_500 * MS, 10);
        assertThat(ticket).as("through the old counter, on the new window").isNotNegative();
        assertThat(old.ticketStartNanos(ticket)).isEqualTo(70_000 * MS);
        assertThat(shorter.used(70_500 * MS)).isEqualTo(10);
    }

    /**
     * Taken over from longer buckets, what the old window counts sits in the new window's bucket in
     * which the old bucket ends, seconds after now: an admission now is counted there, but is no
     * loan, and its caller must not wait for that bucket (5 s here, with at most 500 ms of max-wait),
     * neither through the new counter nor through the old one.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void overShorterBucketsThatBorrow_anAdmissionNowIsNoLoanToWaitFor(boolean borrowingBefore) {
        LeapCounter old = new LeapCounter(WindowSpec.of(Duration.ofMinutes(1), 6), 10, 0, borrowingBefore);
        assertThat(old.tryAcquire(55_000 * MS, 5, NEVER)).isNotNegative();
        LeapCounter shorter = old.withLimit(TEN_SECONDS, 10, true);
        long now = 64_000 * MS;

        long ticket = shorter.tryAcquire(now, 1, 500 * MS);
        long handedOn = old.tryAcquire(now, 1, 500 * MS);

        assertThat(ticket).isNotNegative();
        assertThat(shorter.ticketStartNanos(ticket)).as("not after now").isLessThanOrEqualTo(now);
        assertThat(handedOn).isNotNegative();
        assertThat(old.ticketStartNanos(handedOn)).as("not after now").isLessThanOrEqualTo(now);
        assertThat(admitAll(shorter, now, 10)).as("5 taken over, 2 admitted").isEqualTo(3);
        assertThat(admitAll(shorter, 69_500 * MS, 10))
                .as("what was taken over still counts in the window of 69.5 s")
                .isZero();
        // The 5 taken over count in the new window's bucket in which their bucket, 50-60 s, ends
        // (59 s): they leave at 70 s, whether the old window borrowed or not (it once dated them a
        // bucket later, 60-70 s: at 80 s). Not later, dated anew at the take-over.
        long out = 70_000 * MS;
        assertThat(shorter.used(out - 500 * MS) - shorter.used(out))
                .as("what was taken over leaves at %d ms", out / MS)
                .isEqualTo(5);
    }

    /**
     * An admission the old window had already forgotten when the new one took over is not in the
     * new window's count. Its refund, handed on, went to the new bucket in which its old bucket
     * starts, which a bucket longer than the whole old window (6 min against 1 s) shares with the
     * new admissions: it lowered their count, and the hour admitted 11 under a limit of 10.
     */
    @Test
    void aRefundOfAnAdmissionTheOldWindowHadForgotten_doesNotLowerTheNewCount() {
        LeapCounter old = new LeapCounter(WindowSpec.of(Duration.ofSeconds(1), 10), 5, 0);
        long early = old.tryAcquire(50 * MS, 1);
        LeapCounter hour = old.withLimit(WindowSpec.of(Duration.ofHours(1), 10), 10, false);
        long now = 2_000 * MS; // the second from 0 s has passed: nothing to take over
        assertThat(admitAll(hour, now, 20)).isEqualTo(10);

        old.refund(early, 1);

        assertThat(hour.used(now)).isEqualTo(10);
        assertThat(hour.tryAcquire(now, 1)).isEqualTo(RateCounter.REJECTED);
    }

    /**
     * As above, with the old admission still in the window's first bucket that the takeover no longer
     * counted, and a later one that it carried: the new window's bucket (2 s, longer than the whole
     * old window of 200 ms) holds what was carried, and the refund of the forgotten admission, handed
     * on because its bucket had not left the old window at the new bucket's end, lowered that count:
     * 3 admitted within 300 ms under a limit of 2 per 2 s. Found by a review helper.
     */
    @Test
    void aRefundOfAnAdmissionNotCarried_doesNotLowerWhatWasCarriedIntoTheSameBucket() {
        LeapCounter old = new LeapCounter(new WindowSpec(Duration.ofMillis(200), 2, WindowMode.STRICT), 2, 0);
        long forgotten = old.tryAcquire(5_700 * MS, 1);
        assertThat(old.tryAcquire(5_800 * MS, 1)).as("carried").isNotNegative();
        LeapCounter next = old.withLimit(new WindowSpec(Duration.ofSeconds(2), 2, WindowMode.STRICT), 2, false);
        long takeover = 6_050 * MS; // the old window counts its buckets from 5.8 s on
        assertThat(next.used(takeover)).as("the admission of 5.8 s, carried").isEqualTo(1);

        assertThat(old.refund(forgotten, 1)).as("not handed on").isFalse();

        assertThat(next.used(takeover)).isEqualTo(1);
        assertThat(admitAll(next, 6_100 * MS, 5))
                .as("one more within the 2 s of 5.8 s")
                .isEqualTo(1);
    }

    @Test
    void aCounterThatIsNeverUsed_changesNothing() {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 5, 0);
        old.withLimit(2, true); // made for rules that never come into force

        assertThat(admitAll(old, 10)).isEqualTo(5);
        assertThat(old.used(NOW)).isEqualTo(5);
    }

    @Test
    void aTicketThroughTheOldCounter_readsAndRefundsInTheNewOne() {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 10, 0);
        long before = old.tryAcquire(NOW, 1);
        LeapCounter next = old.withLimit(20, true);
        assertThat(next.used(NOW)).as("takes over").isEqualTo(1);

        long ticket = old.tryAcquire(NOW, 2);

        assertThat(ticket).isNotNegative();
        assertThat(old.ticketStartNanos(ticket)).isEqualTo(2_000 * MS);
        assertThat(old.remainingAfter(ticket)).as("of the new limit, 20").isEqualTo(17);
        assertThat(next.used(NOW)).isEqualTo(3);
        old.refund(ticket, 2);
        assertThat(next.used(NOW)).as("a refund of the handed-on admission").isEqualTo(1);
        old.refund(before, 1);
        assertThat(next.used(NOW))
                .as("a refund of an admission taken over: the new window holds it in its own bucket")
                .isZero();
    }

    @Test
    void aRemainingCountAboveWhatTheOldLayoutHolds_isTheMostItHolds() {
        // Borrowing halves a count's bits: 15 with 1 s buckets (at most 32767).
        LeapCounter old = new LeapCounter(TEN_SECONDS, 10, 0, true);
        LeapCounter next = old.withLimit(100_000, false);
        next.used(NOW);

        long ticket = old.tryAcquire(NOW, 1);

        assertThat(next.used(NOW)).isEqualTo(1);
        assertThat(old.remainingAfter(ticket)).isEqualTo(LeapCounter.maxLimit(TEN_SECONDS, true));
    }

    @Test
    void fromABorrowingCounter_aHandedOnAdmissionIsNoLoanToWaitFor() {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 10, 0, true);
        old.tryAcquire(NOW, 1, NEVER);
        LeapCounter next = old.withLimit(10, false);
        // What a borrowing window counted, taken over, counts in its own bucket, this one.
        long own = next.tryAcquire(NOW, 1);
        assertThat(next.ticketStartNanos(own)).isEqualTo(2_000 * MS);

        long ticket = old.tryAcquire(NOW, 1, 500 * MS);

        assertThat(old.ticketStartNanos(ticket)).as("not after now").isEqualTo(2_000 * MS);
        assertThat(next.used(NOW)).isEqualTo(3);
    }

    @Test
    void permitsAboveTheNewLimit_areRejected() {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 10, 0);
        LeapCounter next = old.withLimit(3, true);
        next.used(NOW);

        assertThat(old.tryAcquire(NOW, 5)).isEqualTo(RateCounter.REJECTED);
        assertThat(old.tryAcquire(NOW, 3)).isNotNegative();
        assertThat(next.used(NOW)).isEqualTo(3);
    }

    @Test
    void twoSwitches_beforeAnyUse_passTheCountsAlongTheChain() {
        LeapCounter first = new LeapCounter(TEN_SECONDS, 5, 0);
        assertThat(admitAll(first, 2)).isEqualTo(2);
        LeapCounter second = first.withLimit(5, true); // never used directly
        LeapCounter third = second.withLimit(5, false);

        assertThat(admitAll(third, 2)).isEqualTo(2);
        assertThat(admitAll(first, 10))
                .as("first hands on to second, second to third")
                .isEqualTo(1);
        assertThat(admitAll(second, 10)).isZero();
        assertThat(admitAll(third, 10)).isZero();
        assertThat(third.used(NOW)).isEqualTo(5);
    }

    @Test
    void countersOnTheSameCells_allHandOn() {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 5, 0);
        LeapCounter raised = old.withLimit(6, false); // the same cells
        LeapCounter next = raised.withLimit(6, true);
        next.used(NOW);

        assertThat(admitAll(old, 3)).isEqualTo(3);
        assertThat(admitAll(raised, 10)).isEqualTo(3);
        assertThat(next.used(NOW)).isEqualTo(6);
    }

    /**
     * A counter that never lends, which took the counts of a borrowing one over and was taken over
     * in turn by a borrowing one, hands on no loan: the first counter's caller would read the loan's
     * ticket, made a ticket of a bucket that has begun by the one in between, as one not to wait for,
     * and proceed in the window the loan does not fit.
     */
    @Test
    void aCounterThatNeverLends_handsOnNoLoan() {
        LeapCounter first = new LeapCounter(TEN_SECONDS, 5, 0, true);
        LeapCounter second = first.withLimit(5, false); // never used directly
        LeapCounter third = second.withLimit(5, true);
        assertThat(admitAll(third, 500 * MS, 10)).isEqualTo(5);
        // Bucket 10: its window still counts bucket 0, full; the window of bucket 11 no longer does.
        long now = 10_500 * MS;

        long ticket = first.tryAcquire(now, 1, 1_000 * MS);

        assertThat(ticket).as("no loan through a counter that never lends").isEqualTo(RateCounter.REJECTED);
        assertThat(third.used(now)).isEqualTo(5);
    }

    /**
     * A borrowing window's loan, once taken over by a window that never lends, sits in the count
     * that also stands for the window the loan was made in; a refund of the loan, handed on, would
     * lower that window below what it admitted.
     */
    @Test
    void aRefundOfALoanTakenOverByAWindowThatNeverLends_isNotHandedOn() {
        LeapCounter old = new LeapCounter(TEN_SECONDS, 10, 0, true);
        long now = 10_500 * MS;
        assertThat(admitAll(old, 500 * MS, 5)).isEqualTo(5);
        assertThat(admitAll(old, now, 5)).as("bucket 10: its window is full").isEqualTo(5);
        long loan = old.tryAcquire(now, 1, 1_000 * MS);
        assertThat(old.ticketStartNanos(loan)).as("lent from bucket 11").isEqualTo(11_000 * MS);
        LeapCounter next = old.withLimit(10, false);
        assertThat(next.used(now)).as("takes over").isEqualTo(10);

        old.refund(loan, 1);

        assertThat(admitAll(next, now, 10))
                .as("bucket 10's window still holds the 10 admitted in buckets 0 and 10")
                .isZero();
    }

    /**
     * Two counters on the same new cells (a reload of the new rules before their first use) used
     * first at the same moment: the cells take over once, and neither seals them for the other,
     * which sent every call round from the cells to themselves (a stack overflow).
     */
    @Test
    void countersOnTheSameNewCells_usedFirstTogether_takeOverOnce() throws Exception {
        int threads = 6;
        int limit = 60;
        for (int round = 0; round < 500; round++) {
            LeapCounter old = new LeapCounter(TEN_SECONDS, limit, 0);
            LeapCounter next = old.withLimit(limit, true);
            LeapCounter reloaded = next.withLimit(limit, true); // the same cells as next
            LeapCounter[] counters = {old, next, reloaded};
            AtomicLong admitted = new AtomicLong();

            Together.run(threads, id -> admitted.addAndGet(admitAll(counters[id % 3], NOW, limit)));

            assertThat(admitted.get()).as("round %d", round).isEqualTo(limit);
            assertThat(next.used(NOW)).as("round %d", round).isEqualTo(limit);
        }
    }

    /**
     * Half the threads decide on the old counter, as requests that read the rules before a reload
     * do, half on the new one, whose first use takes over. The demand is far above the limit and
     * no bucket rolls: what was admitted and not refunded never exceeds what the new window counts
     * (a refund that races with the takeover may be ignored: conservative), nor that the limit, and
     * the window then admits exactly what it has left.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void oldAndNewCounterUnderContention_admitNoMoreThanTheLimit(boolean borrowingBefore) throws Exception {
        int threads = 8;
        int limit = 300;
        for (int round = 0; round < 200; round++) {
            LeapCounter old = new LeapCounter(TEN_SECONDS, limit, 0, borrowingBefore);
            LeapCounter next = old.withLimit(limit, !borrowingBefore);
            AtomicLong admitted = new AtomicLong();
            AtomicLong refunded = new AtomicLong();

            Together.run(threads, id -> {
                LeapCounter counter = id % 2 == 0 ? old : next;
                for (int i = 0; i < 2 * limit / threads * 2; i++) {
                    long ticket = counter.tryAcquire(NOW, 1);
                    if (ticket >= 0) {
                        admitted.incrementAndGet();
                        if (i % 8 == 0) {
                            counter.refund(ticket, 1);
                            refunded.incrementAndGet();
                        }
                    }
                }
            });

            long used = next.used(NOW);
            assertThat(used).as("round %d", round).isLessThanOrEqualTo(limit);
            assertThat(admitted.get() - refunded.get())
                    .as("round %d: admitted and not refunded", round)
                    .isLessThanOrEqualTo(used);
            assertThat(admitAll(old, limit) + admitAll(next, limit))
                    .as("round %d: the window is full", round)
                    .isEqualTo(limit - used);
        }
    }

    private static int admitAll(LeapCounter counter, int attempts) {
        return admitAll(counter, NOW, attempts);
    }

    private static int admitAll(LeapCounter counter, long nowNanos, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            if (counter.tryAcquire(nowNanos, 1) >= 0) {
                admitted++;
            }
        }
        return admitted;
    }
}
