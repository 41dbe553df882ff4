package dev.leapgate.jaxrs;

import dev.leapgate.http.PathPattern;
import dev.leapgate.http.RequestPath;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.UriInfo;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The route template that names a JAX-RS request for rate limiting: the {@code @Path} templates it
 * was matched through, joined, without their regular expressions: {@code /users/{id}}, never the
 * raw URL {@code /users/42}. Read from the standard API alone, so it is the same on every runtime:
 * the resource class's and the resource method's {@code @Path} ({@link ResourceInfo}), and for a
 * request reached through sub-resource locators, the locator of each matched resource ({@link
 * UriInfo#getMatchedResources}): the method of the parent's class that has a {@code @Path}, no HTTP
 * method, and returns the sub-resource's type (the most specific one, if several do).
 *
 * <p>Rules match this text with {@link PathPattern} semantics after the usual {@link RequestPath}
 * normalization, which spells the braces of a template variable as {@code %7B} and {@code %7D}: a
 * template variable is one literal segment, so {@code GET /users/{id}} and {@code GET /users/*}
 * match the template {@code /users/{id}}, and so does {@code /users/**}. Annotation rules use
 * {@link PathPattern#route}, a literal pattern that matches their own template and no other.
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

    /** The template of the request being filtered, after resource matching. */
    String of(UriInfo uriInfo, ResourceInfo resourceInfo) {
        Method method = resourceInfo.getResourceMethod();
        Class<?> resourceClass = resourceInfo.getResourceClass();
        if (method == null || resourceClass == null) {
            return "/"; // not matched to a resource method: a pre-matching abort, an OPTIONS default
        }
        List<Object> matched = uriInfo.getMatchedResources();
        if (matched.size() <= 1) {
            Map<Method, String> templates = direct.get(resourceClass);
            String template = templates.get(method); // no lambda captured on the common path: a hit
            return template != null
                    ? template
                    : templates.computeIfAbsent(method, m -> join(pathOf(resourceClass), pathOf(m)));
        }
        StringBuilder path = new StringBuilder(64);
        appendSegments(pathOf(classOf(matched.get(matched.size() - 1))), path);
        for (int i = matched.size() - 1; i >= 1; i--) {
            Method locator = locator(classOf(matched.get(i)), classOf(matched.get(i - 1)));
            appendSegments(locator == null ? null : pathOf(locator), path);
        }
        appendSegments(pathOf(method), path);
        return path.length() == 0 ? "/" : path.toString();
    }

    private static Class<?> classOf(Object resource) {
        return resource instanceof Class<?> c ? c : resource.getClass();
    }

    /** The sub-resource locator of {@code parent} that returns a {@code child}, or null. */
    private static Method locator(Class<?> parent, Class<?> child) {
        Method best = null;
        for (Method m : parent.getMethods()) {
            if (pathOf(m) != null
                    && httpMethod(m) == null
                    && m.getReturnType().isAssignableFrom(child)
                    && (best == null || best.getReturnType().isAssignableFrom(m.getReturnType()))) {
                best = m;
            }
        }
        return best;
    }

    /** The method's HTTP method ({@code @GET} and friends, or a custom {@code @HttpMethod}), or null. */
    static String httpMethod(Method method) {
        for (Annotation annotation : method.getAnnotations()) {
            HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
            if (http != null) {
                return http.value();
            }
        }
        return null;
    }

    /** The {@code @Path} of the class or its nearest superclass (a CDI proxy is a subclass), or null. */
    static String pathOf(Class<?> resourceClass) {
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            Path path = c.getAnnotation(Path.class);
            if (path != null) {
                return path.value();
            }
        }
        return null;
    }

    /** The method's {@code @Path}, or null. */
    static String pathOf(Method method) {
        Path path = method.getAnnotation(Path.class);
        return path == null ? null : path.value();
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
            int nameEnd = i + 1;
            while (nameEnd < length && template.charAt(nameEnd) != ':' && template.charAt(nameEnd) != '}') {
                nameEnd++;
            }
            out.append('{').append(template.substring(i + 1, nameEnd).strip()).append('}');
            if (nameEnd < length && template.charAt(nameEnd) == ':') {
                int depth = 1;
                int k = nameEnd + 1;
                while (k < length && depth > 0) {
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
                i = k;
            } else {
                i = nameEnd + 1;
            }
        }
        return out.toString();
    }
}
