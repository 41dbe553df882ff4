package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.http.PathPattern;
import dev.leapgate.http.RequestPath;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RouteTemplateTest {

    @Test
    void join_putsOneSlashBetweenTemplates_whateverTheirSlashes() {
        assertThat(RouteTemplate.join("users", "{id}")).isEqualTo("/users/{id}");
        assertThat(RouteTemplate.join("/users/", "/{id}/")).isEqualTo("/users/{id}");
        assertThat(RouteTemplate.join("//a//b", null, "")).isEqualTo("/a/b");
        assertThat(RouteTemplate.join(null, null)).isEqualTo("/");
    }

    @Test
    void regularExpressions_areDropped_keepingTheVariableName() {
        assertThat(RouteTemplate.join("items", "{id: \\d+}")).isEqualTo("/items/{id}");
        assertThat(RouteTemplate.join("{code : [A-Z]{2,3}}-{n:[0-9]{1}}")).isEqualTo("/{code}-{n}");
        assertThat(RouteTemplate.join("files/{path: .+/.+}")).isEqualTo("/files/{path}");
        assertThat(RouteTemplate.join("{a: \\{x\\}}/b")).isEqualTo("/{a}/b");
    }

    /** A CRUD base class whose resource methods two resource classes inherit, each under its own path. */
    public static class Crud {
        @GET
        @Path("{id}")
        public String get(@PathParam("id") String id) {
            return id;
        }
    }

    @Path("users")
    public static class Users extends Crud {}

    @Path("orders")
    public static class Orders extends Crud {}

    @Test
    void anInheritedResourceMethod_hasTheTemplateOfTheClassTheRequestReached() throws Exception {
        RouteTemplate templates = new RouteTemplate(new AnnotationRules(Set.of()));
        Method get = Crud.class.getMethod("get", String.class);

        assertThat(templates.of(reached(new Users()), resource(Users.class, get)))
                .isEqualTo("/users/{id}");
        assertThat(templates.of(reached(new Orders()), resource(Orders.class, get)))
                .isEqualTo("/orders/{id}");
        assertThat(templates.of(reached(new Users()), resource(Users.class, get)))
                .isEqualTo("/users/{id}");
    }

    /** A generic API interface, its implementation unannotated. */
    public interface Api<T> {
        @jakarta.ws.rs.PUT
        @Path("{id}")
        String put(@PathParam("id") String id, T body);

        @jakarta.ws.rs.POST
        String many(T[] bodies);
    }

    @Path("notes")
    public static class Notes implements Api<String> {
        @Override
        public String put(String id, String body) {
            return id;
        }

        @Override
        public String many(String[] bodies) {
            return "";
        }

        /** An overload the interface does not declare: not a resource method. */
        public String put(String id) {
            return id;
        }
    }

    @Test
    void aMethodImplementingAGenericInterfaceMethod_hasItsAnnotations() throws Exception {
        Method put = Notes.class.getMethod("put", String.class, String.class);
        Method many = Notes.class.getMethod("many", String[].class);

        assertThat(RouteTemplate.httpMethod(put)).isEqualTo("PUT");
        assertThat(RouteTemplate.pathOf(put)).isEqualTo("{id}");
        assertThat(RouteTemplate.httpMethod(many)).isEqualTo("POST");
        assertThat(RouteTemplate.httpMethod(Notes.class.getMethod("put", String.class)))
                .as("an overload with other parameters")
                .isNull();
    }

    /**
     * A request no resource method matched is named by its path, with one leading slash: RESTEasy's
     * path has it, Jersey's and CXF's do not. Given twice, {@code //users} was named {@code
     * /%/users} for the rules, as a path with an empty first segment, which {@code /*}{@code /users} matches.
     */
    @Test
    void aRequestNoResourceMatched_isNamedByItsPath_withOneLeadingSlash_whateverTheRuntimeGives() {
        RouteTemplate templates = new RouteTemplate(new AnnotationRules(Set.of()));
        for (String path : List.of("users", "/users")) {
            UriInfo uriInfo = (UriInfo) Proxy.newProxyInstance(
                    UriInfo.class.getClassLoader(), new Class<?>[] {UriInfo.class}, (proxy, m, args) -> {
                        if (m.getName().equals("getPath") && args != null && args.length == 1) {
                            return path;
                        }
                        throw new UnsupportedOperationException(m.getName());
                    });
            assertThat(templates.of(uriInfo, resource(null, null))).as(path).isEqualTo("/users");
        }
    }

    /** What the runtime says of a request that reached {@code resource} without a locator. */
    private static UriInfo reached(Object resource) {
        return (UriInfo) Proxy.newProxyInstance(
                UriInfo.class.getClassLoader(), new Class<?>[] {UriInfo.class}, (proxy, m, args) -> {
                    if (m.getName().equals("getMatchedResources")) {
                        return List.of(resource);
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    private static ResourceInfo resource(Class<?> resourceClass, Method method) {
        return new FixedResourceInfo(resourceClass, method);
    }

    @Test
    void configPatternWithAVariable_matchesATemplateVariable() {
        PathPattern configured = PathPattern.parse("GET /users/{id}");

        assertThat(configured.matches("GET", RequestPath.normalize("/users/{id}")))
                .isTrue();
        assertThat(PathPattern.parse("GET /users/*").matches("GET", RequestPath.normalize("/users/{id}")))
                .isTrue();
        assertThat(PathPattern.parse("GET /users/42").matches("GET", RequestPath.normalize("/users/{id}")))
                .isFalse();
    }
}
