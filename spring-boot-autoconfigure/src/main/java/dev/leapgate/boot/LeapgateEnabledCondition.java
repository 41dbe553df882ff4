package dev.leapgate.boot;

import dev.leapgate.config.ConfigException;
import java.util.List;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@code leapgate.enabled}: absent or {@code true} turns Leapgate on, {@code false} off (in any
 * case), and any other value stops the application with an error naming it. A typo or a value
 * Spring would read as a boolean another way ({@code off}, {@code no}, {@code 0}) must neither
 * switch protection off silently nor be read as on against what its writer meant.
 */
final class LeapgateEnabledCondition implements Condition {

    static final String PROPERTY = "leapgate.enabled";

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
        String value = context.getEnvironment().getProperty(PROPERTY);
        if (value == null || value.strip().equalsIgnoreCase("true")) {
            return true;
        }
        if (value.strip().equalsIgnoreCase("false")) {
            return false;
        }
        // A ConfigException, as every other invalid leapgate.* value: Boot's failure analysis
        // (LeapgateFailureAnalyzer) explains it, rather than a stack trace.
        throw new ConfigException(
                "Spring properties leapgate.*",
                List.of(PROPERTY + ": '" + value + "' is not allowed; expected true or false (false turns Leapgate"
                        + " off)"));
    }
}
