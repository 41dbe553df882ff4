package dev.leapgate.boot;

import dev.leapgate.http.HttpGate;
import dev.leapgate.micrometer.LeapgateMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The gate's metrics ({@link LeapgateMetrics}) in every Micrometer registry of the application: a
 * binder that binds a metrics object of its own to each registry Boot hands it.
 */
@AutoConfiguration(after = LeapgateAutoConfiguration.class)
@ConditionalOnClass({MeterRegistry.class, LeapgateMetrics.class})
@ConditionalOnBean(HttpGate.class)
public class LeapgateMetricsAutoConfiguration {

    /**
     * Backs off for the application's own {@link LeapgateMetrics} bean (such as one with tags of its
     * own): Boot binds that one too, and every meter would be there twice.
     */
    @Bean
    @ConditionalOnMissingBean(value = LeapgateMetrics.class, name = "leapgateMetrics")
    public MeterBinder leapgateMetrics(HttpGate gate) {
        return registry -> new LeapgateMetrics(gate).bindTo(registry);
    }
}
