package dev.leapgate.jaxrs;

import dev.leapgate.Clock;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.RuleChecks;
import dev.leapgate.rule.FlowRule;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JAX-RS application's Leapgate: its {@link HttpGate}, built once every resource method is
 * bound (so that the {@link RateLimited} rules are known), and the safety net for requests whose
 * end nothing reports ({@link Leases}).
 *
 * <p>When the gate is built: where the runtime says that the application has started (Jersey's
 * application events, {@link JerseyEvents}), then; elsewhere, when the first request arrives,
 * since JAX-RS has no start event. Every setting is checked when the application starts on every
 * runtime ({@link ProviderSettings}, each annotation as it is bound); what can only be checked
 * with all rules together (an annotation's rule name also used by the rules file) fails the
 * first request there, and every request after it, rather than let requests through unlimited.
 *
 * <p>When the gate is closed: when the runtime says that the application has stopped (Jersey's
 * events; CXF's bus shutting down), or when the servlet context ends, where the provider's servlet
 * listener is installed ({@link ServletRequests}) and the provider learns the context at the start
 * (RESTEasy's deployment names it) or at the first request. The gate is built on demand also
 * before any request ({@link LeapgateFeature#gate(jakarta.ws.rs.core.Configuration)} at the start),
 * so it is handed to these ends when the application starts, not when it is built.
 *
 * <p>Concurrency: {@link #start} and {@link #close} run under this object's lock, {@code start}
 * once; {@code gate} is volatile and never changes after.
 */
final class ApplicationGate {

    private static final Logger LOG = LoggerFactory.getLogger(ApplicationGate.class);

    /** What a rule that matches no route is told. */
    private static final String ROUTE_HINT = "; the provider's rules match route templates as written in @Path,"
            + " below the servlet's mapping: GET /users/{id}, not a URL (GET /users/42) or a path with the"
            + " servlet's prefix (/api/users/**)";

    /** What an event-stream route is here, for the warning of an in-flight rule over one (see StreamingIT). */
    private static final String EVENT_STREAMS = "a stream of server-sent events, whose request ends here when its"
            + " response has started while the stream goes on (nothing reports the stream's end off a servlet"
            + " container)";

    /** What a route of Jersey's {@code ChunkedOutput} is off a servlet container, for the same warning. */
    private static final String CHUNKED_OUTPUTS = "Jersey's ChunkedOutput, whose request ends here when its response"
            + " has started while the output goes on (nothing reports the output's end off a servlet container)";

    /** The request property under which the filters find the request's {@link RequestTracker}. */
    static final String TRACKER = "dev.leapgate.jaxrs.RequestTracker";

    private final ProviderSettings settings;
    private final AnnotationRules annotations;
    private final StartedClock clock;
    private final Leases leases;
    private final RouteTemplate routes;
    private volatile boolean started;
    private volatile HttpGate gate;
    private RuntimeException failure;
    /** Whether the application has stopped ({@link #close}): no gate is built after, none left open. */
    private boolean closed;
    /** Whether a request has passed the gate's filter: the first one is where a container learns of it. */
    private final AtomicBoolean served = new AtomicBoolean();
    /**
     * The warnings of in-flight rules over streams that end early ({@link #streamEndsEarly}, {@link
     * #outputEndsEarly}), each given once.
     */
    private final Set<String> streamWarnings = ConcurrentHashMap.newKeySet();

    ApplicationGate(ProviderSettings settings, AnnotationRules annotations) {
        this.settings = settings;
        this.annotations = annotations;
        this.routes = new RouteTemplate(annotations);
        this.clock = new StartedClock(settings.clock());
        this.leases = new Leases(settings.clock(), settings.maxRequestTime());
    }

    ProviderSettings settings() {
        return settings;
    }

    /**
     * The request of a stream of server-sent events on {@code route} ({@code "GET /events"}) ended
     * when its response started, while the stream goes on: warns (once for each) of the in-flight
     * rules over that route, which bound the streams being opened rather than those open. Nothing
     * if the route's resource method takes no {@code SseEventSink} (an entity that only says it is
     * an event stream is written, and held, like any other).
     */
    void streamEndsEarly(String route) {
        if (annotations.streamsEvents(route)) {
            warnOfInFlightRules(route, EVENT_STREAMS);
        }
    }

    /**
     * The request of a Jersey {@code ChunkedOutput} on {@code route} ended when its response
     * started, while the output goes on: warns (once for each) of the in-flight rules over that
     * route.
     */
    void outputEndsEarly(String route) {
        warnOfInFlightRules(route, CHUNKED_OUTPUTS);
    }

    private void warnOfInFlightRules(String route, String what) {
        HttpGate built = gate;
        if (built == null) {
            return;
        }
        for (String warning : RuleChecks.inFlightOverEarlyEnds(built.rules(), List.of(route), what)) {
            if (streamWarnings.add(warning)) {
                LOG.warn("Leapgate JAX-RS: {}", warning);
            }
        }
    }

    Leases leases() {
        return leases;
    }

    RouteTemplate routes() {
        return routes;
    }

    /** The gate, or null when there is nothing to enforce; builds it if nothing has. */
    HttpGate gate() {
        if (!started) {
            start();
        }
        return gate;
    }

    /** The gate if it is built, else null; never builds it. */
    HttpGate builtGate() {
        return gate;
    }

    /**
     * Builds the gate from the configuration and the annotations, once. Throws, failing the start
     * (or, where the runtime reports no start, each request), if the rules file cannot be read, or
     * if two rules clash (a name used twice, names that differ only in case, one rule under two
     * names), whether they come from annotations or the configuration.
     */
    synchronized void start() {
        if (started) {
            return;
        }
        if (failure != null) {
            throw failure;
        }
        if (closed) {
            // A gate built now would never be closed: its store's connection and threads would
            // outlive the application.
            throw new IllegalStateException("Leapgate JAX-RS: the application has stopped; its gate is closed");
        }
        try {
            gate = build();
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        }
        started = true;
    }

    private HttpGate build() {
        List<FlowRule> annotated = annotations.close();
        LeapgateConfig config = settings.config();
        // With a sub-resource locator, a gate without rules still has to refuse requests that reach
        // an annotated sub-resource the walk of the locators could not find (AnnotationRules.reached).
        boolean nothingToEnforce = annotated.isEmpty()
                && config.rules().rules().isEmpty()
                && config.rules().deny().isEmpty()
                && config.rulesFile().isEmpty()
                && !annotations.hasLocators();
        if (nothingToEnforce) {
            if (config.rulesNone()) {
                LOG.info("Leapgate JAX-RS: no rule (rules = none) and no @RateLimited resource methods");
            } else {
                LOG.warn("Leapgate JAX-RS: no rule is configured and no resource method is @RateLimited, so every"
                        + " request passes unlimited: give leapgate.rule.<name>.<setting> properties, a rules-file"
                        + " or @RateLimited, or say leapgate.rules = none if there is no rule on purpose");
            }
            return null;
        }
        HttpGate built;
        try {
            List<String> routeList = annotations.routes();
            built = HttpGate.builder(config)
                    .clock(clock)
                    .sleeper(settings.sleeper())
                    .addRules(annotated)
                    .check(rules ->
                            routeList.isEmpty() ? List.of() : RuleChecks.matchingNoRoute(rules, routeList, ROUTE_HINT))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Leapgate: the rules from @RateLimited and the configuration clash: " + e.getMessage()
                            + " (an annotation's rule is named by @RateLimited(name = ...), or after its class"
                            + " and method)",
                    e);
        }
        clock.started();
        int rules = built.rules().rules().size();
        LOG.info(
                "Leapgate JAX-RS: {} rule{} ({} from @RateLimited){}",
                rules,
                rules == 1 ? "" : "s",
                annotated.size(),
                config.rulesFile().map(file -> ", rules file " + file).orElse(""));
        return built;
    }

    /**
     * The gate's clock: while the gate is built, the time the application started (when the
     * provider was configured), so that its windows count from the start on every runtime, also
     * where the gate is built at the first request; the clock itself after.
     */
    private static final class StartedClock implements Clock {
        private final Clock clock;
        private final long startNanos;
        private volatile boolean started;

        StartedClock(Clock clock) {
            this.clock = clock;
            this.startNanos = clock.nanoTime();
        }

        void started() {
            started = true;
        }

        @Override
        public long nanoTime() {
            return started ? clock.nanoTime() : startNanos;
        }
    }

    /** True once, for the first request the filter sees with a gate. */
    boolean firstRequest() {
        return !served.get() && served.compareAndSet(false, true);
    }

    /**
     * Closes the gate (its shared store's connection), if it was built, and has none built after:
     * the application has stopped. Called by whichever of the runtime's ends comes first (Jersey's
     * {@link JerseyEvents}, CXF's {@link CxfBus}, the servlet context's {@link ServletRequests}),
     * possibly by more than one.
     */
    synchronized void close() {
        closed = true;
        HttpGate built = gate;
        if (built != null) {
            built.close();
        }
    }
}
