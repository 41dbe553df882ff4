package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.ClassLimitedResource;
import dev.leapgate.jaxrs.app.HeadedResource;
import dev.leapgate.jaxrs.app.LimitedApiResource;
import dev.leapgate.jaxrs.app.LimitedBase;
import dev.leapgate.jaxrs.app.LimitedItemsResource;
import dev.leapgate.jaxrs.app.LimitedResource;
import dev.leapgate.jaxrs.app.LocatorAnnotations;
import dev.leapgate.jaxrs.app.NegotiatedResource;
import dev.leapgate.jaxrs.app.OverriddenTwice;
import dev.leapgate.jaxrs.app.invalid.BadSubResources;
import dev.leapgate.jaxrs.app.invalid.BadWindowResource;
import dev.leapgate.jaxrs.app.invalid.Samples;
import dev.leapgate.testing.BadSettings;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RateLimited} on a running application, on the runtime under test ({@link JaxrsServer}),
 * behind a trusted proxy on loopback that names each client in {@code X-Forwarded-For}.
 */
class AnnotationsIT {

    private final ManualClock clock = new ManualClock();

    private JaxrsServer.App app(Class<?>... resources) {
        return new JaxrsServer.App(resources)
                .property(ProviderSettings.CLOCK, clock)
                .property("leapgate.trusted-proxies", "127.0.0.1");
    }

    private static int status(JaxrsServer server, String path, String client) {
        return server.get(path, "X-Forwarded-For", client).statusCode();
    }

