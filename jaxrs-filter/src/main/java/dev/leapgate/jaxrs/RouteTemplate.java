package dev.leapgate.jaxrs;

import dev.leapgate.http.PathPattern;
import dev.leapgate.http.RequestPath;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.PathSegment;
import jakarta.ws.rs.core.UriInfo;
import java.lang.annotation.Annotation;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The route template that names a JAX-RS request for rate limiting: the {@code @Path} templates it
 * was matched through, joined, without their regular expressions: {@code /users/{id}}, never the
 * raw URL {@code /users/42}. Read from the standard API alone, so it is the same on every runtime:
 * the resource class's and the resource method's {@code @Path} ({@link ResourceInfo}), and for a
 * request reached through sub-resource locators, the locator of each matched resource ({@link
 * UriInfo#getMatchedResources}): the method of the parent's class that has a {@code @Path}, no HTTP
 * method, and returns the sub-resource's type (or a supertype, or {@code Class}); where several
 * do, the one whose template, joined with the others, matches the request's path, as the runtime
 * matched it (otherwise {@code /docs/public/1} and {@code /docs/internal/1} through two locators
 * returning one type would share one name, and one route would escape the other's rules).
 *
 * <p>Rules match this text with {@link PathPattern} semantics after the usual {@link RequestPath}
 * normalization, which spells the braces of a template variable as {@code %7B} and {@code %7D}: a
 * template variable is one literal segment, so {@code GET /users/{id}} and {@code GET /users/*}
 * match the template {@code /users/{id}}, and so does {@code /users/**}. Annotation rules use
 * {@link PathPattern#route}, a literal pattern that matches their own template and no other.
 *
 * <p>A request reached through locators is shown to {@link AnnotationRules#reached} too, which
 * refuses it if its method's {@code @RateLimited} is not in force on that template (a route that
 * the walk of the locators at the start could not find).
 *
 * <p>Concurrency: the templates of resource methods reached directly are computed once and cached
 * (one entry per resource class and method of the application, never per request); thread-safe.
 */
final class RouteTemplate {

    /**
     * Per resource class, and per resource method reached through it without a locator, its
     * template. By class too: a method declared in a base class is one {@link Method} for every
     * resource class that inherits it, each under its own {@code @Path}.
     */
    private final ClassValue<Map<Method, String>> direct = new ClassValue<>() {
        @Override
        protected Map<Method, String> computeValue(Class<?> resourceClass) {
            return new ConcurrentHashMap<>();
        }
    };

    /**
     * Per combination of templates joined for a request reached through several sub-resource
     * locators that return one type, its regular expression ({@link #regex}); as many as the
     * application's code has.
     */
    private final Map<List<String>, Pattern> regexes = new ConcurrentHashMap<>();

    /**
     * Per method reached below a sub-resource locator, whether it is the runtime's own handler (it
     * has no HTTP method: Jersey's for an OPTIONS request it answers itself); as many as the
     * application's code has.
     */
    private final Map<Method, Boolean> runtimeHandlers = new ConcurrentHashMap<>();

    private final AnnotationRules annotations;

    /** @param annotations the application's annotation rules, told of each request reached through locators */
    RouteTemplate(AnnotationRules annotations) {
        this.annotations = annotations;
    }

    /**
     * The template of the request being filtered, after resource matching; for a request matched to
     * no resource method of the application, its path ({@link #unmatched}).
     *
     * @throws AnnotationRules.NotInForce if the request reached a sub-resource method whose {@code
     *     RateLimited} is not in force on its template ({@link AnnotationRules#reached})
     */
    String of(UriInfo uriInfo, ResourceInfo resourceInfo) {
        Method method = resourceInfo.getResourceMethod();
        Class<?> resourceClass = resourceInfo.getResourceClass();
        if (method == null || resourceClass == null) {
            return unmatched(uriInfo);
        }
        List<Object> matched = uriInfo.getMatchedResources();
        if (matched.size() <= 1) {
            Map<Method, String> templates = direct.get(resourceClass);
            String template = templates.get(method); // no lambda captured on the common path: a hit
            if (template == null) {
                template = templates.computeIfAbsent(
                        method,
                        m -> pathOf(resourceClass) == null ? NOT_A_ROUTE : join(pathOf(resourceClass), pathOf(m)));
            }
            return template != NOT_A_ROUTE ? template : unmatched(uriInfo);
        }
        if (runtimeHandlers.computeIfAbsent(method, RouteTemplate::isRuntimeHandler)) {
            return unmatched(uriInfo); // no route of the application: named by its path, as at the root
        }
        String[] chosen = new String[matched.size() + 1];
        chosen[0] = pathOf(classOf(matched.get(matched.size() - 1)));
        chosen[chosen.length - 1] = pathOf(method);
        List<List<String>> steps = new ArrayList<>(matched.size() - 1);
        boolean ambiguous = false;
        for (int i = matched.size() - 1; i >= 1; i--) {
            List<String> candidates = locators(classOf(matched.get(i)), classOf(matched.get(i - 1)));
            ambiguous |= candidates.size() > 1;
            steps.add(candidates);
        }
        if (!ambiguous || !choose(steps, 0, chosen, requestPath(uriInfo))) {
            for (int s = 0; s < steps.size(); s++) {
                chosen[s + 1] = steps.get(s).isEmpty() ? null : steps.get(s).get(0);
            }
        }
        String template = join(chosen);
        annotations.reached(
                classOf(matched.get(1)), chosen[chosen.length - 2], classOf(matched.get(0)), method, template);
        return template;
    }

    /**
     * What {@link #direct} holds for a method reached without a root resource class: the handler of
     * an OPTIONS request that the runtime answers itself (Jersey's, an {@code Inflector}, which it
     * filters; RESTEasy and CXF filter none).
     */
    private static final String NOT_A_ROUTE = "";

    /**
     * The name of a request matched to no resource method of the application: its own path, so that
     * the rules without a method of that path apply to it (a rule without a method covers OPTIONS),
     * and not the rules of the root path {@code /}.
     */
    private static String unmatched(UriInfo uriInfo) {
        String path = uriInfo.getPath(false);
        return path.startsWith("/") ? path : "/" + path; // RESTEasy's starts with it, Jersey's and CXF's do not
    }

    private static Class<?> classOf(Object resource) {
        return resource instanceof Class<?> c ? c : resource.getClass();
    }

    /**
     * The {@code @Path}s of the sub-resource locators of {@code parent} that may have returned a
     * {@code child}: methods with a {@code @Path} and no HTTP method whose return type is the
     * child's type, a supertype of it, or {@code Class} (a locator may return the class to
     * instantiate). Several may fit ({@code @Path("public") Doc} and {@code @Path("internal")
     * Doc}): then the request's path decides ({@link #choose}). Ordered as JAX-RS prefers
     * templates (more literal characters first, then more template variables, then more variables
     * with an expression of their own), then by method name, so that the order never depends on
     * {@link Class#getMethods}'.
     */
    private static List<String> locators(Class<?> parent, Class<?> child) {
        List<Method> found = new ArrayList<>(2);
        for (Method m : parent.getMethods()) {
            Class<?> returned = m.getReturnType();
            if ((returned.isAssignableFrom(child) || returned == Class.class)
                    && pathOf(m) != null
                    && httpMethod(m) == null) {
                found.add(m);
            }
        }
        if (found.size() > 1) {
            found.sort(Comparator.comparingInt((Method m) -> -literalCharacters(pathOf(m)))
                    .thenComparingInt(m -> -variables(pathOf(m), false))
                    .thenComparingInt(m -> -variables(pathOf(m), true))
                    .thenComparing(Method::getName));
        }
        List<String> paths = new ArrayList<>(found.size());
        for (Method m : found) {
            paths.add(pathOf(m));
        }
        return paths;
    }

    /** The characters of {@code template} outside its variables and slashes. */
    private static int literalCharacters(String template) {
        String plain = withoutRegex(template);
        int count = 0;
        boolean inVariable = false;
        for (int i = 0; i < plain.length(); i++) {
            char c = plain.charAt(i);
            if (c == '{' || c == '}') {
                inVariable = c == '{';
            } else if (!inVariable && c != '/') {
                count++;
            }
        }
        return count;
    }

    /** The template variables of {@code template}, or with {@code ownExpression} those with an expression of their own. */
    private static int variables(String template, boolean ownExpression) {
        int count = 0;
        for (int open = template.indexOf('{'); open >= 0; ) {
            int nameEnd = nameEnd(template, open);
            boolean expression = nameEnd < template.length() && template.charAt(nameEnd) == ':';
            if (!ownExpression || expression) {
                count++;
            }
            open = template.indexOf('{', expression ? regexEnd(template, nameEnd) : nameEnd + 1);
        }
        return count;
    }

    /**
     * Fills {@code chosen[step + 1]} onwards with the first combination of locator templates whose
     * whole template matches {@code path}; returns whether one did.
     */
    private boolean choose(List<List<String>> steps, int step, String[] chosen, String path) {
        if (step == steps.size()) {
            return regex(chosen).matcher(path).matches();
        }
        List<String> candidates = steps.get(step);
        if (candidates.isEmpty()) {
            chosen[step + 1] = null;
            return choose(steps, step + 1, chosen, path);
        }
        for (String candidate : candidates) {
            chosen[step + 1] = candidate;
            if (choose(steps, step + 1, chosen, path)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The request's path as the runtime matched it, encoded ({@code /docs/int%65rnal/1} is not
     * {@code /docs/internal/1}, and {@code x%2Fy} one segment), without matrix parameters or empty
     * segments: {@code /docs/public/1}.
     */
    private static String requestPath(UriInfo uriInfo) {
        StringBuilder path = new StringBuilder(64);
        for (PathSegment segment : uriInfo.getPathSegments(false)) {
            if (!segment.getPath().isEmpty()) {
                path.append('/').append(segment.getPath());
            }
        }
        return path.length() == 0 ? "/" : path.toString();
    }

    /**
     * The regular expression that JAX-RS matches the joined {@code templates} with: a variable is
     * one segment ({@code [^/]+}) or its own expression. One per combination of the application's
     * templates, so cached.
     */
    private Pattern regex(String[] templates) {
        List<String> key = new ArrayList<>(templates.length);
        for (String template : templates) {
            key.add(template == null ? "" : template);
        }
        Pattern cached = regexes.get(key);
        if (cached != null) {
            return cached;
        }
        StringBuilder regex = new StringBuilder(64);
        for (String template : key) {
            String part = stripSlashes(template);
            if (!part.isEmpty()) {
                regex.append('/');
                appendRegex(part, regex);
            }
        }
        Pattern compiled = Pattern.compile(regex.length() == 0 ? "/" : regex.toString());
        regexes.putIfAbsent(List.copyOf(key), compiled);
        return compiled;
    }

    private static String stripSlashes(String template) {
        int from = 0;
        int to = template.length();
        while (from < to && template.charAt(from) == '/') {
            from++;
        }
        while (to > from && template.charAt(to - 1) == '/') {
            to--;
        }
        return template.substring(from, to);
    }

    /** Appends the regular expression of one {@code @Path} value; literals are quoted. */
    private static void appendRegex(String template, StringBuilder out) {
        int i = 0;
        int length = template.length();
        while (i < length) {
            if (template.charAt(i) != '{') {
                int next = template.indexOf('{', i);
                int end = next < 0 ? length : next;
                out.append(Pattern.quote(template.substring(i, end)));
                i = end;
                continue;
            }
            int nameEnd = nameEnd(template, i);
            if (nameEnd < length && template.charAt(nameEnd) == ':') {
                int k = regexEnd(template, nameEnd);
                out.append("(?:")
                        .append(template, nameEnd + 1, Math.max(nameEnd + 1, k - 1))
                        .append(')');
                i = k;
            } else {
                out.append("[^/]+");
                i = nameEnd + 1;
            }
        }
    }

    /** The method's HTTP method ({@code @GET} and friends, or a custom {@code @HttpMethod}), or null. */
    private static boolean isRuntimeHandler(Method method) {
        return httpMethod(method) == null;
    }

    static String httpMethod(Method method) {
        for (Annotation annotation : annotated(method).getAnnotations()) {
            HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
            if (http != null) {
                return http.value();
            }
        }
        return null;
    }

    /**
     * The {@code @Path} of the class or its nearest superclass (a CDI proxy is a subclass), or else
     * of the nearest interface it implements (an API written as an interface down to its root path,
     * as OpenAPI generators write it, which Jersey, RESTEasy and CXF all serve); null if none has
     * one.
     */
    static String pathOf(Class<?> resourceClass) {
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            Path path = c.getAnnotation(Path.class);
            if (path != null) {
                return path.value();
            }
        }
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            String path = interfacePath(c.getInterfaces());
            if (path != null) {
                return path;
            }
        }
        return null;
    }

    /** The {@code @Path} of the first of {@code faces}, or of their superinterfaces, that has one. */
    private static String interfacePath(Class<?>[] faces) {
        for (Class<?> face : faces) {
            Path path = face.getAnnotation(Path.class);
            if (path != null) {
                return path.value();
            }
        }
        for (Class<?> face : faces) {
            String path = interfacePath(face.getInterfaces());
            if (path != null) {
                return path;
            }
        }
        return null;
    }

    /** The method's {@code @Path}, or null; inherited as JAX-RS inherits it ({@link #annotated}). */
    static String pathOf(Method method) {
        Path path = annotated(method).getAnnotation(Path.class);
        return path == null ? null : path.value();
    }

    /**
     * The method whose JAX-RS annotations {@code method} has: itself if it has a {@code @Path} or an
     * HTTP method, else, as Jakarta REST inherits them (section 3.6), the one it overrides in a
     * superclass, or else implements from an interface, that has (an API written as an annotated
     * interface, its implementation unannotated: RESTEasy and CXF name the implementation's method
     * in {@code ResourceInfo}). Computed once per method.
     */
    static Method annotated(Method method) {
        Map<Method, Method> known = ANNOTATED.get(method.getDeclaringClass());
        Method found = known.get(method);
        if (found == null) {
            found = hasJaxrsAnnotation(method)
                    ? method
                    : inherited(method.getDeclaringClass(), method, RouteTemplate::hasJaxrsAnnotation);
            known.put(method, found == null ? method : found);
            return found == null ? method : found;
        }
        return found;
    }

    private static final ClassValue<Map<Method, Method>> ANNOTATED = new ClassValue<>() {
        @Override
        protected Map<Method, Method> computeValue(Class<?> declaringClass) {
            return new ConcurrentHashMap<>();
        }
    };

    /** Whether {@code method} declares JAX-RS annotations of its own ({@code @Path}, an HTTP method). */
    static boolean hasJaxrsAnnotation(Method method) {
        if (method.isAnnotationPresent(Path.class)) {
            return true;
        }
        for (Annotation annotation : method.getAnnotations()) {
            if (annotation.annotationType().isAnnotationPresent(HttpMethod.class)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The nearest method that {@code method} overrides, in the order in which Jakarta REST looks for
     * inherited annotations ({@link #annotated}), that has JAX-RS annotations or satisfies {@code
     * wanted}; null if none. The search ends at a method with JAX-RS annotations, as the
     * inheritance of annotations does: what it overrides in turn is replaced by it.
     */
    static Method overridden(Method method, Predicate<Method> wanted) {
        return inherited(method.getDeclaringClass(), method, m -> hasJaxrsAnnotation(m) || wanted.test(m));
    }

    /** The nearest method of {@code type}'s supertypes, superclasses first, that {@code method} overrides and that is {@code found}. */
    private static Method inherited(Class<?> type, Method method, Predicate<Method> found) {
        Class<?> superclass = type.getSuperclass();
        if (superclass != null && superclass != Object.class) {
            Method in = foundIn(superclass, method, found);
            if (in != null) {
                return in;
            }
        }
        for (Class<?> face : type.getInterfaces()) {
            Method in = foundIn(face, method, found);
            if (in != null) {
                return in;
            }
        }
        return null;
    }

    private static Method foundIn(Class<?> type, Method method, Predicate<Method> found) {
        Method generic = null;
        for (Method candidate : type.getDeclaredMethods()) {
            if (!candidate.getName().equals(method.getName()) || !found.test(candidate)) {
                continue;
            }
            if (Arrays.equals(candidate.getParameterTypes(), method.getParameterTypes())) {
                return candidate;
            }
            if (generic == null && overridesGeneric(candidate, method)) {
                generic = candidate;
            }
        }
        return generic != null ? generic : inherited(type, method, found);
    }

    /**
     * Whether {@code method} implements {@code candidate} of a generic supertype ({@code put(String)}
     * of a class implementing {@code Api<String>}, whose {@code put(T)} erases to {@code
     * put(Object)}): each parameter is the same type, or one that the candidate's type variable, or
     * generic array, erases to a supertype of.
     */
    private static boolean overridesGeneric(Method candidate, Method method) {
        Class<?>[] declared = candidate.getParameterTypes();
        Class<?>[] actual = method.getParameterTypes();
        if (declared.length != actual.length) {
            return false;
        }
        Type[] generic = candidate.getGenericParameterTypes();
        for (int i = 0; i < declared.length; i++) {
            boolean variable = generic[i] instanceof TypeVariable<?> || generic[i] instanceof GenericArrayType;
            if (declared[i] != actual[i] && !(variable && declared[i].isAssignableFrom(actual[i]))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The {@code @Path}s {@code templates} joined as written, regular expressions kept, with one
     * slash between them and none at the ends ({@code users/{id: \\d+}}); nulls left out. Two routes
     * with one {@link #join template} are written alike if this text is the same.
     */
    static String joinWritten(String... templates) {
        StringBuilder written = new StringBuilder(64);
        for (String template : templates) {
            String part = template == null ? "" : stripSlashes(template);
            if (!part.isEmpty()) {
                written.append(written.length() == 0 ? "" : "/").append(part);
            }
        }
        return written.toString();
    }

    /**
     * Joins {@code @Path} values, outermost first: {@code ("users", "{id: \\d+}")} gives {@code
     * /users/{id}}. Empty segments are dropped, so slashes at either end of a value do not matter.
     */
    static String join(String... templates) {
        StringBuilder path = new StringBuilder(64);
        for (String template : templates) {
            appendSegments(template, path);
        }
        return path.length() == 0 ? "/" : path.toString();
    }

    private static void appendSegments(String template, StringBuilder out) {
        if (template == null) {
            return;
        }
        String plain = withoutRegex(template);
        int i = 0;
        int length = plain.length();
        while (i < length) {
            int end = plain.indexOf('/', i);
            if (end < 0) {
                end = length;
            }
            if (end > i) {
                out.append('/').append(plain, i, end);
            }
            i = end + 1;
        }
    }

    /**
     * {@code {name: regex}} becomes {@code {name}}; braces nested in the regex (a quantifier such as
     * {@code {3}}) and escaped characters are skipped. A template without variables is returned as
     * it is.
     */
    static String withoutRegex(String template) {
        if (template.indexOf('{') < 0) {
            return template;
        }
        StringBuilder out = new StringBuilder(template.length());
        int i = 0;
        int length = template.length();
        while (i < length) {
            char c = template.charAt(i);
            if (c != '{') {
                out.append(c);
                i++;
                continue;
            }
            int nameEnd = nameEnd(template, i);
            out.append('{').append(template.substring(i + 1, nameEnd).strip()).append('}');
            i = nameEnd < length && template.charAt(nameEnd) == ':' ? regexEnd(template, nameEnd) : nameEnd + 1;
        }
        return out.toString();
    }

    /** Where the name of the template variable opened at {@code open} ends: at its ':' or its '}' (or the end). */
    private static int nameEnd(String template, int open) {
        int end = open + 1;
        while (end < template.length() && template.charAt(end) != ':' && template.charAt(end) != '}') {
            end++;
        }
        return end;
    }

    /**
     * Just past the '}' that closes a variable's regular expression, which starts after the ':' at
     * {@code colon}: braces within it nest, and a backslash escapes the next character.
     */
    private static int regexEnd(String template, int colon) {
        int depth = 1;
        int k = colon + 1;
        while (k < template.length() && depth > 0) {
            char r = template.charAt(k);
            if (r == '\\') {
                k++;
            } else if (r == '{') {
                depth++;
            } else if (r == '}') {
                depth--;
            }
            k++;
        }
        return k;
    }
}
