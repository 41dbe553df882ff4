package dev.leapgate.boot;

import dev.leapgate.http.HttpGate;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/** The Actuator endpoint {@code leapgate} ({@link LeapgateEndpoint}), when Actuator is present and the endpoint available. */
@AutoConfiguration(after = LeapgateAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(HttpGate.class)
@Conditional(LeapgateEnabledCondition.class)
public class LeapgateEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    public LeapgateEndpoint leapgateEndpoint(HttpGate gate) {
        return new LeapgateEndpoint(gate);
    }
}
