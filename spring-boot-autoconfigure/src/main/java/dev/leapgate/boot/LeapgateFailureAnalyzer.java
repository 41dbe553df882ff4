package dev.leapgate.boot;

import dev.leapgate.config.ConfigException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start that failed on Leapgate's configuration: every problem, each naming its {@code
 * leapgate.} property and the value, and what to do.
 */
class LeapgateFailureAnalyzer extends AbstractFailureAnalyzer<ConfigException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConfigException cause) {
        return new FailureAnalysis(
                "Leapgate's configuration is invalid, so the application would not be protected as" + " configured:\n\n"
                        + cause.getMessage(),
                "Correct the leapgate.* properties (or the rules file) named above; every setting is described"
                        + " in Leapgate's README (Configuration reference) and CONFIGURATION.md.",
                cause);
    }
}
