package dev.leapgate.rule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link OnExcess#of}: the defaults of each kind, and settings a kind does not use refused. */
class OnExcessTest {

    @Test
    void of_fillsInTheDefaultsOfTheSettingsTheKindUses_andNothingElse() {
        assertThat(OnExcess.of(OnExcess.Kind.REJECT, null, 0, null, null)).isEqualTo(OnExcess.reject());
        assertThat(OnExcess.of(OnExcess.Kind.PACE, null, 0, null, null))
                .isEqualTo(OnExcess.pace(OnExcess.DEFAULT_MAX_QUEUE));
        assertThat(OnExcess.of(OnExcess.Kind.WARM_UP, null, 0, null, null))
                .isEqualTo(OnExcess.warmUp(OnExcess.DEFAULT_COLD_FACTOR, OnExcess.DEFAULT_WARM_UP));
        assertThat(OnExcess.of(OnExcess.Kind.WARM_UP_PACE, Duration.ofMillis(20), 0, null, null))
                .isEqualTo(OnExcess.warmUpPace(
                        OnExcess.DEFAULT_COLD_FACTOR, OnExcess.DEFAULT_WARM_UP, Duration.ofMillis(20)));
        assertThat(OnExcess.of(OnExcess.Kind.BORROW, null, 0, null, Duration.ZERO))
                .isEqualTo(OnExcess.borrow(Duration.ZERO));
    }

    @Test
    void of_refusesASettingTheKindDoesNotUse_withItsName() {
        assertThatThrownBy(() -> OnExcess.of(OnExcess.Kind.REJECT, Duration.ofMillis(5), 0, null, null))
                .hasMessage("max-queue does not apply to on-excess reject");
        assertThatThrownBy(() -> OnExcess.of(OnExcess.Kind.PACE, null, 2.0, null, null))
                .hasMessage("cold-factor applies only to warm-up, not to pace");
        assertThatThrownBy(() -> OnExcess.of(OnExcess.Kind.BORROW, null, 0, Duration.ofSeconds(1), null))
                .hasMessage("warm-up does not apply to on-excess borrow");
    }

    @Test
    void warmUpOutOfRange_isRefused_withTheRangeThatHolds() {
        for (Duration bad : new Duration[] {Duration.ofSeconds(-1), Duration.ZERO, Duration.ofMinutes(2)}) {
            assertThatThrownBy(() -> OnExcess.warmUp(3, bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("warm-up must be longer than 0s and at most 1m, was ");
        }
        assertThatThrownBy(() -> OnExcess.pace(Duration.ofMillis(-1)))
                .hasMessage("max-queue must be between 0s and 1m, was -1ms");
        assertThat(OnExcess.pace(Duration.ZERO).maxQueue()).isZero();
    }

    @Test
    void toString_writesDurationsAsTheConfigurationDoes() {
        assertThat(OnExcess.warmUpPace(3, Duration.ofSeconds(10), Duration.ofMillis(500)))
                .hasToString("warm-up-pace cold-factor=3.0 warm-up=10s max-queue=500ms");
        assertThat(OnExcess.borrow(Duration.ofMillis(250))).hasToString("borrow max-wait=250ms");
        assertThat(OnExcess.reject()).hasToString("reject");
    }

    @Test
    void eachParameter_namesTheKindsThatUseIt() {
        for (OnExcess.Parameter parameter : OnExcess.Parameter.values()) {
            for (OnExcess.Kind kind : OnExcess.Kind.values()) {
                boolean given;
                try {
                    OnExcess.of(
                            kind,
                            parameter == OnExcess.Parameter.MAX_QUEUE ? Duration.ofMillis(1) : null,
                            parameter == OnExcess.Parameter.COLD_FACTOR ? 2.0 : 0,
                            parameter == OnExcess.Parameter.WARM_UP ? Duration.ofSeconds(1) : null,
                            parameter == OnExcess.Parameter.MAX_WAIT ? Duration.ofMillis(1) : null);
                    given = true;
                } catch (IllegalArgumentException doesNotApply) {
                    given = false;
                }
                assertThat(parameter.appliesTo(kind))
                        .as("%s on %s", parameter.key(), kind)
                        .isEqualTo(given);
            }
        }
    }
}
