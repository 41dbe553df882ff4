package dev.leapgate.boot;

import dev.leapgate.Clock;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.OriginSource;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.RuleChecks;
import dev.leapgate.servlet.BlockHandler;
import dev.leapgate.servlet.LeapgateFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.cloud.CloudPlatform;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindResult;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Leapgate in a Spring Boot servlet application: an {@link HttpGate} from the {@code leapgate.*}
 * properties ({@link LeapgateProperties}), the Leapgate servlet filter on every request
 * (asynchronous requests included) at {@code leapgate.filter-order}, but not on a management server
 * on a port of its own ({@code management.server.port}), whose requests never reach the filter. The
 * gate's metrics and the Actuator endpoint follow ({@link LeapgateMetricsAutoConfiguration}, {@link
 * LeapgateEndpointAutoConfiguration}). Each backs off when the application defines its own bean of
 * that type; {@code leapgate.enabled=false} turns all of it off (any value but true or false is an
 * error: {@link LeapgateEnabledCondition}).
 *
 * <p>Beans the application may define: a {@link BlockHandler} (how rejections are written), and a
 * {@link Clock} (tests only: a {@code ManualClock}).
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(LeapgateFilter.class)
@Conditional(LeapgateEnabledCondition.class)
@EnableConfigurationProperties(LeapgateProperties.class)
public class LeapgateAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(LeapgateAutoConfiguration.class);

    /** The name of the filter, in the servlet context and Spring's registrations. */
    public static final String FILTER_NAME = "leapgate";

    /** The property that orders Spring Security's filter chain in Spring Boot, and its default. */
    private static final String SECURITY_FILTER_ORDER = "spring.security.filter.order";

    private static final int DEFAULT_SECURITY_FILTER_ORDER = -100;

    /** Spring Security's filter chain, whose presence says that a login may be answered before Leapgate. */
    private static final String SECURITY_CHAIN = "org.springframework.security.web.FilterChainProxy";

    @Bean
    @ConditionalOnMissingBean
    public HttpGate leapgateGate(
            LeapgateProperties properties,
            ObjectProvider<Clock> clock,
            Environment environment,
            ObjectProvider<ServletContext> servletContext) {
        // Requests are keyed below the context path: a rule written with it can never match. The
        // servlet context's is the one in force: in a WAR the container chooses it, and
        // server.servlet.context-path is not read; the property is for a gate made before the server.
        String contextPath = Optional.ofNullable(servletContext.getIfAvailable())
                .map(ServletContext::getContextPath)
                .orElseGet(() -> environment.getProperty("server.servlet.context-path", ""));
        return HttpGate.builder(properties.toConfig(ConfigurationPropertySources.get(environment)))
                .clock(clock.getIfAvailable(Clock::system))
                .check(rules -> RuleChecks.writtenWithPrefix(rules, contextPath, "the context path", path -> false))
                .build();
    }

    /**
     * The starter's filter, which stands down when the application registers a Leapgate filter of
     * its own on the same gate (see {@code StarterRegistration}): a second filter would count every
     * request twice, halving every limit.
     *
     * <p>With an {@code HttpGate} bean of the application's own, the {@code leapgate.*} settings that
     * make a gate are read only if that bean was built from them ({@link LeapgateProperties#toConfig()}):
     * otherwise they would limit nothing, and the start fails, naming them.
     */
    @Bean
    @ConditionalOnMissingBean(name = "leapgateFilterRegistration")
    public FilterRegistrationBean<LeapgateFilter> leapgateFilterRegistration(
            HttpGate gate,
            LeapgateProperties properties,
            ObjectProvider<BlockHandler> blockHandler,
            Environment environment,
            ListableBeanFactory beans) {
        if (!properties.read()) { // the application's own gate, not built from them
            List<String> unread = properties.settings().keySet().stream()
                    .map(key -> LeapgateProperties.PREFIX + key)
                    .toList();
            if (!unread.isEmpty()) {
                throw new ConfigException(
                        LeapgateProperties.SOURCE,
                        List.of(String.join(", ", unread) + ": not applied: the application defines its own"
                                + " HttpGate bean, which the starter's filter, metrics and endpoint use instead of a"
                                + " gate made from the leapgate.* properties; remove these properties, or build the"
                                + " bean from them (LeapgateProperties.toConfig())"));
            }
        }
        FilterRegistrationBean<LeapgateFilter> registration = new StarterRegistration(
                LeapgateFilter.forGate(gate, blockHandler.getIfAvailable(() -> BlockHandler.STANDARD)), beans);
        registration.setName(FILTER_NAME);
        registration.setAsyncSupported(true);
        registration.setOrder(filterOrder(gate, environment));
        String unlimited = answeredBeforeIt(
                gate,
                environment,
                ClassUtils.isPresent(SECURITY_CHAIN, LeapgateAutoConfiguration.class.getClassLoader()));
        if (unlimited != null) {
            LOG.warn(unlimited);
        }
        String chosenPeer = peerFromForwardedHeaders(environment, ClassUtils.isPresent(TOMCAT, null));
        if (chosenPeer != null) {
            LOG.warn(chosenPeer);
        }
        registration.addUrlPatterns("/*");
        // Forwards and async dispatches too: behind a filter ordered before this one that forwards
        // (a URL rewriter) or dispatches asynchronously before the chain reaches it, a request never
        // passes the REQUEST dispatch here. The filter limits a request once, in the first of its
        // dispatches it sees; a forward or async dispatch of a request it decided (a WAR's
        // ErrorPageFilter forwarding to /error after the chain returned) is not counted again.
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.FORWARD, DispatcherType.ASYNC);
        return registration;
    }

    /**
     * The starter's registration of its filter, which is not registered when the application's
     * beans hold another Leapgate filter (a registration's, or a filter bean, whatever its declared
     * type) on the starter's gate, or on a gate it builds for itself (known only once it starts):
     * asked when Boot registers the filters, by then all made. A filter of the application's on a
     * gate of its own (one for an admin area, say) leaves the starter's in place: without it, the
     * rules of the {@code leapgate.*} properties would limit nothing.
     */
    static final class StarterRegistration extends FilterRegistrationBean<LeapgateFilter> {
        private final ListableBeanFactory beans;

        StarterRegistration(LeapgateFilter filter, ListableBeanFactory beans) {
            super(filter);
            this.beans = beans;
        }

        @Override
        public boolean isEnabled() {
            if (!super.isEnabled()) {
                return false;
            }
            String other = otherLeapgateFilter();
            if (other == null) {
                return true;
            }
            LOG.info(
                    "Leapgate: the application registers a Leapgate filter of its own ({}); the starter's is not"
                            + " registered, so that each request is counted once",
                    other);
            return false;
        }

        @SuppressWarnings("rawtypes")
        private String otherLeapgateFilter() {
            for (Map.Entry<String, FilterRegistrationBean> bean : beans.getBeansOfType(
                            FilterRegistrationBean.class, false, false)
                    .entrySet()) {
                if (bean.getValue() != this && onThisGate(bean.getValue().getFilter())) {
                    return "the registration '" + bean.getKey() + "'";
                }
            }
            for (Map.Entry<String, Filter> bean :
                    beans.getBeansOfType(Filter.class, false, false).entrySet()) {
                if (onThisGate(bean.getValue())) {
                    return "the filter bean '" + bean.getKey() + "'";
                }
            }
            return null;
        }

        /** Whether {@code filter} is a Leapgate filter on this one's gate, or on one it builds itself. */
        private boolean onThisGate(Filter filter) {
            return filter instanceof LeapgateFilter other
                    && (other.gate() == null || other.gate() == getFilter().gate());
        }
    }

    /**
     * The warning for a filter that {@link #filterOrder} put after Spring Security's chain ({@code
     * origin = principal}, no {@code leapgate.filter-order}) where the chain is there: the requests
     * it answers itself (a form login's POST, a failed HTTP Basic authentication) never reach
     * Leapgate, so no rule limits guessing passwords. Null otherwise; an order given says that the
     * application has placed the filter on purpose.
     */
    static String answeredBeforeIt(HttpGate gate, Environment environment, boolean springSecurity) {
        if (!springSecurity
                || gate.origin().kind() != OriginSource.Kind.PRINCIPAL
                || Binder.get(environment)
                        .bind("leapgate.filter-order", Integer.class)
                        .isBound()) {
            return null;
        }
        return "Leapgate: origin = principal places the filter just after Spring Security's filter chain (order "
                + filterOrder(gate, environment) + "), where the user is known; the requests the chain answers"
                + " itself (a form login's POST, a failed HTTP Basic authentication) never reach it, so no"
                + " leapgate.* rule limits guessing passwords. Limit those by address with a LeapgateFilter on a"
                + " gate of its own registered before the chain, and set leapgate.filter-order to say that the"
                + " order is meant (README, Spring Boot)";
    }

    /**
     * {@code leapgate.filter-order} as given; without it, before Spring Security's filter chain (at
     * {@link LeapgateProperties#DEFAULT_FILTER_ORDER}, or just before the chain where {@code
     * spring.security.filter.order} puts it earlier: the requests the chain answers itself, a form
     * login's POST, would pass no rule), but when the gate counts by {@code origin = principal} (from
     * the properties, or the application's own gate) just after it: before it no user is
     * authenticated yet, and every request would silently be counted by its IP address, all users
     * behind one address sharing one limit.
     */
    static int filterOrder(HttpGate gate, Environment environment) {
        Binder binder = Binder.get(environment);
        BindResult<Integer> order = binder.bind("leapgate.filter-order", Integer.class);
        if (order.isBound()) {
            return order.get();
        }
        int security = binder.bind(SECURITY_FILTER_ORDER, Integer.class).orElse(DEFAULT_SECURITY_FILTER_ORDER);
        if (gate.origin().kind() != OriginSource.Kind.PRINCIPAL) {
            // At Integer.MIN_VALUE, - 1 would wrap around to the very last order.
            return Math.min(
                    LeapgateProperties.DEFAULT_FILTER_ORDER, security == Integer.MIN_VALUE ? security : security - 1);
        }
        // At Integer.MAX_VALUE, + 1 would wrap around to the very first order.
        return security == Integer.MAX_VALUE ? security : security + 1;
    }

    /** Tomcat's class, present where Spring Boot runs on Tomcat. */
    private static final String TOMCAT = "org.apache.catalina.startup.Tomcat";

    /**
     * The warning for a container that sets each request's peer address from its forwarding headers:
     * {@code server.forward-headers-strategy = native}, which Spring Boot also chooses by itself, when
     * the property is not set, on a cloud platform it detects (Kubernetes, in every pod; Cloud Foundry,
     * Heroku, ...). Tomcat's {@code RemoteIpValve} then believes {@code X-Forwarded-For} from any peer in
     * a private range (its default {@code internal-proxies}), Jetty from any peer: a client that
     * reaches the application from there (another pod) chooses the address that every per-origin rule
     * counts and that {@code status-allow} checks, and Leapgate cannot tell (the container has taken
     * the header away). Null otherwise, and on Tomcat where {@code
     * server.tomcat.remoteip.internal-proxies} names the proxies.
     */
    static String peerFromForwardedHeaders(Environment environment, boolean tomcat) {
        Binder binder = Binder.get(environment);
        String strategy =
                binder.bind("server.forward-headers-strategy", String.class).orElse(null);
        CloudPlatform platform = CloudPlatform.getActive(environment);
        boolean chosenByBoot = strategy == null && platform != null && platform.isUsingForwardHeaders();
        if (!chosenByBoot && !"native".equalsIgnoreCase(strategy)
                || tomcat
                        && binder.bind("server.tomcat.remoteip.internal-proxies", String.class)
                                .isBound()) {
            return null;
        }
        return "Leapgate: "
                + (chosenByBoot
                        ? "on " + platform + " Spring Boot sets server.forward-headers-strategy to native, and"
                        : "with server.forward-headers-strategy = native")
                + " the container sets each request's peer address from X-Forwarded-For ("
                + (tomcat ? "Tomcat's RemoteIpValve for any peer in a private range" : "for any peer")
                + "): a client that reaches the application from there chooses the address that per-origin rules"
                + " count and status-allow checks. Set server.forward-headers-strategy = none and name your proxies"
                + " in leapgate.trusted-proxies"
                + (tomcat ? ", or name them in server.tomcat.remoteip.internal-proxies" : "")
                + " (README, Client IP)";
    }
}
