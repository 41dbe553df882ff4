package dev.leapgate.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.micrometer.LeapgateMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * Two registries of the application's, one primary (Boot makes no composite then, and binds every
 * MeterBinder to each): the README promises the gate's metrics in every registry, also from an
 * application's own LeapgateMetrics bean, which replaces the starter's.
 */
class SeveralRegistriesTest {

    static final SimpleMeterRegistry MAIN = new SimpleMeterRegistry();
    static final SimpleMeterRegistry OTHER = new SimpleMeterRegistry();

    static class TwoRegistries {
        @Bean
        @Primary
        MeterRegistry mainRegistry() {
            return MAIN;
        }

        @Bean
        MeterRegistry otherRegistry() {
            return OTHER;
        }

        @Bean
        LeapgateMetrics shopMetrics(HttpGate gate) {
            return new LeapgateMetrics(gate, Tags.of("application", "shop"));
        }
    }

    @Test
    void anApplicationsOwnLeapgateMetrics_withTwoRegistries_startsAndFillsBoth() {
        Map<String, String> rules = Map.of(
                "leapgate.rule.login.match", "GET /ok",
                "leapgate.rule.login.limit", "2/1m");
        try (BootApps.Running app = BootApps.start(rules, new ManualClock(), TwoRegistries.class)) {
            assertThat(MAIN.find("leapgate.rule.limit").meters()).hasSize(1);
            assertThat(OTHER.find("leapgate.rule.limit").meters()).hasSize(1);
        }
    }
}
