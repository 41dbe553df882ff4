package dev.leapgate.boot;

import dev.leapgate.config.ConfigException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@code leapgate.enabled}: absent or {@code true} turns Leapgate on, {@code false} off (in any
 * case), and any other value stops the application with an error naming it. A typo or a value
 * Spring would read as a boolean another way ({@code off}, {@code no}, {@code 0}) must neither
 * switch protection off silently nor be read as on against what its writer meant. That holds in
 * application.yml too, where YAML 1.1 reads an unquoted off, no or n as false: the value as written
 * in the file is checked.
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
            // application.yml is YAML 1.1, which reads off, no and n as false too: the value as
            // written there must be false as well.
            String written = writtenInYaml(context.getEnvironment());
            if (written == null) {
                return false;
            }
            value = written;
        }
        // A ConfigException, as every other invalid leapgate.* value: Boot's failure analysis
        // (LeapgateFailureAnalyzer) explains it, rather than a stack trace.
        throw new ConfigException(
                "Spring properties leapgate.*",
                List.of(PROPERTY + ": '" + value + "' is not allowed; expected true or false (false turns Leapgate"
                        + " off)"));
    }

    /**
     * The value of leapgate.enabled as written in the YAML file it comes from, when YAML 1.1 reads
     * it as false though it is not written false (off, no, n, in any case); null otherwise.
     */
    private static String writtenInYaml(Environment environment) {
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return null;
        }
        ConfigurationProperty property = WrittenYaml.effective(
                ConfigurationPropertySources.get(configurable), ConfigurationPropertyName.of(PROPERTY));
        String token = property == null ? null : WrittenYaml.written(property);
        return token != null && YAML_FALSE.contains(token.toLowerCase(Locale.ROOT)) ? token : null;
    }

    /** What YAML 1.1 reads as false besides false itself (a quoted value is a string, not these). */
    private static final Set<String> YAML_FALSE = Set.of("off", "no", "n");
}
