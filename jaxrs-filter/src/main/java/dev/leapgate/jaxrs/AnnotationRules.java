package dev.leapgate.jaxrs;

import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.OriginSource;
import dev.leapgate.http.PathPattern;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.OriginList;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.sse.SseEventSink;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds {@link RateLimited} to resource methods: each annotation of a method (and of its class)
 * becomes a {@link FlowRule} matching exactly the method's HTTP method and route template. Invalid
 * values throw here, so the application fails to start, with a message naming the method.
 * Unannotated methods get nothing.
 *
 * <p>Root resource methods are bound as the runtime shows them to this {@code DynamicFeature}
 * while the application starts ({@link #configure}). Sub-resource methods, which the runtimes bind
 * only when a request first reaches them (Jersey, RESTEasy) or never show (CXF), are bound from
 * the walk of each root resource's locators ({@link SubResources}), at the start too: on each full
 * route the walk finds. The root resources are those the runtime shows, and those among the
 * application's classes or, on RESTEasy, its deployment's ({@link #walk(Collection)}: Jersey and
 * RESTEasy show no root resource that has locators alone). An annotated sub-resource method whose
 * limits the walk could not make on the route a request took (a locator returning {@code Object},
 * an implementation of the interface a locator declares, annotated where the interface is not) is
 * refused whenever a request reaches it there ({@link #reached}), with a message, logged once,
 * that names the locator and what to change: never silently unlimited.
 *
 * <p>Concurrency: called by the runtime while the application starts, on one thread; the methods
 * that collect are synchronized all the same, since sub-resources are bound later, on request
 * threads. {@link #reached}, on request threads, reads what {@link #close} published, and adds to
 * a concurrent set the refusals it logged.
 */
final class AnnotationRules implements DynamicFeature {

    private static final Logger LOG = LoggerFactory.getLogger(AnnotationRules.class);

    /** Longest derived name before its "-N" suffix, so that the whole fits in 64 characters. */
    private static final int MAX_BASE_LENGTH = 56;

    private final List<FlowRule> rules = new ArrayList<>();
    /** Per rule name, the method that declared it, for messages about a name used twice. */
    private final Map<String, String> declaredBy = new HashMap<>();
    /** Per derived base name (Class-method), the last number used. */
    private final Map<String, Integer> numbers = new HashMap<>();
    /** The class annotations bound, per route and class: each once per route. */
    private final Set<List<Object>> classLimitsBound = new HashSet<>();
    /** Resource methods already bound, as "HTTP-method template Java-method". */
    private final Set<String> bound = new HashSet<>();
    /** Every resource method's route, as "HTTP-method template", annotated or not. */
    private final Set<String> routes = new LinkedHashSet<>();
    /** Routes whose resource method streams server-sent events; guarded by this. */
    private final Set<String> eventStreams = new LinkedHashSet<>();
    /** The root resource classes whose locators were walked. */
    private final Set<Class<?>> walked = new HashSet<>();
    /** The resource classes checked for annotations on methods that are no resource methods. */
    private final Set<Class<?>> strayChecked = new HashSet<>();
    /** Those methods, each reported once (a base class of several resource classes). */
    private final Set<Method> strayReported = new HashSet<>();
    /** Per sub-resource route ("GET /lib/{id}"), the limits the walk bound there, one list per resource method. */
    private final Map<String, Set<List<RateLimited>>> subResourceLimits = new HashMap<>();
    /**
     * Per root route ("GET /accounts/{id}"), the first resource method seen there, with its
     * template as written (regular expressions kept): {@link #checkRegexSiblings}.
     */
    private final Map<String, RouteOwner> owners = new HashMap<>();

    private record RouteOwner(String written, String method, boolean annotated) {}

    /** Whether a walked class has a sub-resource locator. */
    private boolean locators;

    /** {@link #subResourceLimits} as {@link #close} fixed it, for requests. */
    private volatile Map<String, Set<List<RateLimited>>> fixedLimits = Map.of();

    /** Per class and method that requests reached through locators, what it declares; computed once. */
    private final ClassValue<Map<Method, Declared>> declared = new ClassValue<>() {
        @Override
        protected Map<Method, Declared> computeValue(Class<?> resourceClass) {
            return new ConcurrentHashMap<>();
        }
    };

    /** The refusals logged, as "method route" ({@link #refused}): each once. */
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    /** The names of the configuration's rules, lower case: an annotation may not take one. */
    private final Set<String> configured;

    /**
     * The conflicts the gate refuses among all its rules ({@link RuleSet#conflicts}: names that
     * differ only in case, one rule under two names), checked as each annotation is bound, against
     * the configuration's rules and the annotations bound before it: so that they fail the start on
     * every runtime, naming the method, where the gate is built only at the first request.
     */
    private final RuleSet.ConflictCheck conflicts = new RuleSet.ConflictCheck();

    /** Who a request is from ({@code origin}), which decides what {@code origin} may name. */
    private final OriginSource originSource;

    /** The origins the configuration exempts: a rule for one of them could never apply. */
    private final OriginList exempt;

    private boolean closed;

    /** For an application whose origin is the client IP, without exemptions. */
    AnnotationRules(Collection<FlowRule> configured) {
        this(configured, OriginSource.ip(), OriginList.empty());
    }

    /**
     * @param configured the rules the configuration gives (its properties, or its rules file as read at the start)
     * @param originSource who a request is from in the application
     * @param exempt the origins the configuration exempts
     */
    AnnotationRules(Collection<FlowRule> configured, OriginSource originSource, OriginList exempt) {
        this.configured = configured.stream()
                .map(r -> r.name().toLowerCase(java.util.Locale.ROOT))
                .collect(Collectors.toSet());
        configured.forEach(conflicts::add); // checked together when the configuration was read
        this.originSource = Objects.requireNonNull(originSource, "originSource");
        this.exempt = Objects.requireNonNull(exempt, "exempt");
    }

    @Override
    public synchronized void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Class<?> resourceClass = resourceInfo.getResourceClass();
        Method method = resourceInfo.getResourceMethod();
        if (resourceClass == null || method == null) {
            return;
        }
        // Every root resource is shown while the application starts: a class with @Path shown for
        // the first time after it is one a locator returned, a sub-resource here.
        boolean shownAtStart = !closed || walked.contains(resourceClass);
        boolean root = RouteTemplate.pathOf(resourceClass) != null && shownAtStart;
        if (root) {
            walk(resourceClass);
        }
        String httpMethod = RouteTemplate.httpMethod(method);
        if (httpMethod == null) {
            if (RouteTemplate.pathOf(method) == null && onMethod(method).length > 0) {
                // Neither a resource method nor a locator by its annotations: a handler of a resource
                // built in code (Jersey's Resource builder), whose HTTP method and path are the
                // builder's, which no standard API shows.
                throw new IllegalArgumentException("@RateLimited on " + describe(resourceClass, method)
                        + " cannot be applied: the runtime serves it as a resource method, but it has no HTTP"
                        + " method (such as @GET) of its own (a resource built in code, as with Jersey's"
                        + " Resource builder, names its route outside the annotations), so Leapgate cannot tell"
                        + " its route and it would limit nothing; annotate a resource class with @Path, or"
                        + " write a rule.* for the route in the configuration");
            }
            return; // a sub-resource locator (CXF reports them too): walked above
        }
        List<RateLimited> limits = limits(resourceClass, method);
        if (!root) {
            // A sub-resource, bound when a request first reaches it (Jersey, RESTEasy): its rules
            // were made by the walk, on each route it found. Where the walk found a locator, the gate
            // checks every request through locators (reached), naming the locator that returned the
            // instance, as on CXF. Where it found none, the locator is below a root resource it never
            // saw, and there may be no gate to check: refused here.
            if (!limits.isEmpty() && !locators) {
                throw refused(describe(resourceClass, method), null, Refusal.UNWALKED_ROOT);
            }
            return;
        }
        String template = RouteTemplate.join(RouteTemplate.pathOf(resourceClass), RouteTemplate.pathOf(method));
        recordRoute(httpMethod, template);
        if (Arrays.asList(method.getParameterTypes()).contains(SseEventSink.class)) {
            eventStreams.add(httpMethod + " " + template);
        }
        checkRegexSiblings(
                httpMethod,
                template,
                RouteTemplate.joinWritten(RouteTemplate.pathOf(resourceClass), RouteTemplate.pathOf(method)),
                resourceClass,
                method,
                !limits.isEmpty());
        if (!limits.isEmpty()) {
            bind(resourceClass, method, httpMethod, template, describe(resourceClass, method), limits);
        }
    }

    /**
     * Refuses an annotation on a route that another resource method shares once regular
     * expressions are left out ({@code {id: \d+}} and {@code {id: [a-z]+}} are both {@code {id}}):
     * requests are named by the template without them, so the annotation's rule would limit the
     * sibling too.
     */
    private void checkRegexSiblings(
            String httpMethod,
            String template,
            String written,
            Class<?> resourceClass,
            Method method,
            boolean annotated) {
        String route = httpMethod + " " + template;
        String described = describe(resourceClass, method);
        RouteOwner first = owners.putIfAbsent(route, new RouteOwner(written, described, annotated));
        if (first != null && !first.written().equals(written) && (annotated || first.annotated())) {
            throw new IllegalArgumentException("@RateLimited on " + (annotated ? described : first.method())
                    + " cannot be applied: " + described + " and " + first.method()
                    + " differ only in the regular expression of a template variable, and both are the route "
                    + route + " (Leapgate names requests by their template without regular expressions), so the"
                    + " annotation's limit would apply to both; give the variables different names, or write a"
                    + " rule.* in the configuration");
        }
    }

    /**
     * Checks the annotations of the root resource classes among {@code classes} (the application's),
     * and walks their locators, in the order of their names, binding the annotated sub-resource
     * methods found. Every invalid annotation among them is reported, not just the first: the
     * resource methods of these classes are checked here, before the runtime shows them one at a
     * time ({@link #configure}).
     *
     * @throws IllegalArgumentException if one annotation is invalid, naming it
     * @throws ConfigException if several are, naming each
     */
    synchronized void walk(Collection<Class<?>> classes) {
        Set<String> problems = new LinkedHashSet<>();
        List<RuntimeException> thrown = new ArrayList<>();
        classes.stream()
                .filter(c -> RouteTemplate.pathOf(c) != null)
                .sorted(Comparator.comparing(Class::getName))
                .forEach(root -> {
                    checkResourceMethods(root, thrown);
                    walk(root, thrown);
                });
        thrown.removeIf(e -> !problems.add(e.getMessage()));
        throwIfAny(thrown);
    }

    /** Walks the locators of {@code root}, binding the annotated sub-resource methods found. */
    private void walk(Class<?> root) {
        List<RuntimeException> thrown = new ArrayList<>();
        walk(root, thrown);
        throwIfAny(thrown);
    }

    /** One problem as it was found; several together, each named (their messages are distinct). */
    private static void throwIfAny(List<RuntimeException> thrown) {
        if (thrown.size() == 1) {
            throw thrown.get(0);
        }
        if (!thrown.isEmpty()) {
            throw new ConfigException(
                    "@RateLimited annotations",
                    thrown.stream().map(Throwable::getMessage).toList());
        }
    }

    /**
     * Checks the values of the annotations of a root resource class's own resource methods, which
     * the runtime binds later ({@link #configure}), adding each invalid one to {@code thrown}: the
     * checks of {@link #bind}, with the names it derives in the usual case.
     */
    private void checkResourceMethods(Class<?> root, List<RuntimeException> thrown) {
        for (Method method : SubResources.resourceMethods(root)) {
            String httpMethod = RouteTemplate.httpMethod(method);
            String template = RouteTemplate.join(RouteTemplate.pathOf(root), RouteTemplate.pathOf(method));
            String base = derivedBase(root, method);
            int derived = 0;
            for (RateLimited limit : limits(root, method)) {
                String name = limit.name().isEmpty() ? base + "-" + ++derived : limit.name();
                try {
                    rule(limit, name, PathPattern.route(httpMethod, template));
                } catch (IllegalArgumentException | IllegalStateException e) {
                    thrown.add(new IllegalArgumentException(
                            "invalid @RateLimited on " + describe(root, method) + ": " + e.getMessage(), e));
                }
            }
        }
    }

    private void walk(Class<?> root, List<RuntimeException> thrown) {
        if (!walked.add(root)) {
            return;
        }
        SubResources.Walk walk = SubResources.walk(root);
        locators |= walk.locators();
        checkNoStrayAnnotations(root, thrown);
        walk.locatorsWalked().forEach(l -> checkNoStrayAnnotations(l.resourceClass(), thrown));
        walk.routes().forEach(r -> checkNoStrayAnnotations(r.resourceClass(), thrown));
        for (SubResources.Locator locator : walk.locatorsWalked()) {
            if (onMethod(locator.method()).length > 0) {
                // JAX-RS calls a locator on the way to a resource method: no request ends there, and
                // a limit on it would protect nothing that the operator believes it does.
                thrown.add(new IllegalArgumentException("@RateLimited on "
                        + describe(locator.resourceClass(), locator.method())
                        + " cannot be applied: it is a sub-resource locator (a @Path without an HTTP method), not a"
                        + " resource method, so no request would be limited by it; put it on the resource methods"
                        + " of the class the locator returns (or on that class), or write a rule.* in the"
                        + " configuration for a pattern that covers its routes, such as "
                        + (locator.template().equals("/") ? "" : locator.template()) + "/**"));
            }
        }
        Set<Method> recursive = new HashSet<>();
        for (SubResources.Route route : walk.routes()) {
            recordRoute(route.httpMethod(), route.template());
            List<RateLimited> limits = limits(route.resourceClass(), route.method());
            if (route.recursion() == null) {
                // A route through locators may differ from another only in a regular expression too
                // (a locator's {id: [a-z]+} beside a resource method's {id: \d+}).
                try {
                    checkRegexSiblings(
                            route.httpMethod(),
                            route.template(),
                            route.written(),
                            route.resourceClass(),
                            route.method(),
                            !limits.isEmpty());
                } catch (IllegalArgumentException e) {
                    thrown.add(e);
                    continue;
                }
            }
            if (limits.isEmpty()) {
                continue;
            }
            String method = describe(route.resourceClass(), route.method());
            if (route.recursion() != null) {
                if (recursive.add(route.method())) { // once, at the shallowest route
                    thrown.add(new IllegalArgumentException("@RateLimited on " + method + " cannot be applied: it is"
                            + " reached through recursive sub-resource locators ("
                            + route.recursion().locator() + "), so it has"
                            + " routes of every depth from " + route.httpMethod() + " " + route.template() + ", and"
                            + " an annotation's rule matches one; remove it, and write a rule.* in the configuration"
                            + " for a pattern that covers them, such as "
                            + route.recursion().pattern()));
                }
                continue;
            }
            String where = method + " at " + route.httpMethod() + " " + route.template();
            try {
                bind(route.resourceClass(), route.method(), route.httpMethod(), route.template(), where, limits);
            } catch (IllegalArgumentException | IllegalStateException e) {
                thrown.add(e);
                continue;
            }
            subResourceLimits
                    .computeIfAbsent(route.httpMethod() + " " + route.template(), k -> new HashSet<>())
                    .add(limits);
        }
    }

    /**
     * Refuses {@code @RateLimited} on a method of a resource class or its supertypes that is neither
     * a resource method nor a sub-resource locator (no HTTP method of its own or inherited, or not a
     * public instance method): JAX-RS never dispatches a request to it, so it would limit nothing
     * (a forgotten {@code @GET}; an interface method whose implementation declares the route
     * itself, which replaces the interface's annotations). Locators are refused by {@link #walk}.
     */
    private void checkNoStrayAnnotations(Class<?> resourceClass, List<RuntimeException> thrown) {
        if (!strayChecked.add(resourceClass)) {
            return;
        }
        for (Class<?> type : supertypes(resourceClass)) {
            for (Method method : type.getDeclaredMethods()) {
                if (method.isBridge()
                        || method.isSynthetic()
                        || method.getDeclaredAnnotationsByType(RateLimited.class).length == 0) {
                    continue;
                }
                boolean dispatched = Modifier.isPublic(method.getModifiers())
                        && !Modifier.isStatic(method.getModifiers())
                        && (RouteTemplate.httpMethod(method) != null || RouteTemplate.pathOf(method) != null);
                if (!dispatched && strayReported.add(method)) {
                    thrown.add(new IllegalArgumentException("@RateLimited on " + describe(type, method)
                            + " cannot be applied: it is not a resource method (a public method with an HTTP"
                            + " method such as @GET, of its own or inherited from the method it overrides), so no"
                            + " request reaches it and it would limit nothing; put it on the resource method that"
                            + " serves the route"));
                    continue;
                }
                Method replacing = replacing(resourceClass, type, method);
                if (replacing != null && strayReported.add(method)) {
                    thrown.add(new IllegalArgumentException("@RateLimited on " + describe(type, method)
                            + " cannot be applied: " + describe(replacing.getDeclaringClass(), replacing)
                            + " overrides it with JAX-RS annotations of its own, which replace all of its"
                            + " annotations (Jakarta REST, section 3.6), so its route is not served and it would"
                            + " limit nothing; put the limit on "
                            + describe(replacing.getDeclaringClass(), replacing)));
                }
            }
        }
    }

    /**
     * The method of {@code resourceClass} that overrides {@code method}, declared in {@code type},
     * with JAX-RS annotations of its own where {@code method} has some too (their annotations are
     * then its own, not {@code method}'s); null if none does.
     */
    private static Method replacing(Class<?> resourceClass, Class<?> type, Method method) {
        if (type == resourceClass || !RouteTemplate.hasJaxrsAnnotation(method)) {
            return null;
        }
        Method served;
        try {
            served = resourceClass.getMethod(method.getName(), method.getParameterTypes());
        } catch (NoSuchMethodException notPublic) {
            return null;
        }
        Method annotated = RouteTemplate.annotated(served);
        return annotated.equals(method) || !method.getDeclaringClass().isAssignableFrom(annotated.getDeclaringClass())
                ? null
                : annotated;
    }

    /** The class, its superclasses and every interface they implement, each once. */
    private static Set<Class<?>> supertypes(Class<?> resourceClass) {
        Set<Class<?>> types = new LinkedHashSet<>();
        List<Class<?>> pending = new ArrayList<>(List.of(resourceClass));
        while (!pending.isEmpty()) {
            Class<?> type = pending.remove(0);
            if (type == null || type == Object.class || !types.add(type)) {
                continue;
            }
            pending.add(type.getSuperclass());
            pending.addAll(Arrays.asList(type.getInterfaces()));
        }
        return types;
    }

    /** Whether an application's resource has a sub-resource locator: then requests may reach {@link #reached}. */
    synchronized boolean hasLocators() {
        return locators;
    }

    /**
     * Refuses a request that reached a sub-resource method with {@code @RateLimited} through a route
     * whose rules the walk did not make at the start: through a locator returning {@code Object},
     * or to an instance of another class than the locator declares, with other limits (an
     * implementation of the interface it declares, annotated where the interface is not: the walk
     * reads the declared type, and no one can list a type's implementations). Called for every
     * request reached through locators, once the rules are fixed.
     *
     * <p>Why not make the rule at that first request instead: the gate's rules from annotations are
     * fixed when it is built (a reloaded rules file starts again from them, so a rule added later
     * would be lost, silently unlimited, at the next reload), and a rule
     * matches a route template, not the class a locator returned there, so it would limit every
     * implementation on that route after the first one was seen.
     *
     * @param parent the class of the resource whose locator returned the instance
     * @param locatorPath that locator's {@code @Path}, as {@link RouteTemplate} chose it, or null
     * @param resourceClass the class of the sub-resource instance the request reached
     * @param method the resource method
     * @param template the request's route template ({@link RouteTemplate})
     * @throws NotInForce if the method's limits are not in force on that route, so that the request
     *     is refused (500) rather than served unlimited; its message names the locator and the
     *     remedy, and is logged once per method and route
     */
    void reached(Class<?> parent, String locatorPath, Class<?> resourceClass, Method method, String template) {
        Map<Method, Declared> known = declared.get(resourceClass);
        Declared what = known.get(method);
        if (what == null) {
            String httpMethod = RouteTemplate.httpMethod(method);
            // No HTTP method: a runtime's own handler (Jersey's for OPTIONS), not the class's method.
            what = new Declared(httpMethod, httpMethod == null ? List.of() : limits(resourceClass, method));
            known.put(method, what);
        }
        if (what.limits().isEmpty()) {
            return;
        }
        String route = what.httpMethod() + " " + template;
        Set<List<RateLimited>> bound = fixedLimits.get(route);
        if (bound == null || !bound.contains(what.limits())) {
            throw refused(
                    describe(resourceClass, method), route, Refusal.of(parent, locatorPath, resourceClass, method));
        }
    }

    /** What a resource method declares: its HTTP method and its limits, the class's first. */
    private record Declared(String httpMethod, List<RateLimited> limits) {}

    /**
     * The refusal of an annotated sub-resource method whose limits are not in force, logged at ERROR
     * the first time for each method and route (a bounded set: the application's code), so that
     * the cause is in the application's log whatever the runtime logs of the exception.
     */
    private NotInForce refused(String method, String route, Refusal why) {
        String message = "@RateLimited on " + method + " is not in force" + (route == null ? "" : " on " + route) + ": "
                + why.cause() + ", so the request is refused rather than served unlimited; " + why.remedy();
        if (logged.add(method + (route == null ? "" : " " + route))) {
            LOG.error("Leapgate JAX-RS: {}", message);
        }
        return new NotInForce(message);
    }

    /**
     * A resource method whose {@code @RateLimited} is not in force where a request reached it. Its
     * message names the application's classes and methods: for the log, never for the client.
     */
    static final class NotInForce extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        NotInForce(String message) {
            super(message);
        }
    }

    /** Why the walk at the start did not make a sub-resource method's limits, and what to change. */
    private record Refusal(String cause, String remedy) {

        /** Where the walk found no locator at all, and the runtime binds a sub-resource class. */
        static final Refusal UNWALKED_ROOT = new Refusal(
                "the request reached it through a sub-resource locator of a root resource that Leapgate did not"
                        + " see when the application started (the runtime did not show it to the provider, and it"
                        + " is not among the application's classes)",
                "list the root resource among the application's classes (Application.getClasses()), or remove the"
                        + " annotation and write a rule.* for the route in the configuration");

        /** Where the locator that returned the instance is not found. */
        static final Refusal UNKNOWN = new Refusal(
                "the request reached it through a sub-resource locator that Leapgate could not follow when the"
                        + " application started (a locator returning Object or Class<?>, an instance of another"
                        + " class than the locator returns, or a root resource the runtime did not show)",
                "declare the sub-resource's class as the locator's return type, or remove the annotation and write"
                        + " a rule.* for the route in the configuration");

        /**
         * From the locator of {@code parent} at {@code locatorPath} that returned the instance of
         * {@code resourceClass}: what it declares tells why.
         */
        static Refusal of(Class<?> parent, String locatorPath, Class<?> resourceClass, Method method) {
            Method locator = locator(parent, locatorPath, resourceClass);
            if (locator == null) {
                return UNKNOWN;
            }
            String name = describe(parent, locator);
            String reachedName = resourceClass.getSimpleName();
            Class<?> declared = SubResources.returned(locator);
            if (declared == null) {
                return new Refusal(
                        "the locator " + name + " returns "
                                + locator.getReturnType().getSimpleName()
                                + ", which names no class whose annotations Leapgate could read when the"
                                + " application started",
                        "declare " + reachedName + " as the locator's return type, or remove the annotation and"
                                + " write a rule.* for the route in the configuration");
            }
            if (declared != resourceClass) {
                Method inherited = resourceMethod(declared, method);
                String kind = declared.isInterface()
                        ? "an interface"
                        : Modifier.isAbstract(declared.getModifiers()) ? "an abstract class" : "a superclass";
                return new Refusal(
                        "the locator " + name + " declares " + declared.getSimpleName() + " (" + kind + "), whose"
                                + " annotations Leapgate read when the application started, and returned a "
                                + reachedName + ", whose @RateLimited differs (which classes a locator returns is"
                                + " known only when it runs)",
                        (inherited == null
                                        ? ""
                                        : "put the annotation on " + describe(declared, inherited)
                                                + " (every implementation inherits it), or ")
                                + "declare " + reachedName + " as the locator's return type");
            }
            return new Refusal(
                    "the locator " + name + " returns " + reachedName + ", but the route's root resource was not"
                            + " walked when the application started (the runtime did not show it to the provider,"
                            + " and it is not among the application's classes)",
                    "list the root resource among the application's classes (Application.getClasses()), or remove"
                            + " the annotation and write a rule.* for the route in the configuration");
        }

        /** The locator of {@code parent} with the {@code @Path} {@code path} that may return a {@code child}, or null. */
        private static Method locator(Class<?> parent, String path, Class<?> child) {
            if (parent == null || path == null) {
                return null;
            }
            for (Method locator : SubResources.locators(parent)) {
                Class<?> returned = locator.getReturnType();
                if (path.equals(RouteTemplate.pathOf(locator))
                        && (returned.isAssignableFrom(child) || returned == Class.class)) {
                    return locator;
                }
            }
            return null;
        }

        /** The resource method of {@code type} that {@code method} implements, or null. */
        private static Method resourceMethod(Class<?> type, Method method) {
            try {
                Method found = type.getMethod(method.getName(), method.getParameterTypes());
                return RouteTemplate.httpMethod(found) != null ? found : null;
            } catch (NoSuchMethodException e) {
                return null;
            }
        }
    }

    private static List<RateLimited> limits(Class<?> resourceClass, Method method) {
        List<RateLimited> all = new ArrayList<>(Arrays.asList(onClass(resourceClass)));
        all.addAll(Arrays.asList(onMethod(method)));
        return List.copyOf(all);
    }

    /**
     * The class's {@code @RateLimited}: on the class, else on its nearest superclass that has one
     * (an abstract base resource; a CDI proxy is a subclass), else on the nearest interface that
     * has one, found as {@link RouteTemplate#pathOf(Class)} finds the root {@code @Path}. Java
     * inherits no annotation from an interface, and {@code RateLimited} is not {@code @Inherited}.
     */
    static RateLimited[] onClass(Class<?> resourceClass) {
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            RateLimited[] declared = c.getDeclaredAnnotationsByType(RateLimited.class);
            if (declared.length > 0) {
                return declared;
            }
        }
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            RateLimited[] declared = onInterfaces(c.getInterfaces());
            if (declared.length > 0) {
                return declared;
            }
        }
        return new RateLimited[0];
    }

    private static RateLimited[] onInterfaces(Class<?>[] faces) {
        for (Class<?> face : faces) {
            RateLimited[] declared = face.getDeclaredAnnotationsByType(RateLimited.class);
            if (declared.length > 0) {
                return declared;
            }
        }
        for (Class<?> face : faces) {
            RateLimited[] declared = onInterfaces(face.getInterfaces());
            if (declared.length > 0) {
                return declared;
            }
        }
        return new RateLimited[0];
    }

    /**
     * The method's {@code @RateLimited}: its own, else that of the nearest method it overrides, in
     * the order in which it inherits its JAX-RS annotations ({@link RouteTemplate#annotated},
     * Jakarta REST section 3.6), up to the interface or superclass method that declares its {@code
     * @Path} and HTTP method: an API written as an annotated interface, limited there; or a
     * subclass that limits a route its base class declares, itself extended. Past the method that
     * declares the route nothing is inherited, as JAX-RS inherits nothing past it either; and a
     * method that declares JAX-RS annotations of its own inherits none (they replace the overridden
     * method's: Jakarta REST section 3.6), nor its limits ({@link #checkNoStrayAnnotations} refuses
     * them).
     */
    static RateLimited[] onMethod(Method method) {
        RateLimited[] own = method.getAnnotationsByType(RateLimited.class);
        if (own.length > 0 || RouteTemplate.hasJaxrsAnnotation(method)) {
            return own;
        }
        Method nearest = RouteTemplate.overridden(method, m -> m.getAnnotationsByType(RateLimited.class).length > 0);
        return nearest == null ? own : nearest.getAnnotationsByType(RateLimited.class);
    }

    /**
     * Whether {@code getMethod}'s class has a resource method of its own for {@code HEAD} on the
     * same path, written alike, that takes every request the {@code GET} one would: JAX-RS then
     * serves {@code HEAD} with that method (Jakarta REST section 3.3.5), not with the {@code GET}
     * one, whose limits must not count it. Where the {@code HEAD} method produces or consumes less
     * than the {@code GET} one, a runtime may serve some {@code HEAD} requests with the {@code GET}
     * method (CXF does, for an {@code Accept} only the {@code GET} method produces), which its
     * limits then count; so do paths that differ in a regular expression.
     */
    private static boolean servesHeadItself(Class<?> resourceClass, Method getMethod) {
        String path = RouteTemplate.joinWritten(RouteTemplate.pathOf(getMethod));
        for (Method other : SubResources.resourceMethods(resourceClass)) {
            if ("HEAD".equals(RouteTemplate.httpMethod(other))
                    && RouteTemplate.joinWritten(RouteTemplate.pathOf(other)).equals(path)
                    && covers(
                            mediaTypes(resourceClass, other, Produces.class),
                            mediaTypes(resourceClass, getMethod, Produces.class))
                    && covers(
                            mediaTypes(resourceClass, other, Consumes.class),
                            mediaTypes(resourceClass, getMethod, Consumes.class))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The media types of the method's {@code @Produces} or {@code @Consumes}, else its class's (or
     * the nearest superclass's); empty for none, which means any.
     */
    private static Set<String> mediaTypes(
            Class<?> resourceClass, Method method, Class<? extends java.lang.annotation.Annotation> kind) {
        java.lang.annotation.Annotation found = RouteTemplate.annotated(method).getAnnotation(kind);
        for (Class<?> c = resourceClass; found == null && c != null && c != Object.class; c = c.getSuperclass()) {
            found = c.getAnnotation(kind);
        }
        for (Class<?> c = resourceClass; found == null && c != null && c != Object.class; c = c.getSuperclass()) {
            found = onInterfaces(c.getInterfaces(), kind); // an API written as an annotated interface
        }
        String[] values = found == null
                ? new String[0]
                : found instanceof Produces produces ? produces.value() : ((Consumes) found).value();
        Set<String> types = new HashSet<>();
        for (String value : values) {
            for (String type : value.split(",")) {
                types.add(type.strip().toLowerCase(java.util.Locale.ROOT));
            }
        }
        types.remove("");
        return types;
    }

    /** The annotation of the nearest of {@code faces} (breadth first) that has one, or null. */
    private static java.lang.annotation.Annotation onInterfaces(
            Class<?>[] faces, Class<? extends java.lang.annotation.Annotation> kind) {
        for (Class<?> face : faces) {
            java.lang.annotation.Annotation found = face.getAnnotation(kind);
            if (found != null) {
                return found;
            }
        }
        for (Class<?> face : faces) {
            java.lang.annotation.Annotation found = onInterfaces(face.getInterfaces(), kind);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** Whether media types {@code head} take every one of {@code get} (empty: any). */
    private static boolean covers(Set<String> head, Set<String> get) {
        return head.isEmpty()
                || head.contains("*/*")
                || (!get.isEmpty() && !get.contains("*/*") && head.containsAll(get));
    }

    private void recordRoute(String httpMethod, String template) {
        routes.add(httpMethod + " " + template);
        if (httpMethod.equals("GET")) {
            routes.add("HEAD " + template); // JAX-RS answers HEAD with the GET method
        }
    }

    /** The routes of the resource methods bound so far: {@code GET /users/{id}}. */
    synchronized List<String> routes() {
        return List.copyOf(routes);
    }

    /**
     * Whether {@code route} ({@code "GET /events"}) is a resource method's that streams server-sent
     * events (takes an {@code SseEventSink}).
     */
    synchronized boolean streamsEvents(String route) {
        return eventStreams.contains(route);
    }

    /** The rules of every annotated method, in the order bound; no more are accepted after this. */
    synchronized List<FlowRule> close() {
        closed = true;
        Map<String, Set<List<RateLimited>>> fixed = new HashMap<>();
        subResourceLimits.forEach((route, limits) -> fixed.put(route, Set.copyOf(limits)));
        fixedLimits = Map.copyOf(fixed);
        return List.copyOf(rules);
    }

    private void bind(
            Class<?> resourceClass,
            Method method,
            String httpMethod,
            String template,
            String where,
            List<RateLimited> limits) {
        // Bound already: a root resource class that a locator returns too, reached that way later.
        String key = httpMethod + " " + template + " " + method;
        if (bound.contains(key)) {
            return;
        }
        if (closed) {
            throw new IllegalStateException("@RateLimited on " + where + " cannot be applied: Leapgate's rules are"
                    + " fixed when the application starts, and the runtime bound this method after it; write a"
                    + " rule.* for its route in the configuration");
        }
        bound.add(key);
        PathPattern match = PathPattern.route(httpMethod, template);
        if (httpMethod.equals("GET") && servesHeadItself(resourceClass, method)) {
            match = match.withoutHead();
        }
        List<FlowRule> built = new ArrayList<>();
        int fromClass = onClass(resourceClass).length; // limits() lists the class's first
        for (int i = 0; i < limits.size(); i++) {
            RateLimited limit = limits.get(i);
            // A class annotation is one rule per route: two methods of the class on one route (told
            // apart by @Produces or @Consumes) serve one route's requests, which one rule counts.
            if (i < fromClass && !classLimitsBound.add(List.of(httpMethod + " " + template, resourceClass, i))) {
                continue;
            }
            String name = !limit.name().isEmpty()
                    ? limit.name()
                    : derivedName(resourceClass, i < fromClass ? firstOnRoute(resourceClass, method) : method);
            FlowRule rule;
            try {
                rule = rule(limit, name, match);
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new IllegalArgumentException("invalid @RateLimited on " + where + ": " + e.getMessage(), e);
            }
            if (configured.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                throw new IllegalArgumentException("Leapgate: the rules from @RateLimited and the configuration clash:"
                        + " rule name '" + name + "' is used twice, by @RateLimited on " + where + " and by the"
                        + " configuration (an annotation's rule is named by @RateLimited(name = ...), or after its"
                        + " class and method)");
            }
            String other = declaredBy.get(name);
            if (other != null || built.stream().anyMatch(r -> r.name().equals(name))) {
                throw new IllegalArgumentException("invalid @RateLimited on " + where + ": name '" + name
                        + "' is already used by @RateLimited on " + (other != null ? other : where)
                        + "; rule names must be unique (leave name empty to derive one; a named annotation on a"
                        + " class applies to each of its methods, and on a sub-resource to each route that reaches"
                        + " it, so it fits one route)");
            }
            String conflict = conflicts.add(rule);
            if (conflict != null) {
                throw new IllegalArgumentException("invalid @RateLimited on " + where + ": " + conflict);
            }
            built.add(rule);
        }
        for (FlowRule rule : built) {
            declaredBy.put(rule.name(), where);
        }
        rules.addAll(built);
    }

    /**
     * Builds the rule of one annotation; the checks and their messages are {@link FlowRule}'s,
     * {@link WindowSpec}'s, {@link OnExcess}'s and the configuration's, as for a {@code rule.*}.
     */
    private FlowRule rule(RateLimited limit, String name, PathPattern match) {
        boolean rate = limit.limit() != 0 || !limit.window().isEmpty();
        boolean inFlight = limit.inFlight() != 0;
        if (rate && inFlight) {
            throw new IllegalArgumentException("set either limit and window (requests per window) or inFlight"
                    + " (requests at once), not both; use a second @RateLimited for the other");
        }
        if (!rate && !inFlight) {
            throw new IllegalArgumentException("needs limit and window, e.g. @RateLimited(limit = 10, window = \"1s\"),"
                    + " or inFlight, e.g. @RateLimited(inFlight = 20)");
        }
        FlowRule.Builder rule = FlowRule.builder(name).match(match);
        if (rate) {
            if (limit.window().isEmpty()) {
                throw new IllegalArgumentException(
                        "limit " + limit.limit() + " needs a window, e.g. window = \"1s\", \"1m\" or \"1h\"");
            }
            Duration window = duration("window", limit.window());
            rule.limit(limit.limit(), new WindowSpec(window, limit.buckets(), limit.mode()));
        } else {
            if (limit.buckets() != WindowSpec.DEFAULT_BUCKETS || limit.mode() != WindowMode.STRICT) {
                throw new IllegalArgumentException(
                        "buckets and mode apply only to a rate (limit and window)," + " not to inFlight");
            }
            rule.inFlight(limit.inFlight());
        }
        rule.scope(scope(limit));
        if (limit.maxOrigins() != FlowRule.DEFAULT_MAX_ORIGINS && limit.scope() != Scope.Kind.PER_ORIGIN) {
            // As the configuration's max-origins: set for a rule that tracks no origins, it says
            // that the rule was meant to count each client separately.
            throw new IllegalArgumentException(
                    "maxOrigins applies only to scope PER_ORIGIN; this rule's scope is " + limit.scope());
        }
        rule.onExcess(control(limit));
        rule.maxOrigins(limit.maxOrigins());
        return rule.build();
    }

    private Scope scope(RateLimited limit) {
        if (limit.scope() == Scope.Kind.ORIGIN) {
            if (limit.origin().isBlank()) {
                throw new IllegalArgumentException("scope ORIGIN needs origin, e.g. origin = \"203.0.113.7\"");
            }
            // The configuration's checks of scope = origin:<value>: an origin that no request can
            // have (a range, a name where clients are addresses, an exempt one) is refused.
            return ConfigParser.parseOriginScope(limit.origin(), originSource, exempt, ProviderSettings.PREFIX);
        }
        if (!limit.origin().isEmpty()) {
            throw new IllegalArgumentException("origin applies only to scope ORIGIN, not " + limit.scope());
        }
        return limit.scope() == Scope.Kind.PER_ORIGIN ? Scope.perOrigin() : Scope.all();
    }

    /**
     * The control: a setting left empty gets the kind's default ({@link OnExcess#of}); one the
     * kind does not use is passed on when set, so that {@link OnExcess} rejects it with its message.
     */
    private static OnExcess control(RateLimited limit) {
        return OnExcess.of(
                limit.onExcess(),
                setting("maxQueue", limit.maxQueue()),
                limit.coldFactor(),
                setting("warmUp", limit.warmUp()),
                setting("maxWait", limit.maxWait()));
    }

    private static Duration setting(String attribute, String text) {
        return text.isEmpty() ? null : duration(attribute, text);
    }

    private static Duration duration(String attribute, String text) {
        try {
            return ConfigParser.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(attribute + ": " + e.getMessage(), e);
        }
    }

    /**
     * The first, by name and parameter types, of the class's resource methods on {@code method}'s
     * route: what a class annotation's rule there is named after, whichever the runtime binds first.
     */
    private static Method firstOnRoute(Class<?> resourceClass, Method method) {
        String httpMethod = RouteTemplate.httpMethod(method);
        String path = RouteTemplate.join(RouteTemplate.pathOf(method));
        for (Method sibling : SubResources.resourceMethods(resourceClass)) {
            if (httpMethod.equals(RouteTemplate.httpMethod(sibling))
                    && path.equals(RouteTemplate.join(RouteTemplate.pathOf(sibling)))) {
                return sibling;
            }
        }
        return method;
    }

    /** {@code UserResource-get-1}: letters, digits, '-' and '_' only, numbered per class and method. */
    private String derivedName(Class<?> resourceClass, Method method) {
        String base = derivedBase(resourceClass, method);
        String name;
        do {
            int number = numbers.merge(base, 1, Integer::sum);
            name = base + "-" + number;
        } while (declaredBy.containsKey(name));
        return name;
    }

    /** {@code UserResource-get}, the derived names' base before their number. */
    private static String derivedBase(Class<?> resourceClass, Method method) {
        String base = sanitize(resourceClass.getSimpleName()) + "-" + sanitize(method.getName());
        return base.length() > MAX_BASE_LENGTH ? base.substring(0, MAX_BASE_LENGTH) : base;
    }

    private static String sanitize(String javaName) {
        StringBuilder s = new StringBuilder(javaName.length());
        for (int i = 0; i < javaName.length(); i++) {
            char c = javaName.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            s.append(allowed ? c : '_');
        }
        return s.length() == 0 ? "_" : s.toString();
    }

    /** {@code UserResource.get(String)}: the method as a reader finds it in the source. */
    static String describe(Class<?> resourceClass, Method method) {
        return resourceClass.getSimpleName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }
}
