package dev.leapgate.rule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void originListContains_null_isRefusedNamingTheArgument() {
        assertThatThrownBy(() -> OriginList.parse("10.0.0.0/8").contains(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("origin");
    }
}
