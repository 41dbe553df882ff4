package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Borrowing from the next bucket: a loan counts where it will be spent, and windows stay exact. */
class LeapCounterBorrowTest {

    private static final long MS = 1_000_000L;
    private static final long NEVER = -1;

    /** 2 per second in 10 buckets of 100 ms, strict, borrowing. */
    private final LeapCounter c = new LeapCounter(WindowSpec.of(Duration.ofSeconds(1), 10), 2, 0, true);

    @Test
    void aRejectedRequest_borrowsFromTheNextBucket_whereTheOldestHasLeft() {
        c.tryAcquire(50 * MS, 1, NEVER);
        c.tryAcquire(50 * MS, 1, NEVER);

        assertThat(c.tryAcquire(1050 * MS, 1, NEVER))
                .as("no loan without asking")
                .isEqualTo(RateCounter.REJECTED);
        long loan = c.tryAcquire(1050 * MS, 1, 100 * MS);

        assertThat(loan).isNotNegative();
        assertThat(c.ticketStartNanos(loan)).isEqualTo(1100 * MS);
        assertThat(c.remainingAfter(loan)).isEqualTo(1);
        assertThat(c.tryAcquire(1050 * MS, 1, 100 * MS))
                .as("the second loan fits too")
                .isNotNegative();
        assertThat(c.tryAcquire(1050 * MS, 1, 100 * MS))
                .as("the next bucket is full")
                .isEqualTo(RateCounter.REJECTED);
    }

    @Test
    void aLoan_isRefusedWhenTheNextBucketStartsLaterThanMaxWait() {
        c.tryAcquire(50 * MS, 2, NEVER);

        assertThat(c.tryAcquire(1050 * MS, 1, 49 * MS)).isEqualTo(RateCounter.REJECTED);
        assertThat(c.tryAcquire(1050 * MS, 1, 50 * MS)).isNotNegative();
    }

    @Test
    void aLoan_becomesTheNextBucketsCount_whenTheHeadRollsOnToIt() {
        c.tryAcquire(50 * MS, 2, NEVER);
        c.tryAcquire(1050 * MS, 2, 100 * MS);

        assertThat(c.used(1100 * MS)).isEqualTo(2);
        assertThat(c.tryAcquire(1150 * MS, 1, NEVER)).isEqualTo(RateCounter.REJECTED);
        // The loan's bucket [1100, 1200) leaves the strict window at 2200 ms.
        assertThat(c.nanosUntilAvailable(1150 * MS, 1)).isEqualTo(1050 * MS);
    }

    @Test
    void aLoan_isPublishedIntoTheRing_whenTheHeadSkipsItsBucket() {
        c.tryAcquire(50 * MS, 2, NEVER);
        c.tryAcquire(1050 * MS, 1, 100 * MS); // lent from [1100, 1200)

        assertThat(c.tryAcquire(1250 * MS, 1, NEVER))
                .as("next request two buckets later")
                .isNotNegative();
        assertThat(c.tryAcquire(1250 * MS, 1, NEVER)).isEqualTo(RateCounter.REJECTED);
        assertThat(c.used(2199 * MS)).isEqualTo(2);
        assertThat(c.used(2200 * MS)).isEqualTo(1);
    }

    @Test
    void aRefundedLoan_makesRoomInTheNextBucketAgain() {
        c.tryAcquire(50 * MS, 2, NEVER);
        long loan = c.tryAcquire(1050 * MS, 2, 100 * MS);

        c.refund(loan, 2);

        assertThat(c.tryAcquire(1050 * MS, 2, 100 * MS)).isNotNegative();
    }

    @Test
    void aStaleHead_isRolledOnBeforeBorrowing() {
        c.tryAcquire(50 * MS, 2, NEVER);
        c.tryAcquire(1150 * MS, 2, NEVER); // bucket [1100, 1200) full

        // At 2150 ms the head is still at 1100 ms; [1100, 1200) has left the window of bucket 2200.
        long loan = c.tryAcquire(2150 * MS, 1, 100 * MS);

        assertThat(loan).isNotNegative();
        assertThat(c.ticketStartNanos(loan)).isEqualTo(2200 * MS);
    }

