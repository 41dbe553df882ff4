package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ManualClockTest {

    @Test
    void movesOnlyWhenAdvanced() {
        ManualClock clock = new ManualClock(-5);

        assertThat(clock.nanoTime()).isEqualTo(-5);
        assertThat(clock.advance(Duration.ofMillis(1))).isEqualTo(999_995);
        assertThat(clock.nanoTime()).isEqualTo(999_995);
    }

    @Test
    void negativeStep_isRejectedWithTheValue() {
        ManualClock clock = new ManualClock();

        assertThatThrownBy(() -> clock.advanceNanos(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("step must not be negative, was -1ns");
        assertThat(clock.nanoTime()).isZero();
        // A Duration too long for a long of nanoseconds threw ArithmeticException, a negative one
        // too, before the check (found by a review helper).
        assertThatThrownBy(() -> clock.advance(Duration.ofDays(-200_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("step must not be negative, was PT-4800000H");
        assertThatThrownBy(() -> clock.advance(Duration.ofDays(200_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("step must be at most 9223372036854775807ns (292 years), was PT4800000H");
        assertThat(clock.nanoTime()).isZero();
    }

    @Test
    void systemClock_isMonotonic() {
        Clock clock = Clock.system();
        long previous = clock.nanoTime();
        for (int i = 0; i < 1000; i++) {
            long now = clock.nanoTime();
            assertThat(now).isGreaterThanOrEqualTo(previous);
            previous = now;
        }
    }
}
