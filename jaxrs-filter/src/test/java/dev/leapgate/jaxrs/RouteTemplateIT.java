package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.CatalogResource;
import dev.leapgate.jaxrs.app.ItemsResource;
import dev.leapgate.jaxrs.app.NotesResource;
import dev.leapgate.jaxrs.app.RoutesResource;
import dev.leapgate.jaxrs.app.TwinLocatorsResource;
import dev.leapgate.jaxrs.app.UserResource;
import dev.leapgate.stats.ResourceStats;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Requests are keyed by HTTP method and route template, never by the raw URL, on the runtime under
 * test ({@link JaxrsServer}).
 */
class RouteTemplateIT {

    private static JaxrsServer.App app(String... settings) {
        JaxrsServer.App config = new JaxrsServer.App(UserResource.class, RoutesResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock());
        for (int i = 0; i < settings.length; i += 2) {
            config.property(settings[i], settings[i + 1]);
        }
        return config;
    }

    @Test
    void twoRawIds_routedToOneTemplate_shareOneLimit() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(
                "leapgate.rule.users.match", "GET /users/{id}",
                "leapgate.rule.users.limit", "2/1h"))) {
            assertThat(server.get("/users/1").statusCode()).isEqualTo(200);
            assertThat(server.get("/users/2").statusCode()).isEqualTo(200);
            assertThat(server.get("/users/3").statusCode()).isEqualTo(429);
            assertThat(server.get("/users/1").statusCode()).isEqualTo(429);

            assertThat(server.gate().stats())
                    .extracting(ResourceStats::resource)
                    .containsExactly("GET /users/{id}");
        }
    }

    @Test
    void ruleWrittenForARawUrl_neverMatches_becauseRequestsAreNamedByTheirTemplate() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(
                "leapgate.rule.raw.match", "GET /users/42",
                "leapgate.rule.raw.limit", "1/1h",
                "leapgate.rule.me.match", "GET /users/me",
                "leapgate.rule.me.limit", "1/1h"))) {
            assertThat(server.get("/users/42").statusCode()).isEqualTo(200);
            assertThat(server.get("/users/42").statusCode()).isEqualTo(200);

            assertThat(server.get("/users/me").statusCode())
                    .as("a literal route's template")
                    .isEqualTo(200);
            assertThat(server.get("/users/me").statusCode()).isEqualTo(429);
            assertThat(server.gate().stats("GET /users/42").orElseThrow().inFlight())
                    .isZero();
            // Said at start: the rule matches none of the routes.
            assertThat(server.gate().warnings())
                    .singleElement()
                    .asString()
                    .startsWith("rule 'raw' (GET /users/42) matches none of the application's")
                    .contains("GET /users/{id}, not a URL (GET /users/42)");
        }
    }

    @Test
    void regexTemplate_andSubResourceLocator_areKeyedByTheirFullTemplate() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(
                "leapgate.rule.org.match", "GET /orgs/{org}",
                "leapgate.rule.org.limit", "1/1h",
                "leapgate.rule.member.match", "GET /orgs/{org}/members/{id}",
                "leapgate.rule.member.limit", "2/1h"))) {
            assertThat(server.get("/orgs/acme").statusCode()).isEqualTo(200);
            assertThat(server.get("/orgs/other/").statusCode()).isEqualTo(429);

            assertThat(server.get("/orgs/acme/members/1").statusCode()).isEqualTo(200);
            assertThat(server.get("/orgs/zeta/members/2").statusCode()).isEqualTo(200);
            assertThat(server.get("/orgs/acme/members/3").statusCode()).isEqualTo(429);
        }
    }

    @Test
    void aRuleForASubResourceRoute_isNotReportedAsMatchingNoRoute() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(
                "leapgate.rule.member.match", "GET /orgs/{org}/members/{id}",
                "leapgate.rule.member.limit", "2/1h"))) {
            assertThat(server.gate().warnings())
                    .as("GET /orgs/{org}/members/{id} is a route of the application, through a locator")
                    .isEmpty();
        }
    }

    @Test
    void headRequest_countsAgainstTheGetRule() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(
                "leapgate.rule.users.match", "GET /users/{id}",
                "leapgate.rule.users.limit", "1/1h",
                "leapgate.rule.any.match", "/users/**",
                "leapgate.rule.any.limit", "100/1h"))) {
            var head = java.net.http.HttpRequest.newBuilder(server.base.resolve("/users/1"))
                    .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody())
                    .build();
            assertThat(JaxrsServer.CLIENT
                            .send(head, java.net.http.HttpResponse.BodyHandlers.discarding())
                            .statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/users/2").statusCode()).isEqualTo(429);
            var minute = server.gate().stats("/users/**").orElseThrow().lastMinute();
            assertThat(minute.admitted()).isEqualTo(1);
            assertThat(minute.rejected()).isEqualTo(1);
        }
    }

    @Test
    void methodsAnnotatedOnAnInterface_areKeyedByTheInheritedTemplate() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(new JaxrsServer.App(ItemsResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.item.match", "GET /items/{id}")
                .property("leapgate.rule.item.limit", "1/1h"))) {
            assertThat(server.get("/items/1").statusCode()).isEqualTo(200);
            assertThat(server.get("/items/2").statusCode())
                    .as("the rule for GET /items/{id} applies to the method declared in the interface")
                    .isEqualTo(429);
            assertThat(server.gate().stats())
                    .extracting(ResourceStats::resource)
                    .containsExactly("GET /items/{id}");
        }
    }

    /** A generic interface: the implementation's method takes the type argument, not the erased type. */
    @Test
    void aMethodOfAGenericInterface_isKeyedByItsTemplate() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(new JaxrsServer.App(NotesResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.put.match", "PUT /notes/{id}")
                .property("leapgate.rule.put.limit", "1/1h"))) {
            assertThat(put(server, "/notes/1").statusCode()).isEqualTo(200);
            assertThat(put(server, "/notes/2").statusCode())
                    .as("the rule for PUT /notes/{id} applies to the method of the generic interface")
                    .isEqualTo(429);
            assertThat(server.get("/notes/1").statusCode())
                    .as("GET /notes/{id} is another route")
                    .isEqualTo(200);
            assertThat(server.gate().warnings())
                    .as("the rule matches a route of the application")
                    .isEmpty();
        }
    }

    private static java.net.http.HttpResponse<String> put(JaxrsServer server, String path) throws Exception {
        var put = java.net.http.HttpRequest.newBuilder(server.base.resolve(path))
                .header("Content-Type", "text/plain")
                .header("Connection", "close")
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("text"))
                .build();
        return JaxrsServer.CLIENT.send(put, java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    /** The root {@code @Path} on the interface too: the key holds it. */
    @Test
    void aClassWhoseRootPathIsOnItsInterface_isKeyedByTheWholeTemplate() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(new JaxrsServer.App(CatalogResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.catalog.match", "GET /catalog/**")
                .property("leapgate.rule.catalog.limit", "1/1h"))) {
            assertThat(server.get("/catalog/1").statusCode()).isEqualTo(200);
            assertThat(server.get("/catalog/2").statusCode())
                    .as("the rule for GET /catalog/** applies")
                    .isEqualTo(429);
            assertThat(server.gate().stats())
                    .extracting(ResourceStats::resource)
                    .containsExactly("GET /catalog/**");
        }
    }

    @Test
    void twoLocatorsReturningOneType_eachKeyedByItsOwnTemplate() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(new JaxrsServer.App(TwinLocatorsResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.internal.match", "GET /docs/internal/**")
                .property("leapgate.rule.internal.limit", "1/1h")
                .property("leapgate.rule.public.match", "GET /docs/public/{id}")
                .property("leapgate.rule.public.limit", "2/1h"))) {
            assertThat(server.get("/docs/internal/1").statusCode()).isEqualTo(200);
            assertThat(server.get("/docs/internal/2").statusCode()).isEqualTo(429);

            assertThat(server.get("/docs/public/1").statusCode()).isEqualTo(200);
            assertThat(server.get("/docs/public/2").statusCode()).isEqualTo(200);
            assertThat(server.get("/docs/public/3").statusCode()).isEqualTo(429);
        }
    }

    /**
     * A request is counted on the route that serves it, as JAX-RS chose it among locators that
     * return one type: a literal written percent-encoded ({@code int%65rnal}) is no literal to the
     * runtime, which serves it through {@code {kind}} (it was counted on {@code /docs/internal/{id}},
     * matched decoded: traffic of one route spread over its siblings' counts). Found in review.
     */
    @Test // a rule that matches one template spells its braces as paths do (a {name} would match any)
    void locatorsReturningOneType_theRequestIsCountedOnTheRouteThatServesIt() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(new JaxrsServer.App(TwinLocatorsResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.internal.match", "GET /docs/internal/{id}")
                .property("leapgate.rule.internal.limit", "100/1h")
                .property("leapgate.rule.kinds.match", "GET /docs/%7Bkind%7D/{id}")
                .property("leapgate.rule.kinds.limit", "100/1h"))) {
            HttpResponse<String> encoded = server.get("/docs/int%65rnal/1");
            assertThat(encoded.body())
                    .as("served by the runtime through {kind}")
                    .isEqualTo("any internal doc 1");

            assertThat(admitted(server, "GET /docs/%7Bkind%7D/{id}")).isEqualTo(1);
            assertThat(admitted(server, "GET /docs/internal/{id}")).isZero();
        }
    }

    private static long admitted(JaxrsServer server, String rule) {
        return server.gate().stats(rule).orElseThrow().totals().admitted();
    }

    @Test
    void methodSpelledInAnotherCase_servedByTheGetMethod_countsAgainstTheGetRule() throws Exception {
        // CXF matches methods ignoring case: it serves get, Get and head with the @GET method.
        // Jersey answers them 405, RESTEasy serves them too; on none may they dodge the GET rule.
        try (JaxrsServer server = JaxrsServer.start(app(
                "leapgate.rule.users.match", "GET /users/{id}",
                "leapgate.rule.users.limit", "2/1h"))) {
            int served = 0;
            for (String method : new String[] {"get", "Get", "head", "gEt", "GET", "HEAD"}) {
                String response = server.raw(method + " /users/7");
                assertThat(response).as(method).doesNotStartWith("HTTP/1.1 5");
                if (response.startsWith("HTTP/1.1 200")) {
                    served++;
                }
            }
            assertThat(served).as("requests served by the GET method").isEqualTo(2);
        }
    }

    @Test
    void optionsRequestTheRuntimeAnswers_isNamedByItsPath_notCountedByTheRuleOfTheRoot() throws Exception {
        // Jersey filters the OPTIONS requests it answers itself; RESTEasy and CXF filter none.
        try (JaxrsServer server = JaxrsServer.start(app(
                "leapgate.rule.root.match", "/",
                "leapgate.rule.root.limit", "1/1h"))) {
            for (int i = 0; i < 3; i++) {
                assertThat(server.raw("OPTIONS /users/7")).startsWith("HTTP/1.1 200");
            }
            assertThat(server.gate().stats("/").orElseThrow().totals().admitted())
                    .isZero();
        }
    }

    @Test
    void optionsRequestTheRuntimeAnswersBelowALocator_isNamedByItsPath_notByTheLocatorsRoute() throws Exception {
        // RoutesResource's {org}/members locator returns Members, whose GET is {id}: Jersey's own
        // handler of OPTIONS /orgs/acme/members/1 has no @Path, and the route stopped at the locator.
        try (JaxrsServer server = JaxrsServer.start(app(
                "leapgate.rule.members.match", "/orgs/{org}/members",
                "leapgate.rule.members.limit", "1/1h"))) {
            for (int i = 0; i < 3; i++) {
                assertThat(server.raw("OPTIONS /orgs/acme/members/" + i))
                        .as("OPTIONS /orgs/acme/members/" + i)
                        .startsWith("HTTP/1.1 200");
            }
            assertThat(server.gate()
                            .stats("/orgs/{org}/members")
                            .map(stats -> stats.totals().admitted())
                            .orElse(0L))
                    .as("counted by the rule of the collection's route")
                    .isZero();
        }
    }
}
