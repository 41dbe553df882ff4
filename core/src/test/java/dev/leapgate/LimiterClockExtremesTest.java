package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.internal.counter.LeapCounter;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Samples;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The window's promise (no span of {@link WindowSpec#guaranteedSpan()} admits more than the limit,
 * at the times requests go on) wherever the clock stands: any {@link System#nanoTime()} reading is
 * legal, negative ones and those about to wrap past {@link Long#MAX_VALUE} included, and the clock
 * may jump by hours or stand still. Limits at the edges of the bucket lanes (255/256,
 * 65,535/65,536) and of what a bucket can count, one bucket and a thousand, one permit and many.
 */
class LimiterClockExtremesTest {

    private static final long HOUR = 3_600_000_000_000L;

    private static final List<Long> STARTS = List.of(
            0L,
            -1L,
            Long.MIN_VALUE,
            Long.MIN_VALUE + 1,
            Long.MAX_VALUE,
            Long.MAX_VALUE - 1_000_000L,
            Long.MAX_VALUE - HOUR,
            -5_000_000_000L);

    /** Window (ms), buckets, limit. */
    private static final List<long[]> SHAPES = List.of(
            new long[] {100, 1, 1},
            new long[] {100, 100, 1},
            new long[] {1000, 1, 255},
            new long[] {1000, 10, 256},
            new long[] {1000, 1000, 255},
            new long[] {1000, 1000, 65535},
            new long[] {1000, 8, 65536},
            new long[] {1500, 3, 2},
            new long[] {100, 2, 16383},
            new long[] {3_600_000, 9, 1},
            new long[] {86_400_000, 1, 100_000},
            new long[] {86_400_000, 1000, 65536});

    record Case(long start, long[] shape, WindowMode mode, OnExcess onExcess, boolean perOrigin, long seed) {
        @Override
        public String toString() {
            return "start " + start + ", " + shape[2] + " per " + shape[0] + "ms in " + shape[1] + " buckets " + mode
                    + ", " + onExcess + (perOrigin ? ", per origin" : "") + ", steps seed " + seed;
        }
    }

    @Test
    void noSpanOfTheGuaranteedLengthAdmitsMoreThanTheLimit_whereverTheClockStands() {
        Samples.check(
                s -> new Case(
                        s.oneOf(STARTS),
                        s.oneOf(SHAPES),
                        s.oneOf(List.of(WindowMode.values())),
                        s.oneOf(List.of(
                                OnExcess.reject(),
                                OnExcess.borrow(Duration.ZERO),
                                OnExcess.borrow(Duration.ofMillis(3)),
                                OnExcess.borrow(Duration.ofMinutes(1)))),
                        s.between(0, 1) == 1,
                        s.between(0, Integer.MAX_VALUE - 1)),
                LimiterClockExtremesTest::holdsThePromise);
    }

    private static void holdsThePromise(Case c) {
        WindowSpec window = new WindowSpec(Duration.ofMillis(c.shape[0]), (int) c.shape[1], c.mode);
        long limit = c.shape[2];
        if (c.onExcess.kind() == OnExcess.Kind.BORROW && limit > LeapCounter.maxLimit(window, true)) {
            return; // refused at configuration: tested with the rule's limits
        }
        ManualClock clock = new ManualClock(c.start);
        Limiter.Builder builder = Limiter.builder("edges")
                .rate(limit, window)
                .onExcess(c.onExcess)
                .clock(clock)
                .sleeper(clock::advanceNanos); // a wait moves the clock on by exactly its length
        if (c.perOrigin) {
            builder.perOrigin(2);
        }
        Limiter limiter = builder.build();
        SplittableRandom random = new SplittableRandom(c.seed);
        long span = window.guaranteedSpan().toNanos();
        long bucket = window.bucketNanos();
        Deque<long[]>[] admitted = newQueues(3);
        for (int step = 0; step < 150; step++) {
            clock.advanceNanos(
                    switch (random.nextInt(8)) {
                        case 0, 1 -> 0; // standing still
                        case 2 -> 1;
                        case 3 -> bucket - 1;
                        case 4 -> random.nextInt(40) == 0 ? HOUR : bucket;
                        default -> (long) (random.nextDouble() * bucket);
                    });
            int client = c.perOrigin ? random.nextInt(3) : 0;
            int permits = random.nextInt(4) == 0 ? 1 + random.nextInt((int) Math.min(limit, 1000)) : 1;
            if (random.nextInt(50) == 0) {
                permits = (int) limit + 1;
            }
            Origin origin = Origin.id("client-" + client);
            boolean taken;
            if (random.nextBoolean()) {
                taken = c.perOrigin ? limiter.tryAcquire(origin, permits) : limiter.tryAcquire(permits);
            } else {
                Decision d = c.perOrigin ? limiter.tryEnter(origin, permits) : limiter.tryEnter(permits);
                taken = d.admitted();
                if (d instanceof Entry entry) {
                    entry.close();
                } else {
                    Duration retry = ((Rejection) d).retryAfter();
                    assertThat(retry.isNegative()).isFalse();
                    assertThat(retry).isLessThanOrEqualTo(Duration.ofHours(48));
                }
            }
            if (!taken) {
                continue;
            }
            assertThat(permits).isLessThanOrEqualTo((int) limit);
            long now = clock.nanoTime(); // when the request goes on, after any wait
            Deque<long[]> queue = admitted[client];
            queue.addLast(new long[] {now, permits});
            while (!queue.isEmpty() && now - queue.peekFirst()[0] >= span) {
                queue.removeFirst();
            }
            long inSpan = queue.stream().mapToLong(a -> a[1]).sum();
            assertThat(inSpan)
                    .as("permits admitted in the last %d ns at step %d", span, step)
                    .isLessThanOrEqualTo(limit);
        }
    }

    @SuppressWarnings("unchecked")
    private static Deque<long[]>[] newQueues(int n) {
        Deque<long[]>[] queues = new Deque[n];
        for (int i = 0; i < n; i++) {
            queues[i] = new ArrayDeque<>();
        }
        return queues;
    }
}
