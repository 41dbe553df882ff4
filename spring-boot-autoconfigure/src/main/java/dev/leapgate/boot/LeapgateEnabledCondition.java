package dev.leapgate.boot;

import dev.leapgate.config.ConfigException;
import java.util.List;
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
        if (value == null) {
            return true;
        }
        if (value.strip().equalsIgnoreCase("true")) {
            // yes, on and y, which YAML 1.1 reads as true, are refused as in any other file.
            String written = writtenInYaml(context.getEnvironment());
            if (written == null || written.equalsIgnoreCase("true")) {
                return true;
            }
            throw new ConfigException("Spring properties leapgate.*", List.of(notAllowed(written)));
        }
        // A ConfigException, as every other invalid leapgate.* value: Boot's failure analysis
        // (LeapgateFailureAnalyzer) explains it, rather than a stack trace.
        String problem =
                value.strip().equalsIgnoreCase("false") ? notWrittenFalse(context.getEnvironment()) : notAllowed(value);
        if (problem == null) {
            return false;
        }
        throw new ConfigException("Spring properties leapgate.*", List.of(problem));
    }

    private static ConfigurationProperty property(ConfigurableEnvironment environment) {
        return WrittenYaml.effective(
                ConfigurationPropertySources.get(environment), ConfigurationPropertyName.of(PROPERTY));
    }

    /** leapgate.enabled as written in the file it was read from as a boolean; null if unknown. */
    private static String writtenInYaml(Environment environment) {
        ConfigurationProperty property =
                environment instanceof ConfigurableEnvironment configurable ? property(configurable) : null;
        return property == null ? null : WrittenYaml.written(property);
    }

    private static String notAllowed(String value) {
        return PROPERTY + ": '" + value + "' is not allowed; expected true or false (false turns Leapgate off)";
    }

    /**
     * Why leapgate.enabled, read as false, is not written false: application.yml is YAML 1.1, which
     * reads off, no and n as false too, so a boolean read from a file must be written false there.
     * One whose text cannot be found there (a file changed since) is refused too: protection is not
     * switched off on a guess. Null when it is written false, or is text (a properties file, a
     * command-line argument), or comes from no file (JSON in {@code SPRING_APPLICATION_JSON}).
     */
    private static String notWrittenFalse(Environment environment) {
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return null;
        }
        ConfigurationProperty property = property(configurable);
        if (property == null || property.getValue() instanceof CharSequence || !WrittenYaml.fromFile(property)) {
            return null;
        }
        String token = WrittenYaml.written(property);
        if (token != null && token.equalsIgnoreCase("false")) {
            return null;
        }
        return token != null
                ? notAllowed(token)
                : PROPERTY + ": read by YAML as false from " + WrittenYaml.place(property)
                        + ", where it is not found written false; write true or false (false turns Leapgate off)";
    }
}
