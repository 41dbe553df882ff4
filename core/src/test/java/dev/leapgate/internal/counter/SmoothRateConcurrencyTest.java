package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many threads hammer one {@link SmoothRate} while one of them drives a shared fake clock. Every
 * admission's scheduled moment ({@code now + wait}) is recorded; afterwards the schedule must hold
 * exactly as if the reservations had been made one at a time: no two admissions closer than the
 * stable interval, no wait beyond {@code maxQueue}, and admitted + rejected = attempts.
 */
class SmoothRateConcurrencyTest {

    private static final int THREADS = 8;
    private static final int ATTEMPTS_PER_THREAD = 200_000;
    private static final int ADVANCE_EVERY = 16;
    /** 100 000 per second: one every 10 us, a whole number of ns so that spacing is exact. */
    private static final long LIMIT = 100_000;

    private static final long STABLE_NANOS = 10_000;

    /** The admissions of one run, merged from all threads and sorted by scheduled moment. */
    private record Run(long[] scheduledNanos, long[] waitNanos, long admitted, long rejected, long elapsedNanos) {}

    private static Run hammer(SmoothRate rate) throws InterruptedException {
        AtomicLong clock = new AtomicLong();
        long[][] scheduled = new long[THREADS][ATTEMPTS_PER_THREAD];
        long[][] waits = new long[THREADS][ATTEMPTS_PER_THREAD];
        int[] admitted = new int[THREADS];
        long[] rejected = new long[THREADS];

        Together.run(THREADS, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int j = 0; j < ATTEMPTS_PER_THREAD; j++) {
                if (id == 0 && j % ADVANCE_EVERY == 0) {
                    clock.addAndGet(random.nextLong(STABLE_NANOS)); // thread 0 also drives the clock
                }
                long now = clock.get();
                long wait = rate.tryReserve(now, 1);
                if (wait == SmoothRate.REJECTED) {
                    rejected[id]++;
                } else {
                    scheduled[id][admitted[id]] = now + wait;
                    waits[id][admitted[id]] = wait;
                    admitted[id]++;
                }
            }
        });

        int total = Arrays.stream(admitted).sum();
        long[][] pairs = new long[total][];
        int k = 0;
        for (int i = 0; i < THREADS; i++) {
            for (int j = 0; j < admitted[i]; j++) {
                pairs[k++] = new long[] {scheduled[i][j], waits[i][j]};
            }
        }
        Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
        long[] scheduledSorted = Arrays.stream(pairs).mapToLong(p -> p[0]).toArray();
        long[] waitsSorted = Arrays.stream(pairs).mapToLong(p -> p[1]).toArray();
        return new Run(
                scheduledSorted, waitsSorted, total, Arrays.stream(rejected).sum(), clock.get());
    }

    @ParameterizedTest(name = "max-queue {0} intervals")
    @ValueSource(ints = {0, 5})
    void pace_underContention_keepsEveryAdmissionAtLeastOneIntervalApart_exactly(int queuedIntervals) throws Exception {
        long maxQueueNanos = queuedIntervals * STABLE_NANOS;
        SmoothRate rate = SmoothRate.pace(LIMIT, Duration.ofSeconds(1), Duration.ofNanos(maxQueueNanos), 0);

        Run run = hammer(rate);

        assertThat(run.admitted() + run.rejected()).isEqualTo((long) THREADS * ATTEMPTS_PER_THREAD);
        assertThat(run.rejected()).as("the rate was contended").isGreaterThan(run.admitted());
        assertThat(run.elapsedNanos()).as("the clock crossed many intervals").isGreaterThan(5_000 * STABLE_NANOS);
        assertThat(run.admitted())
                .as("admissions kept up with the clock")
                .isGreaterThan(run.elapsedNanos() / STABLE_NANOS / 2);
        long[] scheduled = run.scheduledNanos();
        long[] waits = run.waitNanos();
        for (int i = 0; i < scheduled.length; i++) {
            assertThat(waits[i]).isBetween(0L, maxQueueNanos);
            if (i == 0) {
                continue;
            }
            long gap = scheduled[i] - scheduled[i - 1];
            assertThat(gap).as("gap before admission %d", i).isGreaterThanOrEqualTo(STABLE_NANOS);
            if (waits[i] > 0) {
                // A queued admission takes the very next slot: nothing lost, nothing reserved twice.
                assertThat(gap).as("gap before queued admission %d", i).isEqualTo(STABLE_NANOS);
            }
        }
    }

    @ParameterizedTest(name = "max-queue {0} intervals")
    @ValueSource(ints = {0, 5})
    void warmUp_underContention_neverAdmitsFasterThanTheLimit(int queuedIntervals) throws Exception {
        long maxQueueNanos = queuedIntervals * STABLE_NANOS;
        // Warm-up of 20 ms: the run starts cold and reaches the limit after about 2 000 intervals.
        SmoothRate rate = SmoothRate.warmUp(
                LIMIT, Duration.ofSeconds(1), 3.0, Duration.ofMillis(20), Duration.ofNanos(maxQueueNanos), 0);

        Run run = hammer(rate);

        assertThat(run.admitted() + run.rejected()).isEqualTo((long) THREADS * ATTEMPTS_PER_THREAD);
        assertThat(run.rejected()).as("the rate was contended").isGreaterThan(run.admitted());
        long[] scheduled = run.scheduledNanos();
        long[] waits = run.waitNanos();
        for (int i = 1; i < scheduled.length; i++) {
            assertThat(waits[i]).isBetween(0L, maxQueueNanos);
            // Every permit costs at least the stable interval; 1 ns for rounding the curve's doubles.
            assertThat(scheduled[i] - scheduled[i - 1])
                    .as("gap before admission %d", i)
                    .isGreaterThanOrEqualTo(STABLE_NANOS - 1);
        }
        // Cold at first: the first admissions are about coldFactor intervals apart.
        assertThat(scheduled[10] - scheduled[0]).isGreaterThan(10 * 2 * STABLE_NANOS);
    }
}
