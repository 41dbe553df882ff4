package dev.leapgate.boot;

import dev.leapgate.http.HttpGate;
import dev.leapgate.micrometer.LeapgateMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * The gate's metrics ({@link LeapgateMetrics}) in every Micrometer registry of the application: a
 * binder that binds a metrics object of its own to each registry Boot hands it, and closes them
 * (their meters leave the registries) when the context closes.
 */
@AutoConfiguration(after = LeapgateAutoConfiguration.class)
@ConditionalOnClass({MeterRegistry.class, LeapgateMetrics.class})
@ConditionalOnBean(HttpGate.class)
@Conditional(LeapgateEnabledCondition.class)
public class LeapgateMetricsAutoConfiguration {

    /**
     * Backs off for the application's own {@link LeapgateMetrics} bean (such as one with tags of its
     * own): Boot binds that one too, and every meter would be there twice. (Spring closes that one
     * with the context, as it closes any {@link AutoCloseable} bean.) A bean declared as a {@code
     * MeterBinder} shows its type only once made, which the condition cannot see: this binder then
     * binds nothing.
     */
    @Bean
    @ConditionalOnMissingBean(value = LeapgateMetrics.class, name = "leapgateMetrics")
    public MeterBinder leapgateMetrics(HttpGate gate, ListableBeanFactory beans) {
        return new MetricsPerRegistry(gate, beans);
    }

    /**
     * One {@link LeapgateMetrics} per registry (each binds to one registry only), all closed with
     * the context: Boot's own registries close with it too, but a registry that outlives the
     * context (a JVM-wide one) would otherwise keep this gate's meters, and give them back to the
     * next application's binder instead of its own.
     *
     * <p>Concurrency: Boot binds and Spring closes on their own threads; both hold this object's
     * lock.
     */
    static final class MetricsPerRegistry implements MeterBinder, AutoCloseable {
        private final HttpGate gate;
        private final ListableBeanFactory beans;
        private final List<LeapgateMetrics> bound = new ArrayList<>(); // guarded by this

        MetricsPerRegistry(HttpGate gate, ListableBeanFactory beans) {
            this.gate = gate;
            this.beans = beans;
        }

        @Override
        public synchronized void bindTo(MeterRegistry registry) {
            if (beans.getBeansOfType(MeterBinder.class, false, false).values().stream()
                    .anyMatch(LeapgateMetrics.class::isInstance)) {
                return; // the application's own, which Boot binds too (see leapgateMetrics)
            }
            LeapgateMetrics metrics = new LeapgateMetrics(gate);
            bound.add(metrics);
            metrics.bindTo(registry);
        }

        @Override
        public synchronized void close() {
            bound.forEach(LeapgateMetrics::close);
            bound.clear();
        }
    }
}
