package dev.leapgate.boot;

import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import java.util.List;
import java.util.stream.StreamSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnNotWebApplication;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * Says so at WARN when an application that is no web application (a worker, a batch job, {@code
 * spring.main.web-application-type=none}) has {@code leapgate.*} settings: no servlet filter runs
 * there, so its rules limit nothing, and without this line they would do so silently. Only a
 * warning, unlike in a reactive application ({@link LeapgateReactiveAutoConfiguration}): a test of
 * a web application's beans without a server is such an application too. {@code
 * leapgate.enabled=false} says Leapgate is off on purpose; an application that builds its own
 * {@link HttpGate} bean (to decide in code of its own) is left alone.
 */
@AutoConfiguration
@ConditionalOnNotWebApplication
@Conditional(LeapgateEnabledCondition.class)
@ConditionalOnMissingBean(HttpGate.class)
public class LeapgateNotWebAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(LeapgateNotWebAutoConfiguration.class);

    private static final String PREFIX = "leapgate.";

    private static final ConfigurationPropertyName LEAPGATE = ConfigurationPropertyName.of("leapgate");

    /**
     * Whether {@code name} ({@code leapgate.rule.login.limit}) is one of Leapgate's settings: not
     * an environment variable that only shares the prefix ({@code LEAPGATE_REDIS_SERVER}, which
     * Boot reads as {@code leapgate.redis.server}).
     */
    private static boolean isSetting(String name) {
        String key = name.substring(PREFIX.length());
        return key.startsWith("rule.")
                || key.equals("rules")
                || ConfigParser.settingKeys().contains(key);
    }

    /** Warns once the beans are made; never lazy, as {@link SmartInitializingSingleton}s are not. */
    @Bean
    static SmartInitializingSingleton leapgateLimitsNothingHere(Environment environment) {
        return () -> {
            List<String> settings = StreamSupport.stream(
                            ConfigurationPropertySources.get(environment).spliterator(), false)
                    .filter(IterableConfigurationPropertySource.class::isInstance)
                    .flatMap(source -> ((IterableConfigurationPropertySource) source).stream())
                    .filter(LEAPGATE::isAncestorOf)
                    .map(ConfigurationPropertyName::toString)
                    .filter(LeapgateNotWebAutoConfiguration::isSetting)
                    .distinct()
                    .sorted()
                    .toList();
            if (!settings.isEmpty()) {
                LOG.warn(
                        "Leapgate limits no request here: this is not a web application, so its servlet filter never"
                                + " runs, and the settings {} protect nothing; run the application as a servlet web"
                                + " application, or set {}=false to start it without Leapgate",
                        settings,
                        LeapgateEnabledCondition.PROPERTY);
            }
        };
    }
}
