package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.testing.BadSettings;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The shared bad settings ({@link BadSettings}) through the core's own surfaces: a settings map
 * (with and without a key prefix), a properties text, and a rules file for the cases that belong
 * in one. The servlet filter and the JAX-RS provider run the same cases.
 */
class BadSettingsTest {

    @ParameterizedTest(name = "{0}")
    @FieldSource("dev.leapgate.testing.BadSettings#CASES")
    void aSettingsMap_isRefusedWithTheDocumentedProblem(BadSettings.Case bad) {
        assertThat(ConfigProblems.of(() -> ConfigParser.parse(bad.settings(), "init-params")))
                .anySatisfy(problem -> assertThat(problem).startsWith(bad.expected("")));
        assertThat(ConfigProblems.of(() -> ConfigParser.parse(bad.settings(), "init-params", "app.")))
                .anySatisfy(problem -> assertThat(problem).startsWith(bad.expected("app.")));
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("dev.leapgate.testing.BadSettings#CASES")
    void aPropertiesText_isRefusedWithTheDocumentedProblem(BadSettings.Case bad) {
        assertThat(ConfigProblems.of(() -> ConfigParser.parseProperties(bad.propertiesText(), "leapgate.properties")))
                .anySatisfy(problem -> assertThat(problem).matches("line \\d+: \\Q" + bad.expected("") + "\\E.*"));
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("dev.leapgate.testing.BadSettings#CASES")
    void aRulesFile_isRefusedWithTheDocumentedProblem(BadSettings.Case bad) {
        if (!bad.inRulesFile()) {
            assertThat(ConfigProblems.of(() -> ConfigParser.parseRules(bad.propertiesText(), "rules.properties")))
                    .as("a key that does not belong in a rules file")
                    .anySatisfy(problem -> assertThat(problem).contains(bad.key() + ": "));
            return;
        }
        assertThat(ConfigProblems.of(() -> ConfigParser.parseRules(bad.propertiesText(), "rules.properties")))
                .anySatisfy(problem -> assertThat(problem).matches("line \\d+: \\Q" + bad.expected("") + "\\E.*"));
    }
}