    @Test
    void twoLimitsOnOneMethod_bothApply_perClient() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LimitedResource.class))) {
            String a = "203.0.113.1";
            assertThat(status(server, "/limited/1", a)).isEqualTo(200);
            assertThat(status(server, "/limited/2", a)).isEqualTo(200);
            HttpResponse<String> perSecond = server.get("/limited/3", "X-Forwarded-For", a);
            assertThat(perSecond.statusCode()).isEqualTo(429);
            assertThat(perSecond.body()).contains("\"rule\":\"LimitedResource-get-1\"");
            assertThat(status(server, "/limited/1", "203.0.113.2"))
                    .as("another client")
                    .isEqualTo(200);

            clock.advance(Duration.ofSeconds(2)); // the 1 s window has passed; the 1 h one has not
            assertThat(status(server, "/limited/4", a)).isEqualTo(200);
            HttpResponse<String> perHour = server.get("/limited/5", "X-Forwarded-For", a);
            assertThat(perHour.statusCode()).isEqualTo(429);
            assertThat(perHour.body()).contains("\"rule\":\"LimitedResource-get-2\"");
        }
    }

    @Test
    void unannotatedMethods_andOtherHttpMethodsOnTheSameTemplate_areNotLimited() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LimitedResource.class))) {
            for (int i = 0; i < 5; i++) {
                assertThat(status(server, "/limited/free", "203.0.113.1")).isEqualTo(200);
                HttpResponse<String> post = JaxrsServer.CLIENT.send(
                        HttpRequest.newBuilder(server.base.resolve("/limited/7"))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .header("X-Forwarded-For", "203.0.113.1")
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(post.statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void annotationOnAMethodWhoseRouteIsDeclaredByItsInterface_limitsExactlyThatRoute() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LimitedItemsResource.class))) {
            assertThat(status(server, "/limited-items/1", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/limited-items/featured", "203.0.113.1"))
                    .as("a sibling route of the interface, unannotated")
                    .isEqualTo(200);
            assertThat(status(server, "/limited-items/2", "203.0.113.1")).isEqualTo(429);
            assertThat(server.gate().stats())
                    .extracting(dev.leapgate.stats.ResourceStats::resource)
                    .containsExactly("GET /limited-items/{id}");
        }
    }

    @Test
    void annotationOnTheInterfaceMethodThatDeclaresTheRoute_limitsThatRoute() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LimitedApiResource.class))) {
            assertThat(status(server, "/limited-api/1", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/limited-api/featured", "203.0.113.1"))
                    .as("a sibling route of the interface, unannotated")
                    .isEqualTo(200);
            assertThat(status(server, "/limited-api/2", "203.0.113.1")).isEqualTo(429);
            assertThat(server.gate().stats())
                    .extracting(dev.leapgate.stats.ResourceStats::resource)
                    .containsExactly("GET /limited-api/{id}");
        }
    }

    @Test
    void classAnnotationOnABaseResourceClass_limitsTheSubclassesRoutes() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LimitedBase.FromLimitedBase.class))) {
            assertThat(status(server, "/base-limited/1", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/base-limited/2", "203.0.113.1")).isEqualTo(429);
        }
    }

    @Test
    void annotationOfTheMiddleClassOfThreeOverrides_limitsTheRoute() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(OverriddenTwice.Resource.class))) {
            assertThat(status(server, "/overridden-twice/1", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/overridden-twice/2", "203.0.113.1"))
                    .as("the middle class's limit of 1, not the base's 100")
                    .isEqualTo(429);
        }
    }

    @Test
    void classAnnotationOnARootResourceWithALocator_limitsTheClasssResourceMethodsOnly() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LocatorAnnotations.Shelf.class))) {
            for (int i = 1; i <= 3; i++) {
                assertThat(status(server, "/shelf/" + i, "203.0.113.1"))
                        .as("a sub-resource reached through the class's locator")
                        .isEqualTo(200);
            }
            assertThat(status(server, "/shelf", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/shelf", "203.0.113.1")).isEqualTo(429);
            assertThat(server.gate().rules().rules())
                    .extracting(dev.leapgate.rule.FlowRule::resource)
                    .containsExactly("GET /shelf");
        }
    }

    @Test
    void annotationOnASubResourceMethod_limitsItsFullTemplate_andNoOtherRoute() throws Exception {
        // Library has a locator and no resource method: the runtimes bind none of it at the start.
        JaxrsServer.App app = app(LocatorAnnotations.Library.class, LocatorAnnotations.Home.class)
                .property("leapgate.rule.home.match", "GET /")
                .property("leapgate.rule.home.limit", "100/1h");
        try (JaxrsServer server = JaxrsServer.start(app)) {
            assertThat(status(server, "/lib/1", "203.0.113.1")).isEqualTo(200);
            for (int i = 0; i < 3; i++) {
                assertThat(status(server, "/", "203.0.113.1"))
                        .as("the application's root, not the sub-resource's route")
                        .isEqualTo(200);
            }
            HttpResponse<String> limited = server.get("/lib/2", "X-Forwarded-For", "203.0.113.1");
            assertThat(limited.statusCode()).isEqualTo(429);
            assertThat(limited.body()).contains("\"rule\":\"Page-get-1\"");
            assertThat(server.gate().rules().rules())
                    .extracting(dev.leapgate.rule.FlowRule::resource)
                    .containsExactlyInAnyOrder("GET /", "GET /lib/{id}");
        }
    }

    @Test
    void classAnnotationOfASubResourceClass_andNestedLocators_limitEachMethodOnItsFullTemplate() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LocatorAnnotations.Companies.class))) {
            assertThat(status(server, "/companies/a/staff/1", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/companies/b/staff/2", "203.0.113.1"))
                    .as("one template, one count")
                    .isEqualTo(429);
            assertThat(status(server, "/companies/a/staff", "203.0.113.1"))
                    .as("each method of the class its own count")
                    .isEqualTo(200);
            assertThat(status(server, "/companies/a/staff", "203.0.113.1")).isEqualTo(429);
            for (int i = 0; i < 2; i++) {
                assertThat(status(server, "/companies/a/staff/1/badges", "203.0.113.1"))
                        .as("below the class's locator: the class's limit does not apply")
                        .isEqualTo(200);
            }
            assertThat(status(server, "/companies/a/staff/1/badges", "203.0.113.1"))
                    .isEqualTo(429);
            assertThat(server.gate().rules().rules())
                    .extracting(dev.leapgate.rule.FlowRule::resource)
                    .containsExactlyInAnyOrder(
                            "GET /companies/{company}/staff",
                            "GET /companies/{company}/staff/{id}",
                            "GET /companies/{company}/staff/{id}/badges");
        }
    }

    @Test
    void annotationOnTheInterfaceMethodALocatorDeclares_limitsTheImplementationItReturns() throws Exception {
        // Memos.memo() declares Memo, whose get() has the route and the limit; PlainMemo, returned,
        // has neither of its own: it inherits both, as Jakarta REST inherits the route.
        try (JaxrsServer server = JaxrsServer.start(app(LocatorAnnotations.Memos.class))) {
            assertThat(status(server, "/memos/1", "203.0.113.1")).isEqualTo(200);
            HttpResponse<String> limited = server.get("/memos/2", "X-Forwarded-For", "203.0.113.1");
            assertThat(limited.statusCode()).isEqualTo(429);
            assertThat(limited.body()).contains("\"rule\":\"Memo-get-1\"");
            for (int i = 0; i < 3; i++) {
                assertThat(status(server, "/memos/1/text", "203.0.113.1"))
                        .as("a sibling route of the interface, unannotated")
                        .isEqualTo(200);
            }
            assertThat(server.gate().rules().rules())
                    .extracting(dev.leapgate.rule.FlowRule::resource)
                    .containsExactly("GET /memos/{id}");
        }
    }

    /**
     * Forms.form() declares Form and returns a LimitedForm, whose get() carries the limit: the walk
     * reads Form, so the limit is not in force on GET /forms/{id}. Every request is refused (500, on
     * every runtime), and the application's log says once which locator, and what to change.
     */
    @Test
    void anImplementationAnnotatedWhereTheInterfaceItsLocatorDeclaresIsNot_isRefused_andTheLogNamesTheFix()
            throws Exception {
        String log;
        try (JaxrsServer server = JaxrsServer.start(app(LocatorAnnotations.Forms.class))) {
            log = errorsLoggedWhile(() -> {
                for (int i = 1; i <= 3; i++) {
                    HttpResponse<String> refused = server.get("/forms/" + i, "X-Forwarded-For", "203.0.113.1");
                    assertThat(refused.statusCode())
                            .as("refused, never unlimited")
                            .isEqualTo(500);
                    assertThat(refused.body())
                            .as("the application's classes are named in the log, not to the client")
                            .isEqualTo("This request's rate limits are not in force; the server's log says why.");
                }
            });
            assertThat(server.gate().rules().rules()).isEmpty();
        }
        assertThat(log.lines())
                .as("once, however many requests")
                .singleElement()
                .asString()
                .contains("Leapgate JAX-RS: @RateLimited on LimitedForm.get() is not in force on GET /forms/{id}: the"
                        + " locator Forms.form(String) declares Form (an interface), whose annotations Leapgate read"
                        + " when the application started, and returned a LimitedForm")
                .endsWith("put the annotation on Form.get() (every implementation inherits it), or declare"
                        + " LimitedForm as the locator's return type");
    }

    @Test
    void aSubclassAnnotatedWhereTheAbstractClassItsLocatorDeclaresIsNot_isRefused_andTheLogNamesTheFix()
            throws Exception {
        String log;
        try (JaxrsServer server = JaxrsServer.start(app(LocatorAnnotations.Tickets.class))) {
            log = errorsLoggedWhile(() -> {
                assertThat(status(server, "/tickets/1", "203.0.113.1")).isEqualTo(500);
                assertThat(status(server, "/tickets/2", "203.0.113.1")).isEqualTo(500);
            });
        }
        assertThat(log.lines())
                .singleElement()
                .asString()
                .contains("@RateLimited on LimitedTicket.get() is not in force on GET /tickets/{id}: the locator"
                        + " Tickets.ticket() declares Ticket (an abstract class)")
                .endsWith("put the annotation on Ticket.get() (every implementation inherits it), or declare"
                        + " LimitedTicket as the locator's return type");
    }

    /** What Leapgate's provider logged at ERROR while {@code requests} ran. */
    private static String errorsLoggedWhile(StandardError.Action requests) throws Exception {
        return StandardError.capturedWhile(requests)
                .lines()
                .filter(line -> line.contains(" ERROR dev.leapgate.jaxrs."))
                .collect(Collectors.joining("\n"));
    }

    @Test
    void aSubResourceReachedThroughALocatorReturningObject_isRefused_whereItsTypedRouteIsLimited() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LocatorAnnotations.Archive.class))) {
            assertThat(status(server, "/archive/typed/1", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/archive/typed/2", "203.0.113.1")).isEqualTo(429);
            assertThat(status(server, "/archive/any/1", "203.0.113.1"))
                    .as("a route the start could not see: refused, not unlimited")
                    .isEqualTo(500);
            assertThat(status(server, "/archive/any/2", "203.0.113.1")).isEqualTo(500);
        }
    }

    @Test
    void aSubResourceReachedOnlyThroughALocatorReturningObject_isRefused_withNoRuleAtAll() throws Exception {
        String log;
        try (JaxrsServer server = JaxrsServer.start(app(LocatorAnnotations.Vault.class))) {
            log = errorsLoggedWhile(() -> {
                assertThat(status(server, "/vault/1", "203.0.113.1")).isEqualTo(500);
                assertThat(status(server, "/vault/2", "203.0.113.1")).isEqualTo(500);
            });
        }
        assertThat(log.lines())
                .as("the same on every runtime, whether it binds the sub-resource (Jersey, RESTEasy) or not (CXF)")
                .singleElement()
                .asString()
                .contains("@RateLimited on Scroll.get() is not in force on GET /vault/{id}: the locator Vault.item()"
                        + " returns Object, which names no class whose annotations Leapgate could read")
                .endsWith("declare Scroll as the locator's return type, or remove the annotation and write a rule.*"
                        + " for the route in the configuration");
    }

    @Test
    void invalidAnnotationOnASubResourceMethod_failsTheStart_namingTheMethodAndItsRoute() {
        assertThatThrownBy(() ->
                        JaxrsServer.start(app(BadSubResources.Broken.class)).close())
                .hasStackTraceContaining("invalid @RateLimited on BrokenPage.get() at GET /broken/{id}: window"
                        + " must be between 100ms and 24h, was 0s");
    }

    @Test
    void annotationReachedThroughRecursiveLocators_failsTheStart() {
        assertThatThrownBy(
                        () -> JaxrsServer.start(app(BadSubResources.Tree.class)).close())
                .hasStackTraceContaining("@RateLimited on Node.get() cannot be applied: it is reached through"
                        + " recursive sub-resource locators (Node.child() returns Node again)");
    }

    @Test
    void namedAnnotationReachedThroughTwoLocators_failsTheStart() {
        assertThatThrownBy(() ->
                        JaxrsServer.start(app(BadSubResources.Twins.class)).close())
                .hasStackTraceContaining("invalid @RateLimited on Named.get() at GET /twins/right: name 'twin' is"
                        + " already used by @RateLimited on Named.get() at GET /twins/left");
    }

    @Test
    void aRootResourceThatALocatorReturnsToo_isLimitedAtEachOfItsRoutes_separately() throws Exception {
        JaxrsServer.App app = app(LocatorAnnotations.Members.class, LocatorAnnotations.Teams.class);
        try (JaxrsServer server = JaxrsServer.start(app)) {
            assertThat(status(server, "/teams/a/members/1", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/teams/b/members/2", "203.0.113.1")).isEqualTo(429);
            assertThat(status(server, "/members/1", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/members/2", "203.0.113.1")).isEqualTo(429);
            assertThat(server.gate().rules().rules())
                    .extracting(dev.leapgate.rule.FlowRule::resource)
                    .containsExactlyInAnyOrder("GET /members/{id}", "GET /teams/{team}/members/{id}");
        }
    }

    @Test
    void namedRule_isThePolicyNameClientsSee() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LimitedResource.class))) {
            HttpResponse<String> admitted = server.get("/limited/named", "X-Forwarded-For", "203.0.113.1");
            assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"per-ip\";q=1;w=60");
            assertThat(admitted.headers().firstValue("RateLimit"))
                    .hasValue("\"per-ip\";r=0;t=66"); // strict window: 60 s and one bucket
            assertThat(status(server, "/limited/named", "203.0.113.1")).isEqualTo(429);
        }
    }

    @Test
    void classAnnotation_limitsEachMethodSeparately() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(ClassLimitedResource.class))) {
            assertThat(status(server, "/class-limited/a", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/class-limited/a", "203.0.113.2")).isEqualTo(429);
            assertThat(status(server, "/class-limited/b", "203.0.113.1")).isEqualTo(200);
            assertThat(status(server, "/class-limited/b", "203.0.113.1")).isEqualTo(429);
        }
    }

    @Test
    void invalidAnnotation_failsTheStart_namingTheMethod() {
        assertThatThrownBy(() -> JaxrsServer.start(app(BadWindowResource.class)).close())
                .hasStackTraceContaining("invalid @RateLimited on BadWindowResource.get(String): window must be"
                        + " between 100ms and 24h, was 0s");
    }

    @Test
    void annotationNamedLikeAConfiguredRule_failsTheStart() {
        JaxrsServer.App app = app(LimitedResource.class)
                .property("leapgate.rule.per-ip.match", "/other")
                .property("leapgate.rule.per-ip.limit", "1/1s");

        assertThatThrownBy(() -> JaxrsServer.start(app).close())
                .hasStackTraceContaining(
                        "the rules from @RateLimited and the configuration clash: rule name 'per-ip' is used twice");
    }

    @Test
    void annotationNamedLikeARuleOfTheRulesFile_failsTheStart_onEveryRuntime(@TempDir Path dir) throws Exception {
        JaxrsServer.App app = withRulesFile(dir, "rule.per-ip.match = /other\nrule.per-ip.limit = 1/1s\n");

        assertThatThrownBy(() -> JaxrsServer.start(app).close())
                .hasStackTraceContaining(
                        "the rules from @RateLimited and the configuration clash: rule name 'per-ip' is used twice");
    }

    @Test
    void anInvalidRulesFile_failsTheStart_onEveryRuntime(@TempDir Path dir) throws Exception {
        JaxrsServer.App app = withRulesFile(dir, "rule.users.match = /users/*\nrule.users.limit = 5/1min\n");

        assertThatThrownBy(() -> JaxrsServer.start(app).close())
                .hasStackTraceContaining("rule.users.limit: '5/1min' is not a limit");
    }

    /** {@link LimitedResource}'s application, its rules in a file in {@code dir} that holds {@code rules}. */
    private JaxrsServer.App withRulesFile(Path dir, String rules) throws IOException {
        Path file = dir.resolve("rules.properties");
        Files.writeString(file, rules);
        return app(LimitedResource.class).property("leapgate.rules-file", file.toString());
    }

    static Stream<BadSettings.Case> badAnnotations() {
        return BadSettings.CASES.stream().filter(c -> c.annotation() != null);
    }

    /**
     * Every shared bad setting that annotations can express fails the start on every runtime, also
     * those only the rules taken together show (two names that differ only in case, one rule under
     * two names), which RESTEasy and CXF let start, and then answered every request 500.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("badAnnotations")
    void aBadAnnotation_failsTheStart_onEveryRuntime(BadSettings.Case bad) throws Exception {
        Class<?> resource = Class.forName("dev.leapgate.jaxrs.app.invalid.BadAnnotations$" + bad.annotation());

        assertThatThrownBy(() -> JaxrsServer.start(app(resource)).close())
                .hasStackTraceContaining("invalid @RateLimited on " + resource.getSimpleName() + ".")
                .hasStackTraceContaining(bad.annotationSays());
    }

    @Test
    void anAnnotationThatIsAConfiguredRuleUnderAnotherName_failsTheStart_onEveryRuntime() {
        JaxrsServer.App app = app(LimitedResource.class)
                .property("leapgate.rule.copy.match", "GET /limited/named")
                .property("leapgate.rule.copy.limit", "1/1m")
                .property("leapgate.rule.copy.scope", "per-origin");

        assertThatThrownBy(() -> JaxrsServer.start(app).close())
                .hasStackTraceContaining("invalid @RateLimited on LimitedResource.named(): rule 'per-ip' is the same"
                        + " rule as 'copy'");
    }

    @Test
    void head_countsAgainstTheLimitOfTheGetItIsServedBy() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(LimitedResource.class))) {
            HttpResponse<String> head = JaxrsServer.CLIENT.send(
                    HttpRequest.newBuilder(server.base.resolve("/limited/named"))
                            .method("HEAD", HttpRequest.BodyPublishers.noBody())
                            .header("X-Forwarded-For", "203.0.113.1")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(status(server, "/limited/named", "203.0.113.1")).isEqualTo(429);
        }
    }

    @Test
    void head_servedByAHeadMethodOfItsOwn_countsAgainstItsLimitsAlone() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(HeadedResource.class))) {
            String client = "203.0.113.1";
            assertThat(head(server, "/headed", client)).isEqualTo(200);
            assertThat(head(server, "/headed", client)).isEqualTo(200);
            assertThat(head(server, "/headed", client)).isEqualTo(429);
            assertThat(status(server, "/headed", client)).isEqualTo(200);
            assertThat(status(server, "/headed", client)).isEqualTo(429);
        }
    }

    private static int head(JaxrsServer server, String path, String client) throws Exception {
        return JaxrsServer.CLIENT
                .send(
                        HttpRequest.newBuilder(server.base.resolve(path))
                                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                                .header("X-Forwarded-For", client)
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    @Test
    void anAnnotationOnAMethodNoRequestReaches_failsTheStart_onEveryRuntime() {
        assertThatThrownBy(() ->
                        JaxrsServer.start(app(Samples.NotAResourceMethod.class)).close())
                .hasStackTraceContaining("@RateLimited on NotAResourceMethod.helper() cannot be applied: it is not a"
                        + " resource method");
    }

    @Test
    void classAnnotation_onTwoMethodsOfOneRouteToldApartByMediaType_isOneLimitOfThatRoute() throws Exception {
        try (JaxrsServer server = JaxrsServer.start(app(NegotiatedResource.class))) {
            assertThat(server.get("/negotiated", "X-Forwarded-For", "203.0.113.1", "Accept", "application/json")
                            .body())
                    .isEqualTo("{}");
            assertThat(server.get("/negotiated", "X-Forwarded-For", "203.0.113.1", "Accept", "text/plain")
                            .body())
                    .isEqualTo("text");
            HttpResponse<String> third =
                    server.get("/negotiated", "X-Forwarded-For", "203.0.113.1", "Accept", "application/json");
            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.body()).contains("\"rule\":\"NegotiatedResource-json-1\"");
            assertThat(server.gate().rules().rules())
                    .extracting(dev.leapgate.rule.FlowRule::resource)
                    .containsExactly("GET /negotiated");
        }
    }
}
