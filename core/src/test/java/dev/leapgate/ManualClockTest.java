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
