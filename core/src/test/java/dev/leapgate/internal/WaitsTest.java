package dev.leapgate.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class WaitsTest {

    /**
     * Summed waits outgrow 2^63 ns (292 years) as summed response times do: a paced rule of 1,000
     * per second whose queue stays full at {@code max-queue = 1m} admits 1,000 requests a second
     * that each waited a minute, and sums 2^63 ns of waits in under two days. Here three waits of
     * 98 years each (9.3 * 10^18 ns together), as {@code ResourceRecorderTest} sums response times:
     * the average stays true, never negative.
     */
    @Test
    void averageWait_ofWaitsSummingBeyond2To63Nanoseconds_staysTrue() {
        Waits waits = new Waits();
        long wait = 3_100_000_000_000_000_000L; // 98 years
        for (int i = 0; i < 3; i++) {
            waits.begin();
            waits.end(wait);
            assertThat(waits.read().averageWaitMillis())
                    .as("after %s of them", i + 1)
                    .isCloseTo(wait / 1e6, within(1.0));
        }
        assertThat(waits.read().waited()).isEqualTo(3);
        assertThat(waits.read().waitingNow()).isZero();
    }
}
