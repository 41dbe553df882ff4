package dev.leapgate.boot;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * Explains a start that failed while Boot bound a {@code leapgate.*} property, before Leapgate's
 * own reader saw it: a rule given one value instead of its settings ({@code
 * leapgate.rule.login=POST /login 5/1m}, which Boot reports without the value or a word on how a
 * rule is written), or a {@code leapgate.filter-order} that is not a whole number. Names the
 * property, the value and what to write. Before Boot's analyzers, which would explain it first.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class LeapgateBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> {

    private static final ConfigurationPropertyName RULES = ConfigurationPropertyName.of("leapgate.rule");

    private static final ConfigurationPropertyName FILTER_ORDER = ConfigurationPropertyName.of("leapgate.filter-order");

    private final Environment environment;

    /** Boot passes the application's environment, in which a value Boot's error leaves out is found. */
    LeapgateBindFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
        ConfigurationPropertyName name = cause.getName();
        String problem;
        if (RULES.isParentOf(name)) {
            String rule = name.getLastElement(ConfigurationPropertyName.Form.ORIGINAL);
            problem = name + " = " + value(cause) + " gives the rule '" + rule + "' one value, but a rule is written"
                    + " as its settings, each a property of its own: " + name + ".match, " + name + ".limit and"
                    + " so on" + origin(cause.getProperty());
        } else if (name.equals(FILTER_ORDER)) {
            problem = name + " = " + value(cause) + " is not a whole number; expected the filter's order among the"
                    + " application's filters (" + LeapgateProperties.DEFAULT_FILTER_ORDER + " by default)"
                    + origin(cause.getProperty());
        } else {
            return null; // Leapgate's reader checks every other leapgate.* value, naming it
        }
        return new FailureAnalysis(
                "Leapgate's configuration is invalid, so the application would not be protected as configured:\n\n"
                        + "  - " + problem,
                "Correct the leapgate.* property named above; every setting is described in Leapgate's README"
                        + " (Configuration reference) and CONFIGURATION.md.",
                cause);
    }

    /** The value as written, quoted; from the environment when Boot's error does not hold it. */
    private String value(BindException cause) {
        Object value = cause.getProperty() != null
                ? cause.getProperty().getValue()
                : environment == null
                        ? null
                        : environment.getProperty(cause.getName().toString());
        return value == null ? "(a value of another shape)" : "'" + value + "'";
    }

    private static String origin(ConfigurationProperty property) {
        return property == null || property.getOrigin() == null ? "" : " (" + property.getOrigin() + ")";
    }
}
