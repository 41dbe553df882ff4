package dev.leapgate.jaxrs;

import dev.leapgate.config.ConfigException;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.config.OriginSource;
import dev.leapgate.config.ReloadingRules;
import dev.leapgate.http.HttpGate;
import dev.leapgate.rule.RuleSet;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.RuntimeType;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.WriterInterceptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leapgate for a JAX-RS application, on any JAX-RS 3.1 runtime (Jersey, RESTEasy, Apache CXF):
 * register this one provider and every request is checked against the configured rules and the
 * {@link RateLimited} annotations.
 *
 * <pre>{@code
 * new ResourceConfig().register(LeapgateFeature.class)             // Jersey, in code
 * public Set<Class<?>> getClasses() { ... LeapgateFeature.class ... } // any runtime, in the Application
 * }</pre>
 *
 * or by the runtime's provider scanning or settings (Jersey: {@code
 * jersey.config.server.provider.classnames}; RESTEasy: {@code resteasy.providers}; CXF: {@code
 * jaxrs.providers}). The configuration is the servlet filter's, with every key prefixed {@code
 * leapgate.} in the application's properties ({@code Application.getProperties()}, or the Jersey
 * servlet's init-params), or in a file named by {@code leapgate.config-file}; see {@code
 * jaxrs-filter/README.md}.
 *
 * <p>What it registers, from the standard API alone: a request and response filter that runs
 * after resource matching, keyed by the HTTP method and route template ({@code GET /users/{id}},
 * never the raw URL), which also sees each response; a {@code
 * DynamicFeature} that turns {@link RateLimited} into rules while the application starts, on root
 * resources and, through their sub-resource locators, on sub-resources. Where
 * their classes are present, optional adapters: Jersey's request events ({@code JerseyEvents}) and
 * a servlet container's request listener ({@link LeapgateServletInitializer}) report the end of
 * every request, and the servlet request gives the peer's address; where neither does, on CXF
 * and on RESTEasy in a servlet container, a writer interceptor ends a request when its entity has
 * been written ({@code WriteEnd}; RESTEasy on Vert.x or Netty refuses blocking writes on its I/O
 * threads once one is registered, and gets none: on Vert.x, Vert.x's end of the response ends a
 * request, {@code VertxEnd}). The filter runs before
 * authentication filters, so that a flood is turned away before credentials are checked; with
 * {@code origin=principal} it runs right after them, since it needs the user.
 */
@Provider
public final class LeapgateFeature implements Feature {

    /** The property holding the application's Leapgate state, read by {@link #gate(Configuration)}. */
    static final String STATE = "dev.leapgate.jaxrs.state";

    private static final Logger LOG = LoggerFactory.getLogger(LeapgateFeature.class);
    private static final String SERVLET_REQUEST = "jakarta.servlet.http.HttpServletRequest";
    private static final String JERSEY_EVENTS = "org.glassfish.jersey.server.monitoring.ApplicationEventListener";
    private static final String RESTEASY_REQUEST = "org.jboss.resteasy.spi.HttpRequest";
    private static final String RESTEASY_DEPLOYMENT = "org.jboss.resteasy.spi.ResteasyDeployment";
    private static final String RESTEASY_ASYNC_WRITER = "org.jboss.resteasy.spi.AsyncWriterInterceptor";
    private static final String GRIZZLY_REQUEST = "org.glassfish.grizzly.http.server.Request";
    private static final String VERTX_RESPONSE = "io.vertx.core.http.HttpServerResponse";
    private static final String CXF_BUS = "org.apache.cxf.Bus";

    private final LeapgateConfig config;

    /**
     * The application, injected before {@link #configure}, for its resource classes and properties;
     * null where the runtime serves resources without one (CXF's {@code jaxrs.serviceClasses},
     * RESTEasy's {@code resteasy.resources}, whose classes {@link ResteasyResources} reads instead).
     */
    @Context
    private Application jaxrsApplication;

    /** The application this instance configured, or null before; for tests on every runtime. */
    private volatile ApplicationGate configured;

