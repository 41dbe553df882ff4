package dev.leapgate.jaxrs;

import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.RuleChecks;
import dev.leapgate.rule.FlowRule;
import java.util.List;
import org.glassfish.jersey.server.ContainerRequest;
import org.glassfish.jersey.server.monitoring.ApplicationEvent;
import org.glassfish.jersey.server.monitoring.ApplicationEventListener;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One JAX-RS application's Leapgate: its {@link HttpGate}, built when Jersey has bound every
 * resource method (so that the {@link RateLimited} rules are known), and the release of every
 * admitted request.
 *
 * <h2>Exactly one release per admitted request</h2>
 *
 * JAX-RS has no hook that runs at the end of every request: response filters are skipped for
 * exceptions no mapper handles, and asynchronous resources finish on other threads. Jersey's
 * request events have one: {@link RequestEvent.Type#FINISHED} fires once per request when its
 * processing ends, whichever way it ends (a response, a mapped or unmapped exception, a resumed,
 * cancelled or timed-out {@code AsyncResponse}, a completed {@code CompletionStage}, a failed write
 * to a client that went away). So: for each request Jersey asks {@link #onRequest} for a listener,
 * and gets a fresh {@link RequestTracker}, which it also finds in the request's properties; the
 * filter hands the tracker the {@link dev.leapgate.Entry} it was admitted with, and the tracker
 * closes it on FINISHED. The tracker, not the request, holds the entry: in a servlet container the
 * request's properties are the servlet request's attributes, which the container may recycle as
 * soon as an asynchronous response completes, before FINISHED. Closing an entry is idempotent, so
 * even a second FINISHED (Jersey fires one per response it writes when response-error mapping is
 * on) releases once.
 *
 * <p>A suspended request that is never resumed and has no timeout holds its slot, as it holds its
 * connection: give {@code AsyncResponse}s a timeout.
 *
 * <p>Concurrency: {@link #start} runs once, while the application starts, before any request;
 * {@code gate} is volatile and never changes after.
 */
final class ApplicationGate implements ApplicationEventListener {

    private static final Logger LOG = LoggerFactory.getLogger(ApplicationGate.class);

    /** What a rule that matches no route is told. */
    private static final String ROUTE_HINT = "; the provider's rules match route templates as written in @Path,"
            + " below the servlet's mapping: GET /users/{id}, not a URL (GET /users/42) or a path with the"
            + " servlet's prefix (/api/users/**)";

    /** The request property under which the filter finds the request's {@link RequestTracker}. */
    static final String TRACKER = "dev.leapgate.jaxrs.RequestTracker";

    private final ProviderSettings settings;
    private final AnnotationRules annotations;
    private volatile HttpGate gate;

    ApplicationGate(ProviderSettings settings, AnnotationRules annotations) {
        this.settings = settings;
        this.annotations = annotations;
    }

    ProviderSettings settings() {
        return settings;
    }

    /** The gate, or null before the application started or when there is nothing to enforce. */
    HttpGate gate() {
        return gate;
    }

    @Override
    public void onEvent(ApplicationEvent event) {
        if (event.getType() == ApplicationEvent.Type.INITIALIZATION_APP_FINISHED) {
            start();
        } else if (event.getType() == ApplicationEvent.Type.DESTROY_FINISHED && gate != null) {
            gate.close(); // its shared store, if any
        }
    }

    /**
     * Builds the gate from the configuration and the annotations. Throws, failing the start, if the
     * rules file cannot be read, or if two rules clash (a name used twice, names that differ only in
     * case, one rule under two names), whether they come from annotations or the configuration.
     */
    void start() {
        List<FlowRule> annotated = annotations.close();
        LeapgateConfig config = settings.config();
        boolean nothingToEnforce = annotated.isEmpty()
                && config.rules().rules().isEmpty()
                && config.rules().deny().isEmpty()
                && config.rulesFile().isEmpty();
        if (nothingToEnforce) {
            LOG.info("Leapgate JAX-RS: no rules configured and no @RateLimited resource methods; nothing to enforce");
            return;
        }
        try {
            List<String> routes = annotations.routes();
            gate = HttpGate.builder(config)
                    .clock(settings.clock())
                    .sleeper(settings.sleeper())
                    .addRules(annotated)
                    .check(rules ->
                            routes.isEmpty() ? List.of() : RuleChecks.matchingNoRoute(rules, routes, ROUTE_HINT))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Leapgate: the rules from @RateLimited and the configuration clash: " + e.getMessage()
                            + " (an annotation's rule is named by @RateLimited(name = ...), or after its class"
                            + " and method)",
                    e);
        }
        LOG.info(
                "Leapgate JAX-RS: {} rules ({} from @RateLimited){}",
                gate.rules().rules().size(),
                annotated.size(),
                config.rulesFile().map(file -> ", rules file " + file).orElse(""));
    }

    @Override
    public RequestEventListener onRequest(RequestEvent start) {
        if (gate == null) {
            return null;
        }
        RequestTracker tracker = new RequestTracker();
        ContainerRequest request = start.getContainerRequest();
        request.setProperty(TRACKER, tracker);
        return tracker;
    }
}
