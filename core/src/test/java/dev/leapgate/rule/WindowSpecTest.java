package dev.leapgate.rule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WindowSpecTest {

    @ParameterizedTest
    @ValueSource(strings = {"PT0.1S", "PT1S", "PT10S", "PT1M", "PT1H", "PT24H"})
    void lengthsFrom100msTo24h_areAccepted(String iso) {
        WindowSpec spec = WindowSpec.of(Duration.parse(iso));

        assertThat(spec.lengthNanos()).isEqualTo(Duration.parse(iso).toNanos());
        assertThat(spec.bucketNanos() * spec.buckets()).isEqualTo(spec.lengthNanos());
        assertThat(spec.mode()).isEqualTo(WindowMode.STRICT);
    }

    @Test
    void lengthBelow100ms_isRejectedWithTheValue() {
        assertThatThrownBy(() -> WindowSpec.of(Duration.ofMillis(99)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be between 100ms and 24h, was 99ms");
    }

    @Test
    void zeroLength_isRejected() {
        assertThatThrownBy(() -> WindowSpec.of(Duration.ZERO))
                .hasMessage("window must be between 100ms and 24h, was 0s");
    }

    @Test
    void lengthAbove24h_isRejected() {
        assertThatThrownBy(() -> WindowSpec.of(Duration.ofHours(24).plusSeconds(1)))
                .hasMessage("window must be between 100ms and 24h, was 86401s");
    }

    @Test
    void lengthBeyondWhatNanosecondsHold_isRejectedWithTheValueAsGiven() {
        // Past 292 years a Duration has no nanosecond count: the message still shows the value, not
        // one rounded down to whole hours (which read as another value than the one given).
        assertThatThrownBy(() -> WindowSpec.of(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be between 100ms and 24h, was 9223372036854775807s");
        assertThatThrownBy(() -> WindowSpec.of(Duration.ofSeconds(Long.MAX_VALUE / 60 * 60, 5_000_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be between 100ms and 24h, was 9223372036854775800005ms");
    }

    @Test
    void theMostNegativeLength_isRejectedAsIllegal_notAsAnOverflow() {
        // Duration.ofSeconds(Long.MIN_VALUE) has no positive counterpart.
        assertThatThrownBy(() -> WindowSpec.of(Duration.ofSeconds(Long.MIN_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be between 100ms and 24h, was -9223372036854775808s");
        assertThatThrownBy(() -> OnExcess.pace(Duration.ofSeconds(Long.MIN_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max-queue must be between 0s and 1m, was -9223372036854775808s");
    }

    @Test
    void bucketCountOutOfRange_isRejected() {
        assertThatThrownBy(() -> WindowSpec.of(Duration.ofSeconds(1), 0))
                .hasMessage("buckets must be between 1 and 1000, was 0");
        assertThatThrownBy(() -> WindowSpec.of(Duration.ofHours(1), 1001))
                .hasMessage("buckets must be between 1 and 1000, was 1001");
    }

    @Test
    void lengthNotDivisibleByBuckets_isRejected() {
        assertThatThrownBy(() -> WindowSpec.of(Duration.ofMillis(100), 7))
                .hasMessage("window 100ms cannot be cut into 7 buckets of equal whole-nanosecond length;"
                        + " choose a bucket count that divides it");
    }

    @Test
    void bucketsShorterThan1ms_areRejected() {
        assertThatThrownBy(() -> WindowSpec.of(Duration.ofMillis(100), 200))
                .hasMessage("buckets must be at least 1ms long, but window 100ms with 200 buckets gives 500us;"
                        + " use at most 100 buckets");
    }

    @Test
    void nullsAreRejectedByName() {
        assertThatThrownBy(() -> new WindowSpec(null, 1, WindowMode.STRICT)).hasMessage("length");
        assertThatThrownBy(() -> new WindowSpec(Duration.ofSeconds(1), 1, null)).hasMessage("mode");
    }

    @Test
    void guaranteedSpan_isWForStrictAndWMinusOneBucketForSliding() {
        assertThat(new WindowSpec(Duration.ofSeconds(10), 5, WindowMode.STRICT).guaranteedSpan())
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(new WindowSpec(Duration.ofSeconds(10), 5, WindowMode.SLIDING).guaranteedSpan())
                .isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void toString_readsLikeConfiguration() {
        assertThat(new WindowSpec(Duration.ofMinutes(1), 60, WindowMode.SLIDING))
                .hasToString("1m in 60 buckets, sliding");
        assertThat(WindowSpec.of(Duration.ofHours(24))).hasToString("24h in 10 buckets, strict");
    }
}
