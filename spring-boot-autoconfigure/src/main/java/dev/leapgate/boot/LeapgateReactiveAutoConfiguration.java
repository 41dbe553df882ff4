package dev.leapgate.boot;

import dev.leapgate.config.ConfigException;
import dev.leapgate.http.HttpGate;
import java.util.List;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Stops the start of a reactive (WebFlux) application that has the starter: Leapgate limits
 * requests with a servlet filter, which a reactive application never runs, so every {@code
 * leapgate.*} rule would protect nothing, silently. {@code leapgate.enabled=false} starts the
 * application without Leapgate; an application that builds its own {@link HttpGate} bean (to decide
 * in a filter of its own) is left alone.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@Conditional(LeapgateEnabledCondition.class)
@ConditionalOnMissingBean(HttpGate.class)
public class LeapgateReactiveAutoConfiguration {

    /**
     * Fails the start once the beans are made. A {@link SmartInitializingSingleton}, which Boot
     * never makes lazy: with {@code spring.main.lazy-initialization} a bean nobody asks for is
     * never made, and the check would never run.
     */
    @Bean
    static SmartInitializingSingleton leapgateNeedsAServletApplication() {
        return () -> {
            throw new ConfigException(
                    "Leapgate's Spring Boot starter",
                    List.of("this is a reactive web application (Spring WebFlux), and the starter limits requests"
                            + " with a servlet filter, which a reactive application never runs: no request would be"
                            + " limited; run the application on a servlet stack (Spring MVC), or set "
                            + LeapgateEnabledCondition.PROPERTY + "=false to start it without Leapgate"));
        };
    }
}
