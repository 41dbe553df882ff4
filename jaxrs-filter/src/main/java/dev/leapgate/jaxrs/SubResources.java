package dev.leapgate.jaxrs;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The routes a root resource class serves through its sub-resource locators, found from its code
 * when the application starts, so that {@link RateLimited} on a sub-resource's methods is checked
 * and in force before the first request (JAX-RS runtimes bind sub-resources only when a request
 * reaches them, or never show them to a {@code DynamicFeature}: CXF).
 *
 * <p>A locator is a public method with a {@code @Path} and no HTTP method ({@link
 * RouteTemplate#pathOf(Method)}, {@link RouteTemplate#httpMethod}, inherited as Jakarta REST
 * inherits them). The class it returns is its return type, or for a {@code Class<X>} or {@code
 * Class<? extends X>}, {@code X}; the walk goes on into that class's resource methods and
 * locators, joining the templates on the way: root {@code @Path}, each locator's {@code @Path},
 * the method's {@code @Path} ({@code GET /orgs/{org}/members/{id}}). A sub-resource's own class
 * {@code @Path}, if it has one, is not part of the route, as JAX-RS ignores it there. A locator
 * returning {@code Object} or {@code Class<?>} names no class: its routes are known only when a
 * request takes them ({@link AnnotationRules#reached}).
 *
 * <p>A locator that returns a class already on the way down (a tree of any depth: {@code
 * Node.child()} returns {@code Node}) is followed one level more, and every route found below the
 * first visit of that class is marked {@link Route#recursion}: such a route stands for routes of
 * every depth, which no one rule on one template covers.
 *
 * <p>The order is fixed by the code, never by {@link Class#getMethods}': locators by template,
 * then name; resource methods by name, then parameter types.
 */
final class SubResources {

    /**
     * One resource method of a sub-resource class, on one route.
     *
     * @param resourceClass the sub-resource class, as the locator declares it
     * @param method its resource method
     * @param httpMethod the method's HTTP method
     * @param template the full route template, without regular expressions: {@code /orgs/{org}/members/{id}}
     * @param written the {@code @Path}s it is joined from, as written, regular expressions included
     * @param recursion null, or why the route repeats at every depth ({@code Node.child() returns
     *     Node again}) and the pattern that covers all of them ({@code GET /tree/{name}/**})
     */
    record Route(
            Class<?> resourceClass,
            Method method,
            String httpMethod,
            String template,
            String written,
            Recursion recursion) {}

    /** Recursive locators below a route: which locator returns a class again, and a pattern that covers every depth. */
    record Recursion(String locator, String pattern) {}

    /**
     * A sub-resource locator found on the way.
     *
     * @param resourceClass the class whose locator it is
     * @param method the locator
     * @param template the route template up to and including the locator's {@code @Path}
     */
    record Locator(Class<?> resourceClass, Method method, String template) {}

    /**
     * What a root resource class serves through its locators.
     *
     * @param routes its sub-resource routes, in a fixed order
     * @param locators whether the class, or a sub-resource, has a locator at all
     * @param locatorsWalked the locators found, in the order walked
     */
    record Walk(List<Route> routes, boolean locators, List<Locator> locatorsWalked) {}

    private final List<Route> routes = new ArrayList<>();
    private final List<Locator> locatorsWalked = new ArrayList<>();
    /** Per class found recurring, the locator that returns it again ({@code Node.child() returns Node again}). */
    private final Map<Class<?>, String> recurring = new HashMap<>();

    private boolean locators;

    private SubResources() {}

    /** Walks the locators of {@code root}, a root resource class ({@link RouteTemplate#pathOf(Class)} not null). */
    static Walk walk(Class<?> root) {
        SubResources walk = new SubResources();
        List<String> template = List.of(RouteTemplate.pathOf(root));
        walk.descend(root, template, List.of(root));
        walk.markRecurring(root, 0, template);
        return new Walk(List.copyOf(walk.routes), walk.locators, List.copyOf(walk.locatorsWalked));
    }

    private void descend(Class<?> parent, List<String> templates, List<Class<?>> path) {
        for (Method locator : locators(parent)) {
            locators = true;
            List<String> below = with(templates, RouteTemplate.pathOf(locator));
            locatorsWalked.add(new Locator(parent, locator, RouteTemplate.join(below.toArray(new String[0]))));
            Class<?> child = returned(locator);
            if (child == null) {
                continue; // Object or Class<?>: known only when a request takes it
            }
            int from = routes.size();
            addRoutes(child, below);
            if (path.contains(child)) {
                // Once more, so that the class's own methods are found recurring too; no further.
                recurring.putIfAbsent(
                        child,
                        AnnotationRules.describe(parent, locator) + " returns " + child.getSimpleName() + " again");
                continue;
            }
            descend(child, below, with(path, child));
            markRecurring(child, from, below);
        }
    }

    private void addRoutes(Class<?> resourceClass, List<String> templates) {
        for (Method method : resourceMethods(resourceClass)) {
            List<String> all = with(templates, RouteTemplate.pathOf(method));
            String template = RouteTemplate.join(all.toArray(new String[0]));
            routes.add(new Route(
                    resourceClass,
                    method,
                    RouteTemplate.httpMethod(method),
                    template,
                    RouteTemplate.joinWritten(all.toArray(new String[0])),
                    null));
        }
    }

    /**
     * If {@code visited} was found recurring below, marks the routes found since {@code from}: they
     * repeat at every depth below {@code templates}.
     */
    private void markRecurring(Class<?> visited, int from, List<String> templates) {
        String locator = recurring.remove(visited);
        if (locator == null) {
            return;
        }
        String below = RouteTemplate.join(templates.toArray(new String[0]));
        String pattern = below.equals("/") ? "/**" : below + "/**";
        for (int i = from; i < routes.size(); i++) {
            Route route = routes.get(i);
            if (route.recursion() == null) {
                routes.set(
                        i,
                        new Route(
                                route.resourceClass(),
                                route.method(),
                                route.httpMethod(),
                                route.template(),
                                route.written(),
                                new Recursion(locator, route.httpMethod() + " " + pattern)));
            }
        }
    }

    /**
     * The class a locator returns, or null if its declaration names none: {@code Object}, {@code
     * Class<?>}, or a type variable without a bound.
     */
    static Class<?> returned(Method locator) {
        Class<?> type = locator.getReturnType();
        if (type == Class.class) {
            if (locator.getGenericReturnType() instanceof ParameterizedType generic) {
                Type argument = generic.getActualTypeArguments()[0];
                if (argument instanceof WildcardType wildcard) {
                    argument = wildcard.getUpperBounds()[0];
                }
                if (argument instanceof Class<?> named && named != Object.class) {
                    return named;
                }
            }
            return null;
        }
        return type == Object.class || type.isPrimitive() ? null : type;
    }

    /** The class's sub-resource locators, by template, then name and parameter types. */
    static List<Method> locators(Class<?> resourceClass) {
        List<Method> found = new ArrayList<>();
        for (Method method : publicMethods(resourceClass)) {
            if (RouteTemplate.pathOf(method) != null && RouteTemplate.httpMethod(method) == null) {
                found.add(method);
            }
        }
        found.sort(Comparator.comparing((Method m) -> RouteTemplate.pathOf(m)).thenComparing(SubResources::signature));
        return found;
    }

    /** The class's resource methods (those with an HTTP method), by name and parameter types. */
    static List<Method> resourceMethods(Class<?> resourceClass) {
        List<Method> found = new ArrayList<>();
        for (Method method : publicMethods(resourceClass)) {
            if (RouteTemplate.httpMethod(method) != null) {
                found.add(method);
            }
        }
        found.sort(Comparator.comparing(SubResources::signature));
        return found;
    }

    /**
     * The public instance methods a runtime may dispatch to, one per signature: where a class and
     * its supertype both declare one ({@link Class#getMethods} may list both for an interface's
     * default method), the most specific; no bridges.
     */
    private static List<Method> publicMethods(Class<?> resourceClass) {
        Map<String, Method> bySignature = new LinkedHashMap<>();
        for (Method method : resourceClass.getMethods()) {
            if (method.isBridge()
                    || method.isSynthetic()
                    || Modifier.isStatic(method.getModifiers())
                    || method.getDeclaringClass() == Object.class) {
                continue;
            }
            bySignature.merge(
                    signature(method),
                    method,
                    (known, other) ->
                            known.getDeclaringClass().isAssignableFrom(other.getDeclaringClass()) ? other : known);
        }
        return new ArrayList<>(bySignature.values());
    }

    private static String signature(Method method) {
        return method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getName)
                        .collect(Collectors.joining(",", "(", ")"));
    }

    private static <T> List<T> with(List<T> list, T last) {
        List<T> longer = new ArrayList<>(list.size() + 1);
        longer.addAll(list);
        longer.add(last);
        return longer;
    }
}
