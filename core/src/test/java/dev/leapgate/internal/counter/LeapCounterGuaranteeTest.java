package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Checks the two documented window guarantees against randomized arrival schedules: the strict
 * window admits at most the limit in any span of length W; the sliding window in any span of
 * length W - b, and up to twice the limit in a span of length W.
 */
class LeapCounterGuaranteeTest {

    /** 1.2 s: divisible by every bucket count below. */
    private static final long W = 1_200_000_000L;

    private static final int[] BUCKET_COUNTS = {1, 2, 3, 4, 5, 8, 10, 20};

    record Admission(long atNanos, int permits) {}

    @Test
    void strictWindow_neverAdmitsMoreThanTheLimitInAnySpanOfW() {
        for (int seed = 0; seed < 300; seed++) {
            Schedule s = Schedule.random(seed, WindowMode.STRICT);
            List<Admission> admitted = s.run();

            assertThat(maxInAnySpan(admitted, W))
                    .as("seed %d: %s, limit %d", seed, s.spec, s.limit)
                    .isLessThanOrEqualTo(s.limit);
        }
    }

    @Test
    void slidingWindow_neverAdmitsMoreThanTheLimitInAnySpanOfWMinusB_andAtMostTwiceInW() {
        boolean exceededInW = false;
        for (int seed = 0; seed < 300; seed++) {
            Schedule s = Schedule.random(seed, WindowMode.SLIDING);
            List<Admission> admitted = s.run();

            long inW = maxInAnySpan(admitted, W);
            assertThat(maxInAnySpan(admitted, W - s.spec.bucketNanos()))
                    .as("seed %d: %s, limit %d", seed, s.spec, s.limit)
                    .isLessThanOrEqualTo(s.limit);
            assertThat(inW).as("seed %d", seed).isLessThanOrEqualTo(2L * s.limit);
            exceededInW |= inW > s.limit;
        }
        assertThat(exceededInW)
                .as("the sliding window's weaker promise is real: some span of W held more than the limit")
                .isTrue();
    }

    @Test
    void strictWindow_isNotVacuous_itAdmitsTheFullLimitWithinSomeSpanOfW() {
        for (int seed = 0; seed < 50; seed++) {
            Schedule s = Schedule.random(seed, WindowMode.STRICT);
            s.gapMode = 0; // saturating demand
            assertThat(maxInAnySpan(s.run(), W)).as("seed %d", seed).isEqualTo(s.limit);
        }
    }

    /** The largest sum of permits admitted at times within a half-open span of {@code length}. */
    static long maxInAnySpan(List<Admission> admitted, long length) {
        long max = 0;
        long sum = 0;
        int from = 0;
        for (int to = 0; to < admitted.size(); to++) {
            sum += admitted.get(to).permits();
            while (from <= to && admitted.get(to).atNanos() - admitted.get(from).atNanos() >= length) {
                sum -= admitted.get(from).permits();
                from++;
            }
            max = Math.max(max, sum);
        }
        return max;
    }

    /** A random window shape, limit and stream of requests in non-decreasing time. */
    static final class Schedule {
        final SplittableRandom random;
        final WindowSpec spec;
        final int limit;
        int gapMode = -1; // -1 random mix, 0 saturating

        private Schedule(SplittableRandom random, WindowSpec spec, int limit) {
            this.random = random;
            this.spec = spec;
            this.limit = limit;
        }

        static Schedule random(int seed, WindowMode mode) {
            SplittableRandom random = new SplittableRandom(seed);
            int buckets = BUCKET_COUNTS[random.nextInt(BUCKET_COUNTS.length)];
            WindowSpec spec = new WindowSpec(Duration.ofNanos(W), buckets, mode);
            return new Schedule(random, spec, 1 + random.nextInt(20));
        }

        List<Admission> run() {
            LeapCounter counter = new LeapCounter(spec, limit, random.nextLong(-W, W));
            List<Admission> admitted = new ArrayList<>();
            long t = random.nextLong(-2 * W, 2 * W);
            long b = spec.bucketNanos();
            for (int i = 0; i < 5_000; i++) {
                t += gap(b);
                int permits = random.nextInt(4) == 0 ? 1 + random.nextInt(limit) : 1;
                if (counter.tryAcquire(t, permits) >= 0) {
                    admitted.add(new Admission(t, permits));
                }
            }
            return admitted;
        }

        private long gap(long b) {
            if (gapMode == 0) {
                return b / 50;
            }
            int kind = random.nextInt(10);
            if (kind < 4) {
                return 0; // bursts at one instant
            }
            if (kind < 8) {
                return random.nextLong(b); // within a bucket
            }
            if (kind < 9) {
                return b - 1 - random.nextLong(3); // just before a boundary
            }
            return random.nextLong(2 * W); // idle
        }
    }
}
