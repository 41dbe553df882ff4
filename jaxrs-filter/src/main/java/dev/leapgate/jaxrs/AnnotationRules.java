package dev.leapgate.jaxrs;

import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.PathPattern;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Binds {@link RateLimited} to resource methods: the runtime calls {@link #configure} once per resource
 * method while the application starts, and each annotation of the method (and of its class) becomes
 * a {@link FlowRule} matching exactly the method's HTTP method and route template. Invalid values
 * throw here, so the application fails to start, with a message naming the method. Unannotated
 * methods get nothing.
 *
 * <p>Concurrency: called by the runtime while the application starts, on one thread; the methods that
 * collect are synchronized all the same, since sub-resources are bound later, on request threads
 * (where an annotation is refused: the rules are fixed by then).
 */
final class AnnotationRules implements DynamicFeature {

    /** Longest derived name before its "-N" suffix, so that the whole fits in 64 characters. */
    private static final int MAX_BASE_LENGTH = 56;

    private final List<FlowRule> rules = new ArrayList<>();
    /** Per rule name, the method that declared it, for messages about a name used twice. */
    private final Map<String, String> declaredBy = new HashMap<>();
    /** Per derived base name (Class-method), the last number used. */
    private final Map<String, Integer> numbers = new HashMap<>();
    /** Resource methods already bound, as "HTTP-method template Java-method". */
    private final Set<String> bound = new HashSet<>();
    /** Every resource method's route, as "HTTP-method template", annotated or not. */
    private final Set<String> routes = new java.util.LinkedHashSet<>();

    /** The names of the configuration's rules, lower case: an annotation may not take one. */
    private final Set<String> configured;

    private boolean closed;

    /** @param configured the names of the rules the configuration writes */
    AnnotationRules(Set<String> configured) {
        this.configured = configured.stream()
                .map(n -> n.toLowerCase(java.util.Locale.ROOT))
                .collect(Collectors.toSet());
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Class<?> resourceClass = resourceInfo.getResourceClass();
        Method method = resourceInfo.getResourceMethod();
        if (resourceClass == null || method == null) {
            return;
        }
        String httpMethod = RouteTemplate.httpMethod(method);
        if (httpMethod == null) {
            return; // a sub-resource locator (CXF reports them too): no resource method, no route of its own
        }
        // A class without @Path is reached through a locator only: its template here lacks the
        // locators' (GET /{id} for GET /orgs/{org}/members/{id}), so neither a route nor a rule.
        boolean root = RouteTemplate.pathOf(resourceClass) != null;
        if (root) {
            recordRoute(resourceClass, method, httpMethod);
        }
        RateLimited[] onClass = onClass(resourceClass);
        RateLimited[] onMethod = onMethod(method);
        if (onClass.length == 0 && onMethod.length == 0) {
            return;
        }
        if (!root) {
            throw reachedThroughLocator(describe(resourceClass, method));
        }
        bind(resourceClass, method, httpMethod, onClass, onMethod);
    }

    private static IllegalStateException reachedThroughLocator(String where) {
        return new IllegalStateException("@RateLimited on " + where + " cannot be applied: the method is reached"
                + " through a sub-resource locator, and Leapgate's rules are fixed when the application"
                + " starts; annotate root resources (classes with @Path), or write a rule.* for the full"
                + " template in the configuration");
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
     * The method's {@code @RateLimited}: its own, else, as it inherits its JAX-RS annotations
     * ({@link RouteTemplate#annotated}, Jakarta REST section 3.6), those of the interface or
     * superclass method that declares its {@code @Path} and HTTP method (an API written as an
     * annotated interface, limited there).
     */
    static RateLimited[] onMethod(Method method) {
        RateLimited[] own = method.getAnnotationsByType(RateLimited.class);
        if (own.length > 0) {
            return own;
        }
        Method annotated = RouteTemplate.annotated(method);
        return annotated == method ? own : annotated.getAnnotationsByType(RateLimited.class);
    }

    private synchronized void recordRoute(Class<?> resourceClass, Method method, String httpMethod) {
        String template = RouteTemplate.join(RouteTemplate.pathOf(resourceClass), RouteTemplate.pathOf(method));
        routes.add(httpMethod + " " + template);
        if (httpMethod.equals("GET")) {
            routes.add("HEAD " + template); // JAX-RS answers HEAD with the GET method
        }
    }

    /** The routes of the resource methods bound so far: {@code GET /users/{id}}. */
    synchronized List<String> routes() {
        return List.copyOf(routes);
    }

    /** The rules of every annotated method, in the order bound; no more are accepted after this. */
    synchronized List<FlowRule> close() {
        closed = true;
        return List.copyOf(rules);
    }

    private synchronized void bind(
            Class<?> resourceClass, Method method, String httpMethod, RateLimited[] onClass, RateLimited[] onMethod) {
        String where = describe(resourceClass, method);
        String template = RouteTemplate.join(RouteTemplate.pathOf(resourceClass), RouteTemplate.pathOf(method));
        // Bound already: a root resource class that a locator returns too, reached that way later.
        String key = httpMethod + " " + template + " " + method;
        if (bound.contains(key)) {
            return;
        }
        if (closed) {
            throw reachedThroughLocator(where);
        }
        bound.add(key);
        PathPattern match = PathPattern.route(httpMethod, template);
        List<RateLimited> all = new ArrayList<>(Arrays.asList(onClass));
        all.addAll(Arrays.asList(onMethod));
        List<FlowRule> built = new ArrayList<>();
        for (RateLimited limit : all) {
            String name = limit.name().isEmpty() ? derivedName(resourceClass, method) : limit.name();
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
                        + " class applies to each of its methods, so it fits a class with one resource method)");
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
     * {@link WindowSpec}'s and {@link OnExcess}'s, as for the configuration.
     */
    static FlowRule rule(RateLimited limit, String name, PathPattern match) {
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
        rule.onExcess(control(limit));
        rule.maxOrigins(limit.maxOrigins());
        return rule.build();
    }

    private static Scope scope(RateLimited limit) {
        if (limit.scope() == Scope.Kind.ORIGIN) {
            if (limit.origin().isBlank()) {
                throw new IllegalArgumentException("scope ORIGIN needs origin, e.g. origin = \"203.0.113.7\"");
            }
            return Scope.origin(limit.origin().strip());
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

    /** {@code UserResource-get-1}: letters, digits, '-' and '_' only, numbered per class and method. */
    private String derivedName(Class<?> resourceClass, Method method) {
        String base = sanitize(resourceClass.getSimpleName()) + "-" + sanitize(method.getName());
        if (base.length() > MAX_BASE_LENGTH) {
            base = base.substring(0, MAX_BASE_LENGTH);
        }
        String name;
        do {
            int number = numbers.merge(base, 1, Integer::sum);
            name = base + "-" + number;
        } while (declaredBy.containsKey(name));
        return name;
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
