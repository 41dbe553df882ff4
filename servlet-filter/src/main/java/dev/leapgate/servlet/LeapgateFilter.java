package dev.leapgate.servlet;

import dev.leapgate.Clock;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.RuleChecks;
import dev.leapgate.http.StatusResponse;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leapgate as a Jakarta Servlet filter: declare it in {@code web.xml}, configure it with
 * init-params (the keys of {@code CONFIGURATION.md}), and every request matching a rule is limited.
 * Or build it in code with {@link #builder()} and register it with {@code
 * ServletContext.addFilter}: configured by its builder alone, it refuses init-params on its
 * registration (in {@link #init}, naming them), which it would not read.
 *
 * <p>Per request: the core decides ({@link HttpGate}); a rejection is answered by the {@link
 * BlockHandler} and goes no further; an admitted request gets the {@code RateLimit} fields (if
 * configured) and runs the chain, through a response that combines the fields the application
 * writes with Leapgate's ({@link RateLimitFieldsResponse}), or, when Leapgate set none, through
 * the container's response itself. Its entry is closed when the request completes: after the chain
 * returns, or, for a request that went asynchronous, when it completes, times out or fails. A
 * request counts as failed (an exception, in the statistics) when the chain throws, when it fails
 * asynchronously, or when its response status is 5xx (also the one a container answers a timeout
 * with that the application does not answer itself); an exception from the chain is
 * rethrown unchanged. A request is limited once, in the first dispatch
 * in which the filter sees it (its {@code REQUEST} dispatch, or, behind an earlier filter that
 * forwards or dispatches it before the chain reaches this filter, that {@code FORWARD} or {@code
 * ASYNC} dispatch): forwards, includes, error and async dispatches of a request it decided are not
 * counted again, nor is a forward that an earlier filter makes after this filter's dispatch
 * returned; a rejected request that an earlier filter dispatches again to the URI it was refused
 * (a retry) gets the same rejection again, counted once. Filters on one gate ({@link #forGate} called twice with it, one filter registered
 * twice) limit a request once between them, in whichever sees it first; a filter on another gate
 * limits it by that gate's rules.
 *
 * <p>Besides the configuration keys, one init-param is the filter's own: {@code block-handler}, the
 * class name of a {@link BlockHandler}. Invalid init-params fail {@link #init} with a message that
 * names each bad key and value, so the container refuses to start the application rather than run
 * it half-protected. If the servlet context holds a {@link Clock} under {@link #CLOCK_ATTRIBUTE}
 * when the filter starts, the filter reads time from it (for tests and demos). The filter publishes
 * its {@link HttpGate} (rules, statistics, reload) in the servlet context under {@link
 * #GATE_ATTRIBUTE_PREFIX} followed by the filter's name.
 */
public class LeapgateFilter implements Filter {

    /** A servlet-context attribute holding the {@link Clock} to use instead of the system clock. */
    public static final String CLOCK_ATTRIBUTE = "dev.leapgate.Clock";
    /** Prefix of the servlet-context attribute under which the filter publishes its {@link HttpGate}. */
    public static final String GATE_ATTRIBUTE_PREFIX = "dev.leapgate.gate.";
    /** The init-param naming a {@link BlockHandler} class. */
    public static final String BLOCK_HANDLER_PARAM = "block-handler";

    private static final Logger LOG = LoggerFactory.getLogger(LeapgateFilter.class);

    private HttpGate gate;
    /**
     * Whether this filter built the gate ({@link #init} or its {@link Builder}), and {@link #destroy}
     * closes it (its shared store); a gate handed to {@link #forGate} is the caller's.
     */
    private boolean ownsGate;
    /**
     * Whether {@link #destroy} closed the gate this filter built: a container that starts the same
     * instance again (Jetty, when a context it was given the instance for is stopped and started)
     * calls {@link #init} again, which then builds a gate of its own again. The closed gate stays
     * until then, for a request still running.
     */
    private boolean destroyed;
    /** Builds the gate of a filter made by its {@link Builder} again; null otherwise. */
    private Supplier<HttpGate> builtInCode;

    private BlockHandler blockHandler = BlockHandler.STANDARD;
    /**
     * What the filters on {@link #gate} know of the dispatches they decided (shared by every filter
     * on the gate, so that a request is counted once per gate); null until the filter has a gate.
     */
    private GateDispatches dispatches;

    /** For {@code web.xml}: configured from init-params in {@link #init}. */
    public LeapgateFilter() {}

    private LeapgateFilter(HttpGate gate, BlockHandler blockHandler) {
        this.gate = gate;
        this.dispatches = GateDispatches.of(gate);
        this.blockHandler = blockHandler;
    }

    /**
     * A filter that decides with {@code gate}, built and owned by the caller (a framework's
     * configuration, such as the Spring Boot starter), and answers rejections with {@code
     * blockHandler}. It publishes the gate in the servlet context as any filter does.
     */
    public static LeapgateFilter forGate(HttpGate gate, BlockHandler blockHandler) {
        return new LeapgateFilter(
                Objects.requireNonNull(gate, "gate"), Objects.requireNonNull(blockHandler, "blockHandler"));
    }

    /** Builds a filter in code, for {@code ServletContext.addFilter}. */
    public static Builder builder() {
        return new Builder();
    }

    /** The gate this filter decides with; {@code null} before {@link #init}. */
    public HttpGate gate() {
        return gate;
    }

    @Override
    public void init(FilterConfig filterConfig) throws ServletException {
        ServletContext context = filterConfig.getServletContext();
        if (destroyed) {
            // Started again after a destroy: from the builder's configuration, or the init-params.
            if (builtInCode != null) {
                try {
                    gate = builtInCode.get();
                } catch (ConfigException e) { // the rules file changed meanwhile
                    throw new ServletException(e.getMessage(), e);
                }
            } else {
                gate = null;
                ownsGate = false;
            }
            destroyed = false;
        }
        if (gate == null) {
            Map<String, String> params = new LinkedHashMap<>();
            for (String name : Collections.list(filterConfig.getInitParameterNames())) {
                params.put(name, filterConfig.getInitParameter(name));
            }
            String handlerClass = params.remove(BLOCK_HANDLER_PARAM);
            String source = "init-params of filter '" + filterConfig.getFilterName() + "'";
            // The handler first, so that its problem is reported with the configuration's, and
            // before the gate opens a store (a filter whose init fails is never destroyed).
            ServletException handlerFailure = null;
            if (handlerClass != null) {
                try {
                    blockHandler = instantiate(handlerClass.strip());
                } catch (ServletException e) {
                    handlerFailure = e;
                }
            }
            try {
                LeapgateConfig config = resolveRulesFile(ConfigParser.parse(params, source), context, source);
                Object clock = context.getAttribute(CLOCK_ATTRIBUTE);
                String contextPath = context.getContextPath();
                List<String> mappings = servletMappings(context);
                HttpGate.Builder builder = HttpGate.builder(config); // reads the rules file
                if (handlerFailure != null) {
                    throw handlerFailure;
                }
                gate = builder.clock(clock instanceof Clock c ? c : Clock.system())
                        .check(rules -> RuleChecks.writtenWithPrefix(
                                rules, contextPath, "the context path", path -> served(path, mappings)))
                        .build();
                ownsGate = true;
            } catch (ConfigException e) {
                if (handlerFailure == null) {
                    throw new ServletException(e.getMessage(), e);
                }
                List<String> problems = new ArrayList<>(e.problems());
                problems.add(handlerFailure.getMessage().substring("init-param ".length()));
                ConfigException all = new ConfigException(e.source(), problems);
                throw new ServletException(all.getMessage(), all);
            }
        } else {
            refuseInitParams(filterConfig);
        }
        context.setAttribute(GATE_ATTRIBUTE_PREFIX + filterConfig.getFilterName(), gate);
        dispatches = GateDispatches.of(gate);
        int rules = gate.rules().rules().size();
        LOG.info(
                "Leapgate filter '{}' started with {} rule{}",
                filterConfig.getFilterName(),
                rules,
                rules == 1 ? "" : "s");
    }

    /**
     * A filter built in code ({@link #builder()}, {@link #forGate}) is configured there: init-params
     * on its registration would not be read, and the rules they name would protect nothing. They
     * fail the start, named (not their values: a store's URI may hold a password).
     */
    private void refuseInitParams(FilterConfig filterConfig) throws ServletException {
        List<String> names = Collections.list(filterConfig.getInitParameterNames());
        if (names.isEmpty()) {
            return;
        }
        if (ownsGate) {
            // A filter whose init fails is never destroyed: close the store its builder opened.
            gate.close();
        }
        throw new ServletException("init-params of filter '" + filterConfig.getFilterName() + "' are not read: "
                + String.join(", ", names) + ". The filter was built in code (LeapgateFilter.builder() or"
                + " forGate), which configures it: give these settings to its LeapgateConfig (ConfigParser.parse"
                + " reads the same keys) and the block handler to its builder, or register the filter by class"
                + " name to configure it with init-params");
    }

    /** The URL patterns of every servlet of the application. */
    private static List<String> servletMappings(ServletContext context) {
        List<String> mappings = new ArrayList<>();
        try {
            context.getServletRegistrations().values().forEach(r -> mappings.addAll(r.getMappings()));
        } catch (UnsupportedOperationException notOffered) {
            // A context handed to a listener added by a ServletContainerInitializer: no mappings known.
        }
        return mappings;
    }

    /**
     * Whether a servlet mapping other than the default ({@code /}, {@code /*}) serves paths at or
     * below {@code path}'s first segments: then a rule starting like the context path may be meant.
     */
    private static boolean served(String rulePath, List<String> mappings) {
        for (String mapping : mappings) {
            if (mapping.equals("/") || mapping.equals("/*") || mapping.isEmpty() || mapping.startsWith("*.")) {
                continue;
            }
            String base = mapping.endsWith("/*") ? mapping.substring(0, mapping.length() - 2) : mapping;
            if (rulePath.equals(base) || rulePath.startsWith(base + "/") || base.startsWith(rulePath + "/")) {
                return true;
            }
        }
        return false;
    }

    /**
     * A relative rules file is resolved against the web application's root, so {@code WEB-INF/...}
     * works. An application with no directory on disk (run from a packed archive, or without a base
     * resource) has no root to resolve it against: it is an error, rather than a path silently read
     * from the server's working directory, another file than the one meant.
     */
    private static LeapgateConfig resolveRulesFile(LeapgateConfig config, ServletContext context, String source) {
        if (config.rulesFile().isEmpty() || config.rulesFile().get().isAbsolute()) {
            return config;
        }
        String root = context.getRealPath("/");
        if (root == null) {
            throw new ConfigException(
                    source,
                    List.of("rules-file: " + config.rulesFile().get() + " is relative, but the web application has"
                            + " no directory on disk to resolve it against (the container serves it from a packed"
                            + " archive); give an absolute path, or deploy the application unpacked"));
        }
        return config.withBaseDirectory(Path.of(root));
    }

    /**
     * The {@code block-handler} named by class name; each way it can fail has its own message: no
     * such class, not a {@link BlockHandler}, no public no-argument constructor, a constructor that
     * threw.
     */
    private static BlockHandler instantiate(String className) throws ServletException {
        String where = "init-param " + BLOCK_HANDLER_PARAM + ": ";
        Class<?> type;
        try {
            type = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new ServletException(
                    where + "class '" + className + "' was not found (" + e + "); check the name and that its jar"
                            + " is in the application",
                    e);
        }
        if (!BlockHandler.class.isAssignableFrom(type)) {
            throw new ServletException(
                    where + "class '" + className + "' is not a " + BlockHandler.class.getName() + "; implement it");
        }
        java.lang.reflect.Constructor<?> constructor;
        try {
            constructor = type.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new ServletException(
                    where + "class '" + className + "' has no public no-argument constructor; add one", e);
        }
        try {
            return (BlockHandler) constructor.newInstance();
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw new ServletException(
                    where + "the constructor of '" + className + "' threw " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new ServletException(where + "cannot create '" + className + "': " + e, e);
        }
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        if (!firstSight(request)) {
            if (!refusedAgain(request, response)) {
                chain.doFilter(req, res);
            }
            return;
        }
        if (gate == null) {
            throw new ServletException("Leapgate filter without rules: its init(FilterConfig) was never called, which"
                    + " reads them. A container calls it; Spring's DelegatingFilterProxy calls it only with"
                    + " targetFilterLifecycle = true. Or build the filter with LeapgateFilter.builder(), which needs"
                    + " no init");
        }
        ServletRequestView view = new ServletRequestView(request);
        Optional<StatusResponse> status = gate.status(view);
        if (status.isPresent()) {
            StatusResponse answer = status.get();
            response.setStatus(HttpServletResponse.SC_OK);
            answer.headers().forEach(response::setHeader);
            ResponseBodies.write(response, answer.contentType(), answer.body());
            return;
        }
        Decision decision = gate.enter(view);
        int[] running = dispatches.passing.get();
        if (decision instanceof Rejection rejection) {
            answer(request, response, rejection, running);
            // An earlier filter may dispatch the rejected request again once this dispatch returns.
            request.setAttribute(
                    dispatches.refusedAttribute, new GateDispatches.Refused(request.getRequestURI(), rejection));
            return;
        }
        Entry entry = (Entry) decision;
        running[0]++;
        try {
            if (gate.mayWriteAdmittedHeaders(entry)) {
                // Inside the try: a response wrapper that refuses a field fails the request, and
                // the entry is still closed. Set before the chain, so that a response committed
                // early carries them; the chain writes through the wrapper, which keeps Leapgate's
                // items beside the application's own.
                RateLimitFieldsResponse fields = new RateLimitFieldsResponse(response);
                gate.admittedHeaders(entry, fields);
                chain.doFilter(request, fields.hasLeapgateFields() ? fields : response);
            } else {
                // No field of Leapgate's on this response (rate-limit-headers is rejected or none,
                // or no rule limits the request): nothing to combine, no wrapper to make.
                chain.doFilter(request, response);
            }
        } catch (Throwable e) {
            // Every throwable, also a checked exception the chain does not declare (code in another
            // JVM language, a "sneaky throw"): the request failed. Rethrown as it came (a precise
            // rethrow: the compiler knows only what the chain declares can be checked here).
            entry.fail(e);
            throw e;
        } finally {
            running[0]--;
            try {
                afterTheChain(request, response, entry);
            } catch (RuntimeException requestOver) {
                // The container ended the request while the chain still ran on another thread (an
                // earlier filter ran it through AsyncContext.start, and the request timed out or
                // failed meanwhile): the request object answers no more (Tomcat throws an
                // IllegalStateException, recycled; Jetty a NullPointerException, detached). Its
                // entry is closed now, as a request without a response; the chain's own exception,
                // if any, is the one that propagates.
                LOG.debug("Leapgate: the request ended before its chain returned", requestOver);
                HttpGate.complete(entry, HttpGate.NO_RESPONSE);
            }
        }
    }

    /**
     * Marks a request let through as decided, and closes its entry now, or, if it went
     * asynchronous, when its asynchronous cycle ends.
     */
    private void afterTheChain(HttpServletRequest request, HttpServletResponse response, Entry entry) {
        boolean async = request.isAsyncStarted();
        if (async || request.isAsyncSupported()) {
            // Before the container's dispatch returns, so before any async dispatch can run;
            // also when the request is not asynchronous yet: an earlier filter may start an
            // async cycle after the chain returned, and dispatch this request again.
            request.setAttribute(dispatches.seenAttribute, Boolean.TRUE);
        } else {
            // A request that cannot go asynchronous comes back, if at all, on this thread: in
            // a forward an earlier filter makes after the chain returned.
            dispatches.decidedHere.get()[0] = requestId(request);
        }
        if (!async || !closeOnAsyncEnd(request, entry)) {
            HttpGate.complete(entry, response.getStatus());
        }
    }

    /**
     * Whether this dispatch is where the filter first sees the request, the one to limit: the
     * REQUEST dispatch, or, where an earlier filter forwarded or dispatched the request before it
     * reached this one (a filter that rewrites URLs by forwarding), the first FORWARD or ASYNC
     * dispatch that reaches it. Includes and error pages are never limited.
     */
    private boolean firstSight(HttpServletRequest request) {
        if (dispatches == null) {
            return true; // no gate: doFilter says why
        }
        DispatcherType type = request.getDispatcherType();
        if (type == DispatcherType.REQUEST) {
            // Inside a dispatch a filter on this gate let through on this thread, a REQUEST
            // dispatch is that same request: the filter mapped twice (two filter-mappings that both
            // match, which Jetty runs once each, nested), or a second filter on the same gate.
            return dispatches.passing.get()[0] == 0;
        }
        if (type == DispatcherType.INCLUDE || type == DispatcherType.ERROR) {
            return false;
        }
        // A forward runs on the thread of the dispatch that forwards, inside it, or, made by an
        // earlier filter after this filter's dispatch returned, after it; an async dispatch comes
        // later, marked if this filter let the request through before it went async.
        return dispatches.passing.get()[0] == 0
                && request.getAttribute(dispatches.seenAttribute) == null
                && request.getAttribute(dispatches.refusedAttribute) == null
                && !decidedOnThisThread(request);
    }

    /**
     * Whether this is a rejected request that an earlier filter dispatches again after this
     * filter's dispatch returned (forwarded or dispatched asynchronously, on any thread: a filter
     * that retries a 429 or a 503) to the URI it was refused: then answered now with the same
     * rejection, counted once. Served otherwise it would have passed unlimited, the rejection
     * counted and the request served. A dispatch to another URI (an error page, a status page
     * that renders the 429) goes through.
     */
    private boolean refusedAgain(HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
        if (dispatches == null
                || (request.getDispatcherType() != DispatcherType.FORWARD
                        && request.getDispatcherType() != DispatcherType.ASYNC)
                || !(request.getAttribute(dispatches.refusedAttribute) instanceof GateDispatches.Refused refused)
                || !refused.requestUri().equals(request.getRequestURI())
                || dispatches.passing.get()[0] != 0) {
            return false;
        }
        answer(request, response, refused.rejection(), dispatches.passing.get());
        return true;
    }

    /**
     * Answers {@code rejection} with the block handler, unless the response is committed; counted
     * as a dispatch {@code running} on this thread: a handler that forwards to a page is answering
     * this request, and a forward limited again would be rejected and forwarded again, without end.
     */
    private void answer(HttpServletRequest request, HttpServletResponse response, Rejection rejection, int[] running)
            throws IOException, ServletException {
        if (response.isCommitted()) {
            return;
        }
        running[0]++;
        try {
            blockHandler.handle(request, response, rejection, gate.rejection(rejection));
        } finally {
            running[0]--;
        }
    }

    /** Whether this filter let {@code request} through in an earlier dispatch on this thread. */
    private boolean decidedOnThisThread(HttpServletRequest request) {
        String id = requestId(request);
        return id != null && !id.isEmpty() && id.equals(dispatches.decidedHere.get()[0]);
    }

    /**
     * The request's id (Servlet 6.0), or null from a request wrapper of a library built against an
     * older API that implements the interface itself and so lacks the method.
     */
    private static String requestId(HttpServletRequest request) {
        try {
            return request.getRequestId();
        } catch (AbstractMethodError | UnsupportedOperationException noId) {
            return null;
        }
    }

    /**
     * Hands the entry to the asynchronous cycle's listeners. False if that cycle is already over
     * (it timed out or completed on another thread before this dispatch returned): the caller then
     * closes the entry at once rather than let an exception escape and the slot leak.
     */
    private static boolean closeOnAsyncEnd(HttpServletRequest request, Entry entry) {
        try {
            request.getAsyncContext().addListener(new EntryCloser(entry));
            return true;
        } catch (IllegalStateException asyncAlreadyOver) {
            return false;
        }
    }

    @Override
    public void destroy() {
        if (ownsGate) {
            gate.close();
            destroyed = true;
        }
    }

    /** Builds a {@link LeapgateFilter} in code. */
    public static final class Builder {
        private LeapgateConfig config = LeapgateConfig.defaults();
        private Clock clock = Clock.system();
        private BlockHandler blockHandler = BlockHandler.STANDARD;

        private Builder() {}

        /** The configuration, e.g. from {@link ConfigParser#parseProperties}. */
        public Builder config(LeapgateConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder blockHandler(BlockHandler blockHandler) {
            this.blockHandler = Objects.requireNonNull(blockHandler, "blockHandler");
            return this;
        }

        /**
         * The filter, with a gate of its own that {@link LeapgateFilter#destroy} closes.
         *
         * @throws ConfigException if the configured rules file cannot be read or is invalid
         */
        public LeapgateFilter build() {
            LeapgateConfig config = this.config;
            Clock clock = this.clock;
            Supplier<HttpGate> gate =
                    () -> HttpGate.builder(config).clock(clock).build();
            LeapgateFilter filter = new LeapgateFilter(gate.get(), blockHandler);
            filter.ownsGate = true;
            filter.builtInCode = gate;
            return filter;
        }
    }
}
