package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.net.ClientIpResolver;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The value types the parser produces validate themselves as well. */
class ConfigValuesTest {

    @Test
    void responseSettings_rejectAStatusOutside400To599() {
        assertThat(new ResponseSettings(599, 451, RateLimitHeaders.NONE, false).status())
                .isEqualTo(599);
        assertThatThrownBy(() -> new ResponseSettings(302, 403, RateLimitHeaders.ALL, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("status must be between 400 and 599, was 302");
    }

    @Test
    void originSource_spellsItselfAsConfigured_andChecksTheHeaderName() {
        assertThat(OriginSource.ip()).hasToString("ip");
        assertThat(OriginSource.principal()).hasToString("principal");
        assertThat(OriginSource.header("X-Api-Key")).hasToString("header:X-Api-Key");
        assertThat(OriginSource.header("X-Api-Key")).isEqualTo(OriginSource.header("X-Api-Key"));
        assertThatThrownBy(() -> OriginSource.header("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OriginSource(OriginSource.Kind.IP, "X-Api-Key"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void leapgateConfig_refusesRulesInlineAndFromAFile() {
        RuleSet inline =
                RuleSet.of(FlowRule.builder("a").match("/a").inFlight(1).build());

        assertThatThrownBy(() -> new LeapgateConfig(
                        inline,
                        Optional.of(Path.of("rules.properties")),
                        Duration.ofSeconds(5),
                        ClientIpResolver.builder().build(),
                        OriginSource.ip(),
                        ResponseSettings.defaults(),
                        MonitoringSettings.defaults(),
                        java.util.Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rules come either inline or from rules-file rules.properties, not both");
    }

    @Test
    void configException_singleProblem_isSingular_andProblemsAreACopy() {
        List<String> problems = new java.util.ArrayList<>(List.of("status: must be between 400 and 599, was 200"));
        ConfigException e = new ConfigException("web.xml", problems);
        problems.add("later");

        assertThat(e).hasMessage("1 problem in web.xml:\n  - status: must be between 400 and 599, was 200");
        assertThat(e.problems()).hasSize(1);
        assertThatThrownBy(() -> new ConfigException("web.xml", List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
