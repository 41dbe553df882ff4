package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KeyedInFlightCounterTest {

    @Test
    void eachOrigin_hasItsOwnLimit() {
        KeyedInFlightCounter c = new KeyedInFlightCounter(1, 100);

        assertThat(c.tryAcquire(1, 1)).isEqualTo(1);
        assertThat(c.tryAcquire(1, 1)).isZero();
        assertThat(c.tryAcquire(2, 1)).isEqualTo(1);
        c.release(1, 1);
        assertThat(c.tryAcquire(1, 1)).isEqualTo(1);
        assertThat(c.inFlight(1)).isEqualTo(1);
    }

    @Test
    void doubleRelease_isAnError() {
        KeyedInFlightCounter c = new KeyedInFlightCounter(2, 100);
        c.tryAcquire(5, 1);
        c.release(5, 1);

        assertThatThrownBy(() -> c.release(5, 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("released 1 permits for an origin that holds fewer: an acquisition was released twice");
    }

    @Test
    void originsWithRequestsInFlight_areNeverEvicted() {
        KeyedInFlightCounter c = new KeyedInFlightCounter(1, 64);
        for (int key = 0; key < 64; key++) {
            c.tryAcquire(key, 1);
        }

        assertThat(c.tryAcquire(1000, 1)).isEqualTo(KeyedRateCounter.UNTRACKED);
        for (int key = 0; key < 60; key++) {
            c.release(key, 1);
        }
        // Room is made from a sample of 16 entries; with 60 of 64 idle, some are in any sample.
        assertThat(c.tryAcquire(1000, 1))
                .as("an origin with none in flight makes room")
                .isEqualTo(1);
        for (int key = 60; key < 64; key++) {
            assertThat(c.inFlight(key)).as("origin %d keeps its slot", key).isEqualTo(1);
        }
    }

    @Test
    void aNewOrigin_takesTheEntryOfAnIdleOne_usedSinceTheHandLastPassed_ratherThanBeingRefused() {
        KeyedInFlightCounter c = new KeyedInFlightCounter(10, 100); // one segment
        for (long key = 0; key < 20; key++) {
            assertThat(c.tryAcquire(key, 1)).isEqualTo(1); // held: saturated, not used since
        }
        for (long key = 20; key < 100; key++) {
            assertThat(c.tryAcquire(key, 1)).isEqualTo(1);
        }
        for (long key = 20; key < 100; key++) {
            c.release(key, 1); // idle, and used since the hand last passed
        }
        assertThat(c.trackedOrigins()).isEqualTo(100);

        // The hand meets the 16 saturated entries within its first turn, while it only gives the
        // idle ones their second chance: one of those spared must still make room.
        for (long key = 1_000; key < 1_080; key++) {
            assertThat(c.tryAcquire(key, 1)).as("new origin %d", key).isEqualTo(1);
            c.release(key, 1);
        }
        assertThat(c.trackedOrigins()).isEqualTo(100);
        for (long key = 0; key < 20; key++) {
            assertThat(c.inFlight(key))
                    .as("origin %d keeps its request in flight", key)
                    .isEqualTo(1);
        }
    }

    @Test
    void limitBelowOne_isRejected() {
        assertThatThrownBy(() -> new KeyedInFlightCounter(0, 10))
                .hasMessage("concurrency limit must be at least 1, was 0");
        assertThatThrownBy(() -> new KeyedInFlightCounter(1, 0)).hasMessage("max-origins must be at least 1, was 0");
    }
}
