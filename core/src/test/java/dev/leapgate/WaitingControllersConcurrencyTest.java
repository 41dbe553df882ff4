package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many threads on one rule that makes requests wait, all deciding at one clock reading (the sleeper
 * records each wait and moves no clock): the admissions and their waits are exactly those of the
 * requests decided one at a time.
 */
class WaitingControllersConcurrencyTest {

    private static final int THREADS = 16;
    private static final int ATTEMPTS_PER_THREAD = 200;
    private static final long MS = 1_000_000L;

    private final ManualClock clock = new ManualClock();
    private final List<Long> sleeps = Collections.synchronizedList(new ArrayList<>());

    private Limiter limiter(long limit, WindowSpec window, OnExcess onExcess) {
        return Limiter.builder("probe")
                .rate(limit, window)
                .onExcess(onExcess)
                .clock(clock)
                .sleeper(sleeps::add)
                .build();
    }

    private static long hammer(Limiter limiter) throws InterruptedException {
        AtomicLong admitted = new AtomicLong();
        Together.run(THREADS, id -> {
            for (int i = 0; i < ATTEMPTS_PER_THREAD; i++) {
                Decision d = limiter.tryEnter();
                if (d instanceof Entry e) {
                    admitted.incrementAndGet();
                    e.close();
                }
            }
        });
        return admitted.get();
    }

    @Test
    void pace_manyThreadsAtOneInstant_admitOneTurnPerIntervalUpToMaxQueue() throws InterruptedException {
        Limiter paced = limiter(10, WindowSpec.of(Duration.ofSeconds(1)), OnExcess.pace(Duration.ofMillis(500)));

        assertThat(hammer(paced)).as("turns at 0, 100, ... 500 ms").isEqualTo(6);
        assertThat(sleeps).containsExactlyInAnyOrder(100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS);
    }

    @Test
    void warmUpPace_manyThreadsAtOneInstant_fromCold_admitAtTheColdRate() throws InterruptedException {
        // 10 per second, cold factor 3: a cold rule starts near one every 300 ms, a little faster each.
        Limiter warming = limiter(
                10,
                WindowSpec.of(Duration.ofSeconds(1)),
                OnExcess.warmUpPace(3, Duration.ofSeconds(10), Duration.ofMillis(900)));

        assertThat(hammer(warming)).isEqualTo(4);
        assertThat(sleeps).containsExactlyInAnyOrder(298 * MS, 592 * MS, 882 * MS);
    }

    @Test
    void borrow_manyThreadsAtOneInstant_borrowExactlyWhatTheNextBucketHolds() throws InterruptedException {
        // 10 per second in 10 buckets, strict: the 10 of bucket 0 count until 1.1 s.
        Limiter borrowing =
                limiter(10, WindowSpec.of(Duration.ofSeconds(1), 10), OnExcess.borrow(Duration.ofMillis(500)));
        assertThat(hammer(borrowing)).as("bucket 0").isEqualTo(10);
        assertThat(sleeps).isEmpty();

        clock.advance(Duration.ofMillis(1050)); // bucket 10 is full; bucket 11, from 1.1 s, is not

        assertThat(hammer(borrowing)).as("loans from bucket 11").isEqualTo(10);
        assertThat(sleeps).hasSize(10).containsOnly(50 * MS);
    }
}
