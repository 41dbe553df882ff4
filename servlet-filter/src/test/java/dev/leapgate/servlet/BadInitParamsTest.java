package dev.leapgate.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.testing.BadSettings;
import jakarta.servlet.ServletException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The shared bad settings ({@link BadSettings}) as the filter's init-params in a real container:
 * each stops the filter's start with the documented problem.
 */
class BadInitParamsTest {

    @ParameterizedTest(name = "{0}")
    @FieldSource("dev.leapgate.testing.BadSettings#CASES")
    void aBadInitParam_stopsTheStart_withTheDocumentedProblem(BadSettings.Case bad) throws Exception {
        try (JettyHarness jetty = new JettyHarness(bad.settings()).servlet("/ok", new TestServlets.Text("ok"))) {
            Throwable failure = jetty.startExpectingFailure();

            assertThat(failure)
                    .isInstanceOf(ServletException.class)
                    .hasMessageContaining("in init-params of filter 'leapgate'")
                    .hasMessageContaining("  - " + bad.expected(""));
        }
    }
}
