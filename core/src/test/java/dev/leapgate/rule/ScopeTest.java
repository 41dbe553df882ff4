package dev.leapgate.rule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.testing.Configs;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ScopeTest {

    @Test
    void anOriginGivenToAScopeThatTakesNone_isRefused_namingTheScopeAsConfigurationWritesIt() {
        assertThatThrownBy(() -> new Scope(Scope.Kind.ALL, "10.0.0.1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("scope all takes no origin, was given '10.0.0.1'");
        assertThatThrownBy(() -> new Scope(Scope.Kind.PER_ORIGIN, "10.0.0.1"))
                .hasMessage("scope per-origin takes no origin, was given '10.0.0.1'");
    }

    @Test
    void originScope_needsANonBlankOrigin() {
        assertThatThrownBy(() -> Scope.origin(" ")).hasMessage("scope origin must not be blank");
        assertThatThrownBy(() -> Scope.origin(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("origin");
        assertThat(Scope.origin("batch-job")).hasToString("origin:batch-job");
    }

    @Test
    void originScope_keepsAnAddressInTheCanonicalFormThatIpOriginsAreNamedBy() {
        assertThat(Scope.origin("2001:DB8:0:0::9").origin()).isEqualTo("2001:db8::9");
        assertThat(Scope.origin("::ffff:203.0.113.9").origin()).isEqualTo("203.0.113.9");
        assertThat(Scope.origin("2001:DB8::9")).isEqualTo(Scope.origin("2001:db8::9"));
        assertThat(Scope.origin("batch-job").origin()).isEqualTo("batch-job");
        assertThat(Scope.origin("cafe").origin())
                .as("letters alone: an identifier")
                .isEqualTo("cafe");
    }

    @Test
    void originScope_thatLooksLikeAnAddressButIsNone_isRefusedNamingTheSettingAndTheValue() {
        assertThatThrownBy(() -> Scope.origin("010.0.0.1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("scope origin: invalid IP address '010.0.0.1': ");
    }

    @Test
    void originScope_builtInCode_limitsTheAddressHoweverItIsSpelled() {
        for (String spelled : new String[] {"2001:DB8::9", "2001:db8:0:0::9", "::ffff:203.0.113.9"}) {
            Origin client = Origin.ip(IpAddress.parse(spelled.contains(".") ? "203.0.113.9" : "2001:db8::9"), 64);
            HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(FlowRule.builder("partner")
                            .match("/api/**")
                            .limit(1, WindowSpec.of(Duration.ofSeconds(10)))
                            .scope(Scope.origin(spelled))
                            .build())))
                    .clock(new ManualClock())
                    .build();

            assertThat(gate.enter("GET", "/api/x", client).admitted()).isTrue();
            assertThat(gate.enter("GET", "/api/x", client).admitted())
                    .as("the rule for %s limits %s", spelled, client)
                    .isFalse();
        }
    }

    @Test
    void originListContains_null_isRefusedNamingTheArgument() {
        assertThatThrownBy(() -> OriginList.parse("10.0.0.0/8").contains(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("origin");
    }
}
