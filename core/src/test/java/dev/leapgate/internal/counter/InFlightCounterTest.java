package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.testing.Together;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class InFlightCounterTest {

    @Test
    void tryAcquire_admitsUpToTheLimit_andReleaseFreesASlot() {
        InFlightCounter c = new InFlightCounter(2);

        assertThat(c.tryAcquire(1)).isTrue();
        assertThat(c.tryAcquire(1)).isTrue();
        assertThat(c.tryAcquire(1)).isFalse();
        c.release(1);
        assertThat(c.tryAcquire(1)).isTrue();
        assertThat(c.inFlight()).isEqualTo(2);
    }

    @Test
    void releasingMoreThanHeld_isAnErrorAndLeavesTheCountIntact() {
        InFlightCounter c = new InFlightCounter(3);
        c.tryAcquire(1);

        assertThatThrownBy(() -> c.release(2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("released 2 permits but only 1 were held: an acquisition was released twice");
        assertThat(c.inFlight()).isEqualTo(1);
    }

    @Test
    void limitBelowOne_isRejected() {
        assertThatThrownBy(() -> new InFlightCounter(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("concurrency limit must be at least 1, was 0");
    }

    @Test
    void manyThreads_neverHoldMoreThanTheLimit_andAllSlotsComeBack() throws Exception {
        int threads = 8;
        int attempts = 200_000;
        int limit = 3;
        InFlightCounter c = new InFlightCounter(limit);
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger maxHolding = new AtomicInteger();
        AtomicLong admitted = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        Together.run(threads, id -> {
            for (int j = 0; j < attempts; j++) {
                if (c.tryAcquire(1)) {
                    int now = holding.incrementAndGet();
                    maxHolding.accumulateAndGet(now, Math::max);
                    if (ThreadLocalRandom.current().nextInt(8) == 0) {
                        Thread.yield(); // hold the slot a little while
                    }
                    holding.decrementAndGet();
                    c.release(1);
                    admitted.incrementAndGet();
                } else {
                    rejected.incrementAndGet();
                }
            }
        });

        // (admitted + rejected = attempts holds by construction here: the tallies above are the test's own.)
        assertThat(admitted.get()).as("slots were taken").isPositive();
        assertThat(rejected.get()).as("the limit was contended").isPositive();
        assertThat(maxHolding.get()).isBetween(1, limit);
        assertThat(c.inFlight()).isZero();
    }
}
