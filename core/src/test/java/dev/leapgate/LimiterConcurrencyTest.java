package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.WindowSpec;
import dev.leapgate.stats.StatsTotals;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The public API under contention, across thousands of bucket rollovers: many threads call a
 * {@link Limiter} while the clock moves in random steps. Every admission's time is recorded; the
 * strict window's promise (no span of W holds more than N) must hold over all of them, and the
 * statistics must account for every call exactly.
 */
class LimiterConcurrencyTest {

    private static final Duration W = Duration.ofSeconds(1);
    private static final int N = 50;
    private static final int THREADS = 6;

    private final ManualClock clock = new ManualClock();

    private static final int STEPS = 2_000;
    private static final int CALLS_PER_STEP = 10;

    /**
     * Runs {@code step} on every thread {@link #STEPS} times; between two steps, while every thread
     * waits at a barrier, the clock moves by 0 to 150 ms (a bucket is 100 ms). Within a step the
     * threads race each other at one clock reading, so each admission's time is the time it was
     * counted at (with a clock moving under them, a thread's reading may be older than the bucket its
     * admission lands in, and only the bucket says when it counts); across steps the window rolls
     * thousands of times. Returns how far the clock moved.
     */
    private long inSteps(java.util.function.IntConsumer step) throws Exception {
        long start = clock.nanoTime();
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        java.util.concurrent.CyclicBarrier barrier = new java.util.concurrent.CyclicBarrier(
                THREADS, () -> clock.advance(Duration.ofMillis(random.nextInt(151))));
        Together.run(THREADS, t -> {
            for (int s = 0; s < STEPS; s++) {
                step.accept(t);
                try {
                    barrier.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        return clock.nanoTime() - start;
    }

    /** The most admissions at times within a half-open span of {@code lengthNanos}. */
    private static int maxInAnySpan(List<Long> times, long lengthNanos) {
        List<Long> sorted = new ArrayList<>(times);
        sorted.sort(null);
        int max = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (sorted.get(to) - sorted.get(from) >= lengthNanos) {
                from++;
            }
            max = Math.max(max, to - from + 1);
        }
        return max;
    }

    @Test
    void tryEnterAndClose_underManyThreads_keepTheStrictPromise_andCountEveryCall() throws Exception {
        Limiter limiter = Limiter.builder("orders")
                .rate(N, WindowSpec.of(W))
                .concurrency(THREADS - 1)
                .clock(clock)
                .build();
        ConcurrentLinkedQueue<Long> admittedAt = new ConcurrentLinkedQueue<>();
        AtomicLong rejected = new AtomicLong();

        long moved = inSteps(t -> {
            for (int i = 0; i < CALLS_PER_STEP; i++) {
                Decision d = limiter.tryEnter();
                if (d instanceof Entry entry) {
                    admittedAt.add(entry.startNanos());
                    if (i % 5 == 0) {
                        entry.fail();
                    }
                    entry.close();
                } else {
                    rejected.incrementAndGet();
                }
            }
        });

        assertThat(moved).as("many windows and bucket rollovers").isGreaterThan(10 * W.toNanos());
        assertThat(maxInAnySpan(new ArrayList<>(admittedAt), W.toNanos())).isEqualTo(N);
        StatsTotals totals = limiter.stats().totals();
        assertThat(totals.admitted()).isEqualTo(admittedAt.size());
        assertThat(totals.rejected()).isEqualTo(rejected.get());
        assertThat(totals.admitted() + totals.rejected()).isEqualTo((long) THREADS * STEPS * CALLS_PER_STEP);
        assertThat(totals.succeeded() + totals.failed()).isEqualTo(totals.admitted());
        assertThat(limiter.stats().inFlight()).isZero();
        assertThat(limiter.stats().lastMinute().peakInFlight()).isBetween(1L, THREADS - 1L);
    }

    @Test
    void tryAcquire_underManyThreads_admitsExactlyWhatTheWindowAllows_andCountsEveryCall() throws Exception {
        Limiter limiter =
                Limiter.builder("pings").rate(N, WindowSpec.of(W)).clock(clock).build();
        ConcurrentLinkedQueue<Long> times = new ConcurrentLinkedQueue<>();

        inSteps(t -> {
            for (int i = 0; i < CALLS_PER_STEP; i++) {
                long now = clock.nanoTime();
                if (limiter.tryAcquire()) {
                    times.add(now);
                }
            }
        });

        assertThat(maxInAnySpan(new ArrayList<>(times), W.toNanos())).isEqualTo(N);
        StatsTotals totals = limiter.stats().totals();
        assertThat(totals.admitted()).isEqualTo(times.size());
        assertThat(totals.admitted() + totals.rejected()).isEqualTo((long) THREADS * STEPS * CALLS_PER_STEP);
        assertThat(limiter.stats().inFlight()).isZero();
    }

    @Test
    void perOriginLimiter_underManyThreads_keepsThePromisePerOrigin() throws Exception {
        Limiter limiter = Limiter.builder("logins")
                .rate(5, WindowSpec.of(W))
                .perOrigin(100)
                .clock(clock)
                .build();
        Origin[] origins = {Origin.id("alice"), Origin.id("bob"), Origin.id("carol")};
        List<ConcurrentLinkedQueue<Long>> times =
                List.of(new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());

        inSteps(t -> {
            for (int i = 0; i < CALLS_PER_STEP; i++) {
                int o = (t + i) % origins.length;
                if (limiter.tryEnter(origins[o]) instanceof Entry entry) {
                    times.get(o).add(entry.startNanos());
                    entry.close();
                }
            }
        });

        for (int o = 0; o < origins.length; o++) {
            assertThat(maxInAnySpan(new ArrayList<>(times.get(o)), W.toNanos()))
                    .as("origin %s", origins[o])
                    .isEqualTo(5);
        }
        assertThat(limiter.stats().totals().admitted())
                .isEqualTo(times.stream().mapToLong(ConcurrentLinkedQueue::size).sum());
    }
}