    /** Reads the configuration from the application's properties when the application starts. */
    public LeapgateFeature() {
        this.config = null;
    }

    /** Uses {@code config}; the application's {@code leapgate.*} settings must then be absent. */
    public LeapgateFeature(LeapgateConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * @throws dev.leapgate.config.ConfigException if the configuration is invalid, which fails the
     *     application's start
     */
    @Override
    public boolean configure(FeatureContext context) {
        Configuration configuration = context.getConfiguration();
        if (configuration.getRuntimeType() != RuntimeType.SERVER) {
            return false;
        }
        if (configuration.getProperty(STATE) != null) {
            LOG.warn("Leapgate JAX-RS: LeapgateFeature is registered more than once; using the first");
            return false;
        }
        ProviderSettings settings = ProviderSettings.read(configuration, config);
        // The rules the configuration gives: a rules file's as it is now, read here (and again when
        // the gate is built) so that an annotation that clashes with one fails the start on every
        // runtime, not only where the gate is built at the start (Jersey).
        RuleSet given = settings.config()
                .rulesFile()
                .map(file ->
                        ReloadingRules.load(file, settings.config().origin()).rules())
                .orElse(settings.config().rules());
        AnnotationRules annotations =
                new AnnotationRules(given.rules(), settings.config().origin(), given.exempt());
        // Jersey and RESTEasy show the DynamicFeature no root resource that has locators alone: the
        // application's classes are walked now, and RESTEasy's own (resteasy.resources, without an
        // Application subclass) from its deployment.
        if (jaxrsApplication != null) {
            warnIfPropertiesUnseen(configuration);
            annotations.walk(classesOf(jaxrsApplication));
        }
        if (present(RESTEASY_DEPLOYMENT)) {
            annotations.walk(ResteasyResources.of(configuration));
        }
        ApplicationGate application = new ApplicationGate(settings, annotations);
        // RESTEasy in a servlet container: the gate's close with the servlet context (a gate built
        // before any request, by gate(Configuration) at the start, would otherwise stay open with
        // its store; Jersey reports the application's end itself, JerseyEvents; CXF below).
        boolean resteasyInServlet = present(RESTEASY_DEPLOYMENT)
                && servletApiPresent()
                && ResteasyServletContext.closeWith(configuration, application);
        // Jersey reports every request's end after its response is written (JerseyEvents); on CXF,
        // and RESTEasy in a servlet container, a writer interceptor sees the entity's write end
        // (WriteEnd). Not on RESTEasy outside one (Vert.x, Netty): with any writer interceptor
        // registered, it refuses a blocking write (a StreamingOutput, Jackson) on its I/O thread,
        // which it otherwise moves to a worker thread; there Vert.x's end of the response ends a
        // request (VertxEnd), or else the response filter.
        boolean endsAfterWrite = !present(JERSEY_EVENTS) && (!present(RESTEASY_DEPLOYMENT) || resteasyInServlet);
        GateFilter filter = servletApiPresent()
                ? new ServletGateFilter(
                        application,
                        endsAfterWrite,
                        resteasyInServlet ? ResteasyServletContext.requestOnThisThread(configuration) : null)
                : new GateFilter(application, endsAfterWrite);
        int priority = settings.config().origin().kind() == OriginSource.Kind.PRINCIPAL
                ? Priorities.AUTHENTICATION + 100
                : Priorities.AUTHENTICATION - 100;
        context.register(
                filter, Map.of(ContainerRequestFilter.class, priority, ContainerResponseFilter.class, priority));
        if (endsAfterWrite) {
            // Outermost (writer interceptors run by ascending priority): it sees the whole write.
            // Two calls, not one with `? :`: the verifier would load ResteasyWriteEnd (whose
            // interface is RESTEasy's) to merge the two types, and fail where RESTEasy is absent.
            Map<Class<?>, Integer> outermost = Map.of(WriterInterceptor.class, Integer.MIN_VALUE);
            if (present(RESTEASY_ASYNC_WRITER)) {
                context.register(new ResteasyWriteEnd(), outermost);
            } else {
                context.register(new WriteEnd(), outermost);
            }
        }
        if (settings.config().monitoring().statusPath().isPresent()) {
            if (!servletApiPresent()) {
                throw new ConfigException(
                        "LeapgateFeature",
                        List.of(ProviderSettings.PREFIX + "status-path: the status is answered only in a servlet"
                                + " container, whose requests give the peer's address; there is no Servlet API here"));
            }
            context.register(new StatusFilter(application));
        }
        context.register(annotations);
        // The adapters, each loaded only where its runtime's classes are (they name them).
        if (present(JERSEY_EVENTS)) {
            context.register(new JerseyEvents(application));
        }
        if (present(RESTEASY_REQUEST)) {
            context.register(new ResteasyPeer()); // pre-matching: before the gate's filter
        }
        if (present(RESTEASY_DEPLOYMENT) && !resteasyInServlet && present(VERTX_RESPONSE)) {
            context.register(new VertxEnd()); // pre-matching: the request's end, before the gate's filter
        }
        if (present(JERSEY_EVENTS) && present(GRIZZLY_REQUEST)) {
            context.register(new GrizzlyPeer());
        }
        if (present(CXF_BUS)) {
            CxfBus.closeWith(application);
        }
        context.property(STATE, application);
        configured = application;
        return true;
    }

    /** The application's classes and the classes of its singletons. */
    @SuppressWarnings("deprecation") // getSingletons(): deprecated in Jakarta REST 3.1, still served by every runtime
    private static List<Class<?>> classesOf(Application application) {
        List<Class<?>> classes = new ArrayList<>(application.getClasses());
        application.getSingletons().forEach(singleton -> classes.add(singleton.getClass()));
        return classes;
    }

    /**
     * Warns, once, of {@code leapgate.*} properties of the application that the runtime's
     * configuration lacks: RESTEasy configures a provider named in {@code resteasy.providers} before
     * it applies the application's properties, so the provider never sees them.
     */
    private void warnIfPropertiesUnseen(Configuration configuration) {
        List<String> unseen = ProviderSettings.unseen(jaxrsApplication.getProperties(), configuration);
        if (!unseen.isEmpty()) {
            LOG.warn(
                    "Leapgate JAX-RS: the application's properties {} are not in the runtime's configuration when the"
                            + " provider starts, so they are ignored (RESTEasy configures a provider named in"
                            + " resteasy.providers before it applies the application's properties); list {} among the"
                            + " application's classes (Application.getClasses()) instead",
                    String.join(", ", unseen),
                    LeapgateFeature.class.getName());
        }
    }

    /**
     * The {@link HttpGate} of the application with this configuration (inject it with {@code @Context
     * Configuration}): for statistics ({@code gate.stats()}) and rule updates. Empty
     * before the application has started, without this feature, or when there is nothing to
     * enforce.
     */
    public static Optional<HttpGate> gate(Configuration configuration) {
        ApplicationGate application = configuration.getProperty(STATE) instanceof ApplicationGate a ? a : null;
        if (application == null) {
            // CXF keeps a feature's properties out of the configuration its resources see; the
            // provider instances are in it.
            for (Object instance : configuration.getInstances()) {
                if (instance instanceof LeapgateFeature feature && feature.configured != null) {
                    application = feature.configured;
                } else if (instance instanceof GateFilter filter) {
                    application = filter.application();
                }
            }
        }
        return application == null ? Optional.empty() : Optional.ofNullable(application.gate());
    }

    /** The application this instance configured; for tests. */
    ApplicationGate application() {
        return configured;
    }

    /** The gate of the application this instance configured, as {@link #gate(Configuration)} gives it. */
    Optional<HttpGate> gate() {
        ApplicationGate application = configured;
        return application == null ? Optional.empty() : Optional.ofNullable(application.gate());
    }

    private static boolean servletApiPresent() {
        return present(SERVLET_REQUEST);
    }

    /** Whether {@code className} can be loaded by the provider's class loader. */
    private static boolean present(String className) {
        try {
            Class.forName(className, false, LeapgateFeature.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