    @Test
    void borrowing_halvesTheBitsOfACount() {
        WindowSpec spec = WindowSpec.of(Duration.ofSeconds(1), 10);
        assertThat(LeapCounter.maxLimit(spec, true)).isEqualTo(16383);
        assertThat(LeapCounter.maxLimit(WindowSpec.of(Duration.ofSeconds(10), 10), true))
                .isEqualTo(32767);
        assertThatThrownBy(() -> new LeapCounter(spec, 20_000, 0, true))
                .hasMessage("limit must be between 1 and 16383 for buckets of 100ms with borrowing, was 20000;"
                        + " use longer buckets (fewer buckets or a longer window)");
    }

    /**
     * Random schedules with borrowing: an admission takes effect when its bucket starts (now, or
     * the next bucket for a loan), and counted at those times the documented guarantees hold.
     */
    @ParameterizedTest
    @EnumSource(WindowMode.class)
    void randomSchedules_keepTheWindowGuarantee_atTheTimesAdmissionsTakeEffect(WindowMode mode) {
        long w = 1_200_000_000L;
        int[] bucketCounts = {1, 2, 3, 4, 6, 10};
        for (int seed = 0; seed < 200; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            WindowSpec spec =
                    new WindowSpec(Duration.ofNanos(w), bucketCounts[random.nextInt(bucketCounts.length)], mode);
            int limit = 1 + random.nextInt(15);
            long b = spec.bucketNanos();
            LeapCounter counter = new LeapCounter(spec, limit, 0, true);
            List<LeapCounterGuaranteeTest.Admission> admitted = new ArrayList<>();
            long t = 0;
            for (int i = 0; i < 3000; i++) {
                int kind = random.nextInt(10);
                t += kind < 4 ? 0 : kind < 9 ? random.nextLong(b) : random.nextLong(2 * w);
                int permits = 1 + random.nextInt(Math.max(1, limit / 3));
                long ticket = counter.tryAcquire(t, permits, random.nextLong(2 * b));
                if (ticket >= 0) {
                    admitted.add(new LeapCounterGuaranteeTest.Admission(
                            Math.max(t, counter.ticketStartNanos(ticket)), permits));
                }
            }
            admitted.sort(Comparator.comparingLong(LeapCounterGuaranteeTest.Admission::atNanos));
            long span = mode == WindowMode.STRICT ? w : w - b;
            assertThat(LeapCounterGuaranteeTest.maxInAnySpan(admitted, span))
                    .as("seed %d: %s, limit %d", seed, spec, limit)
                    .isLessThanOrEqualTo(limit);
        }
    }

    @Test
    void manyThreadsBorrowing_neverOvershootAnyWindow() throws Exception {
        WindowSpec spec = WindowSpec.of(Duration.ofMillis(100), 10);
        long b = spec.bucketNanos();
        int limit = 30;
        LeapCounter counter = new LeapCounter(spec, limit, 0, true);
        AtomicLong clock = new AtomicLong();
        int threads = 8;
        int attempts = 200_000;
        int advanceEvery = 64;
        long maxStepNanos = b / 2;
        long maxWaitNanos = b;
        // Thread 0 steps the clock once every advanceEvery attempts, by less than maxStepNanos; a
        // loan waits less than maxWaitNanos, so its ticket names at most the bucket after the clock's.
        long steps = (attempts + advanceEvery - 1) / advanceEvery;
        int maxEpochs = Math.toIntExact((steps * maxStepNanos + maxWaitNanos) / b + 1);
        long[][] perEpoch = new long[threads][maxEpochs];
        Together.run(threads, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int j = 0; j < attempts; j++) {
                if (id == 0 && j % advanceEvery == 0) {
                    clock.addAndGet(random.nextLong(maxStepNanos));
                }
                int permits = 1 + random.nextInt(2);
                long ticket = counter.tryAcquire(clock.get(), permits, random.nextLong(maxWaitNanos));
                if (ticket >= 0) {
                    perEpoch[id][(int) (counter.ticketStartNanos(ticket) / b)] += permits;
                }
            }
        });
        long worst = 0;
        for (int e = 0; e < maxEpochs; e++) {
            long window = 0;
            for (int k = Math.max(0, e - spec.buckets()); k <= e; k++) {
                for (long[] row : perEpoch) {
                    window += row[k];
                }
            }
            worst = Math.max(worst, window);
        }
        assertThat(worst).isLessThanOrEqualTo(limit);
        assertThat(worst).isGreaterThan(limit / 2);
    }
}
