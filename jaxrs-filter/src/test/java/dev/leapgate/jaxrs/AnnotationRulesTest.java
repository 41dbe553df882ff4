package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.leapgate.http.RequestPath;
import dev.leapgate.jaxrs.app.ClassLimitedResource;
import dev.leapgate.jaxrs.app.HeadedByTypeApi;
import dev.leapgate.jaxrs.app.HeadedByTypeResource;
import dev.leapgate.jaxrs.app.HeadedResource;
import dev.leapgate.jaxrs.app.LimitedApiResource;
import dev.leapgate.jaxrs.app.LimitedBase;
import dev.leapgate.jaxrs.app.LimitedResource;
import dev.leapgate.jaxrs.app.LocatorAnnotations;
import dev.leapgate.jaxrs.app.OverriddenTwice;
import dev.leapgate.jaxrs.app.invalid.BadSubResources;
import dev.leapgate.jaxrs.app.invalid.Samples;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowSpec;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AnnotationRulesTest {

    private final AnnotationRules annotations = new AnnotationRules(Set.of());

    private static ResourceInfo info(Class<?> resourceClass, String methodName) {
        Method method = Arrays.stream(resourceClass.getMethods())
                .filter(m -> m.getName().equals(methodName))
                .findFirst()
                .orElseThrow();
        return new FixedResourceInfo(resourceClass, method);
    }

    private List<FlowRule> bind(Class<?> resourceClass, String... methods) {
        for (String method : methods) {
            annotations.configure(info(resourceClass, method), null);
        }
        return annotations.close();
    }

    private void assertInvalid(String method, String message) {
        assertThatThrownBy(() -> annotations.configure(info(Samples.Invalid.class, method), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    /**
     * A GET method's limits leave HEAD requests to a HEAD method of its class only where that
     * method takes every request the GET one would: CXF serves a HEAD request whose Accept only the
     * GET method produces with the GET method, which its limits must then count.
     */
    @Test
    void aGetRule_leavesHeadOut_onlyWhereTheHeadMethodTakesEveryRequestTheGetOneWould() {
        List<FlowRule> rules = bind(HeadedByTypeResource.class, "json", "plainHead", "any", "anyHead");
        String json = RequestPath.normalize("/typed/json");
        String any = RequestPath.normalize("/typed/any");

        assertThat(rule(rules, "HeadedByTypeResource-json-1").match().matches("HEAD", json))
                .as("the HEAD method produces text/plain alone")
                .isTrue();
        assertThat(rule(rules, "HeadedByTypeResource-any-1").match().matches("HEAD", any))
                .as("the HEAD method produces anything")
                .isFalse();
        assertThat(rule(rules, "HeadedByTypeResource-any-1").match().matches("GET", any))
                .isTrue();

        AnnotationRules headed = new AnnotationRules(Set.of());
        headed.configure(info(HeadedResource.class, "get"), null);
        assertThat(headed.close().get(0).match().matches("HEAD", "/headed")).isFalse();

        AnnotationRules onInterface = new AnnotationRules(Set.of());
        onInterface.configure(info(HeadedByTypeApi.Impl.class, "json"), null);
        assertThat(onInterface.close().get(0).match().matches("HEAD", "/typed-api"))
                .as("the HEAD method produces text/plain alone, by its interface's @Produces")
                .isTrue();
    }

    private static FlowRule rule(List<FlowRule> rules, String name) {
        return rules.stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void twoAnnotations_becomeTwoRules_onTheMethodsExactTemplate() {
        List<FlowRule> rules = bind(LimitedResource.class, "get", "free");

        assertThat(rules).extracting(FlowRule::name).containsExactly("LimitedResource-get-1", "LimitedResource-get-2");
        assertThat(rules).extracting(FlowRule::resource).containsOnly("GET /limited/{id}");
        assertThat(rules.get(0).window()).isEqualTo(WindowSpec.of(Duration.ofSeconds(1)));
        assertThat(rules.get(1).window()).isEqualTo(WindowSpec.of(Duration.ofHours(1)));
        assertThat(rules).extracting(FlowRule::scope).containsOnly(Scope.perOrigin());
    }

    @Test
    void classAnnotation_appliesToEachMethod_beforeTheMethodsOwn() {
        List<FlowRule> rules = bind(ClassLimitedResource.class, "a", "b");

        assertThat(rules)
                .extracting(FlowRule::name)
                .containsExactly("ClassLimitedResource-a-1", "ClassLimitedResource-b-1", "ClassLimitedResource-b-2");
        assertThat(rules)
                .extracting(FlowRule::resource)
                .containsExactly("GET /class-limited/a", "GET /class-limited/b", "GET /class-limited/b");
        assertThat(rules.get(2).isInFlight()).isTrue();
    }

    @Test
    void annotationOnTheInterfaceMethod_limitsTheImplementingMethod_andNotItsSibling() {
        List<FlowRule> rules = bind(LimitedApiResource.class, "item", "featured");

        assertThat(rules).extracting(FlowRule::name).containsExactly("LimitedApiResource-item-1");
        assertThat(rules).extracting(FlowRule::resource).containsExactly("GET /limited-api/{id}");
    }

    @Test
    void classAnnotationOnABaseClass_appliesToTheSubclassesMethods() {
        List<FlowRule> rules = bind(LimitedBase.FromLimitedBase.class, "item");

        assertThat(rules).extracting(FlowRule::name).containsExactly("FromLimitedBase-item-1");
        assertThat(rules).extracting(FlowRule::resource).containsExactly("GET /base-limited/{id}");
    }

    @Test
    void aMethodOverriddenTwice_takesTheNearestOverriddenMethodsAnnotation_notTheRouteDeclaringOnes() {
        List<FlowRule> rules = bind(OverriddenTwice.Resource.class, "item");

        assertThat(rules)
                .extracting(FlowRule::name, FlowRule::resource, FlowRule::limit)
                .containsExactly(tuple("Resource-item-1", "GET /overridden-twice/{id}", 1L));
    }

    @Test
    void aSubResourceLocator_isNoResourceMethod_soAClassAnnotationMakesNoRuleForIt() {
        // CXF hands locators to dynamic features too; Jersey and RESTEasy do not.
        List<FlowRule> rules = bind(LocatorAnnotations.Shelf.class, "list", "book");

        assertThat(rules).extracting(FlowRule::resource).containsExactly("GET /shelf");
    }

    @Test
    void theLocatorsOfARootResource_areWalked_andItsSubResourcesLimitedOnTheirFullTemplates() {
        // CXF shows the DynamicFeature the locator of a root resource that has nothing else.
        List<FlowRule> rules = bind(LocatorAnnotations.Companies.class, "staff");

        assertThat(rules)
                .extracting(FlowRule::name, FlowRule::resource)
                .containsExactly(
                        tuple("Staff-list-1", "GET /companies/{company}/staff"),
                        tuple("Staff-person-1", "GET /companies/{company}/staff/{id}"),
                        tuple("Badges-list-1", "GET /companies/{company}/staff/{id}/badges"));
        assertThat(rules.get(2).limit()).isEqualTo(2);
        assertThat(annotations.routes())
                .contains("GET /companies/{company}/staff/{id}", "HEAD /companies/{company}/staff/{id}");
    }

    @Test
    void theApplicationsRootResources_areWalked_alsoThoseWithLocatorsAlone() {
        annotations.walk(List.of(
                LocatorAnnotations.Page.class, LocatorAnnotations.Library.class, LocatorAnnotations.Home.class));

        assertThat(annotations.close())
                .extracting(FlowRule::name, FlowRule::resource)
                .containsExactly(tuple("Page-get-1", "GET /lib/{id}"));
        assertThat(annotations.hasLocators()).isTrue();
    }

    @Test
    void aClassReachedOnTwoRoutes_getsTheRulesOfItsAnnotationsOnEach() {
        annotations.configure(info(LocatorAnnotations.Members.class, "member"), null);
        annotations.walk(List.of(LocatorAnnotations.Teams.class));

        assertThat(annotations.close())
                .extracting(FlowRule::name, FlowRule::resource)
                .containsExactly(
                        tuple("Members-member-1", "GET /members/{id}"),
                        tuple("Members-member-2", "GET /teams/{team}/members/{id}"));
    }

    @Test
    void aSubResourceMethod_namedTwiceByTwoRoutes_failsNamingBothRoutes() {
        assertThatThrownBy(() -> annotations.walk(List.of(BadSubResources.Twins.class)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("invalid @RateLimited on Named.get() at GET /twins/right: name 'twin' is"
                        + " already used by @RateLimited on Named.get() at GET /twins/left; rule names must be unique");
    }

    @Test
    void anAnnotationReachedThroughRecursiveLocators_fails_namingAPatternForAllDepths() {
        assertThatThrownBy(() -> annotations.walk(List.of(BadSubResources.Tree.class)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("@RateLimited on Node.get() cannot be applied: it is reached through recursive"
                        + " sub-resource locators (Node.child() returns Node again), so it has routes of every depth"
                        + " from GET /tree/{name}, and an annotation's rule matches one; remove it, and write a rule.*"
                        + " in the configuration for a pattern that covers them, such as GET /tree/{name}/**");
    }

    /** A tree without limits: walked one level into its recursion, without complaint. */
    @Path("tree")
    public static class FreeTree {
        @GET
        public String get() {
            return "";
        }

        @Path("{child}")
        public FreeTree child() {
            return this;
        }
    }

    @Test
    void recursiveLocatorsWithoutAnnotations_areWalkedOnceAround() {
        annotations.walk(List.of(FreeTree.class));

        assertThat(annotations.close()).isEmpty();
        assertThat(annotations.routes()).contains("GET /tree/{child}");
    }

    @Test
    void aRouteTheWalkDidNotFind_isRefusedWhenARequestReachesIt() throws Exception {
        annotations.walk(List.of(LocatorAnnotations.Archive.class));
        assertThat(annotations.close()).extracting(FlowRule::resource).containsExactly("GET /archive/typed/{id}");
        Method get = LocatorAnnotations.Scroll.class.getMethod("get");

        annotations.reached(
                LocatorAnnotations.Archive.class,
                "typed/{id}",
                LocatorAnnotations.Scroll.class,
                get,
                "/archive/typed/{id}");
        assertThatThrownBy(() -> annotations.reached(
                        LocatorAnnotations.Archive.class,
                        "any/{id}",
                        LocatorAnnotations.Scroll.class,
                        get,
                        "/archive/any/{id}"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("@RateLimited on Scroll.get() is not in force on GET /archive/any/{id}: the locator"
                        + " Archive.any() returns Object, which names no class whose annotations Leapgate could"
                        + " read when the application started, so the request is refused rather than served"
                        + " unlimited; declare Scroll as the locator's return type, or remove the annotation and"
                        + " write a rule.* for the route in the configuration");
        annotations.reached(
                LocatorAnnotations.Shelf.class,
                "{id}",
                LocatorAnnotations.Book.class,
                LocatorAnnotations.Book.class.getMethod("get"),
                "/anywhere"); // no limit: nothing to refuse
    }

    @Test
    void anImplementationAnnotatedWhereTheInterfaceItsLocatorDeclaresIsNot_isRefused_namingTheLocatorAndTheFix()
            throws Exception {
        annotations.walk(List.of(LocatorAnnotations.Forms.class));
        assertThat(annotations.close()).isEmpty();
        assertThat(annotations.routes()).containsExactly("GET /forms/{id}", "HEAD /forms/{id}");

        assertThatThrownBy(() -> annotations.reached(
                        LocatorAnnotations.Forms.class,
                        "{id}",
                        LocatorAnnotations.LimitedForm.class,
                        LocatorAnnotations.LimitedForm.class.getMethod("get"),
                        "/forms/{id}"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("@RateLimited on LimitedForm.get() is not in force on GET /forms/{id}: the locator"
                        + " Forms.form(String) declares Form (an interface), whose annotations Leapgate read when"
                        + " the application started, and returned a LimitedForm, whose @RateLimited differs (which"
                        + " classes a locator returns is known only when it runs), so the request is refused rather"
                        + " than served unlimited; put the annotation on Form.get() (every implementation inherits"
                        + " it), or declare LimitedForm as the locator's return type");
    }

    @Test
    void aSubclassAnnotatedWhereTheAbstractClassItsLocatorDeclaresIsNot_isRefused_namingTheLocatorAndTheFix() {
        annotations.walk(List.of(LocatorAnnotations.Tickets.class));
        annotations.close();

        assertThatThrownBy(() -> annotations.reached(
                        LocatorAnnotations.Tickets.class,
                        "{id}",
                        LocatorAnnotations.LimitedTicket.class,
                        LocatorAnnotations.LimitedTicket.class.getMethod("get"),
                        "/tickets/{id}"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the locator Tickets.ticket() declares Ticket (an abstract class)")
                .hasMessageEndingWith(
                        "put the annotation on Ticket.get() (every implementation inherits it), or declare"
                                + " LimitedTicket as the locator's return type");
    }

    /** A locator that declares an interface without resource methods: its implementation has them. */
    @Path("bare")
    public static class Bare {
        @Path("{id}")
        public Marker item() {
            return new Marked();
        }
    }

    public interface Marker {}

    public static class Marked implements Marker {
        @GET
        @RateLimited(limit = 1, window = "1h")
        public String get() {
            return "";
        }
    }

    @Test
    void anImplementationWhoseInterfaceHasNoResourceMethods_isBoundWithoutComplaint_andRefusedWhenReached() {
        annotations.walk(List.of(Bare.class));
        annotations.close();
        // Jersey and RESTEasy bind Marked when the first request reaches it: the gate refuses it then.
        annotations.configure(info(Marked.class, "get"), null);

        assertThatThrownBy(() -> annotations.reached(
                        Bare.class, "{id}", Marked.class, Marked.class.getMethod("get"), "/bare/{id}"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the locator Bare.item() declares Marker (an interface)")
                .hasMessageEndingWith("; declare Marked as the locator's return type");
    }

    @Test
    void aSubResourceBoundWhereTheWalkFoundALocator_isLeftToTheGate_whichNamesTheLocator() throws Exception {
        annotations.walk(List.of(LocatorAnnotations.Vault.class)); // Vault.item() returns Object
        annotations.close();
        // Jersey and RESTEasy bind Scroll when the first request reaches it; CXF never shows it.
        // Either way the gate sees the request, and says the same on every runtime.
        annotations.configure(info(LocatorAnnotations.Scroll.class, "get"), null);

        assertThatThrownBy(() -> annotations.reached(
                        LocatorAnnotations.Vault.class,
                        "{id}",
                        LocatorAnnotations.Scroll.class,
                        LocatorAnnotations.Scroll.class.getMethod("get"),
                        "/vault/{id}"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("on GET /vault/{id}: the locator Vault.item() returns Object");
    }

    @Test
    void aSubResourceBelowARootTheWalkDidNotSee_isRefused_namingTheRoot() throws Exception {
        annotations.walk(List.of(LocatorAnnotations.Shelf.class)); // has a locator; Library is not walked
        annotations.close();

        assertThatThrownBy(() -> annotations.reached(
                        LocatorAnnotations.Library.class,
                        "{id}",
                        LocatorAnnotations.Page.class,
                        LocatorAnnotations.Page.class.getMethod("get"),
                        "/lib/{id}"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the locator Library.page(String) returns Page, but the route's root"
                        + " resource was not walked when the application started")
                .hasMessageEndingWith("list the root resource among the application's classes"
                        + " (Application.getClasses()), or remove the annotation and write a rule.* for the route"
                        + " in the configuration");
    }

    @Test
    void aSubResourceTheWalkReached_isBoundByTheRuntimeLater_withoutComplaint() {
        annotations.walk(List.of(LocatorAnnotations.Archive.class));
        annotations.close();

        annotations.configure(info(LocatorAnnotations.Scroll.class, "get"), null);
    }

    @Test
    void aClassWithAPathThatALocatorReturns_shownFirstAfterTheStart_isASubResource() {
        // Members is not a root resource of this application: Jersey binds it when a request
        // reaches it through Teams, with its own @Path, which JAX-RS ignores there.
        annotations.walk(List.of(LocatorAnnotations.Teams.class));
        assertThat(annotations.close())
                .extracting(FlowRule::resource)
                .containsExactly("GET /teams/{team}/members/{id}");

        annotations.configure(info(LocatorAnnotations.Members.class, "member"), null);
    }

    @Test
    void anAnnotatedSubResourceTheWalkNeverReached_isRefusedWhereTheRuntimeBindsIt() {
        // A root resource the runtime did not show, reached by a request: RESTEasy binds the
        // sub-resource while that request is matched, which may be before the gate is built.
        assertThatThrownBy(() -> annotations.configure(info(LocatorAnnotations.Page.class, "get"), null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("@RateLimited on Page.get() is not in force: the request reached it through a"
                        + " sub-resource locator of a root resource that Leapgate did not see when the application"
                        + " started (the runtime did not show it to the provider, and it is not among the"
                        + " application's classes), so the request is refused rather than served unlimited; list the"
                        + " root resource among the application's classes (Application.getClasses()), or remove the"
                        + " annotation and write a rule.* for the route in the configuration");
        assertThat(annotations.close()).isEmpty();
        assertThat(annotations.routes()).isEmpty();
        assertThat(annotations.hasLocators()).isFalse();
    }

    @Test
    void aRootResourceReachedAgainThroughALocator_afterTheStart_isNotRefused() {
        List<FlowRule> rules = bind(LocatorAnnotations.Members.class, "member");

        annotations.configure(info(LocatorAnnotations.Members.class, "member"), null);

        assertThat(rules).extracting(FlowRule::resource).containsExactly("GET /members/{id}");
    }

    @Test
    void everySetting_reachesTheRule_andOverloadsGetDistinctNames() {
        List<FlowRule> rules = bind(Samples.Paced.class, "get", "overloaded");

        assertThat(rules)
                .extracting(FlowRule::name)
                .containsExactly("Paced-get-1", "Paced-get-2", "Paced-overloaded-1");
        assertThat(rules.get(0).resource()).isEqualTo("GET /paced/{id}");
        assertThat(rules.get(0).onExcess())
                .isEqualTo(OnExcess.warmUpPace(4, Duration.ofSeconds(20), Duration.ofMillis(500)));
        assertThat(rules.get(1).window()).isEqualTo(WindowSpec.of(Duration.ofMinutes(1), 60));
        assertThat(rules.get(1).onExcess()).isEqualTo(OnExcess.reject());
    }

    @Test
    void sameResourceMethodBoundTwice_makesItsRulesOnce() {
        assertThat(bind(LimitedResource.class, "get", "get")).hasSize(2);
    }

    @Test
    void invalidValues_failWithAMessageNamingTheMethod() {
        assertInvalid(
                "noWindow",
                "invalid @RateLimited on Invalid.noWindow(): limit 10 needs a window, e.g. window = \"1s\", \"1m\" or \"1h\"");
        assertInvalid(
                "both",
                "invalid @RateLimited on Invalid.both(): set either limit and window (requests per window) or"
                        + " inFlight (requests at once), not both; use a second @RateLimited for the other");
        assertInvalid(
                "neither",
                "invalid @RateLimited on Invalid.neither(): needs limit and window, e.g. @RateLimited(limit = 10,"
                        + " window = \"1s\"), or inFlight, e.g. @RateLimited(inFlight = 20)");
        assertInvalid(
                "pacePerOrigin",
                "invalid @RateLimited on Invalid.pacePerOrigin(): on-excess pace is not supported with scope"
                        + " per-origin; use reject or borrow (rule 'Invalid-pacePerOrigin-1')");
        assertInvalid(
                "maxQueueWithReject",
                "invalid @RateLimited on Invalid.maxQueueWithReject(): max-queue does not apply to on-excess reject");
        assertInvalid(
                "badName",
                "invalid @RateLimited on Invalid.badName(): rule name must be 1 to 64 letters, digits, '-' or '_',"
                        + " was 'a b'");
        assertInvalid(
                "originMissing",
                "invalid @RateLimited on Invalid.originMissing(): scope ORIGIN needs origin, e.g. origin ="
                        + " \"203.0.113.7\"");
        assertInvalid(
                "bucketsWithInFlight",
                "invalid @RateLimited on Invalid.bucketsWithInFlight(): buckets and mode apply only to a rate"
                        + " (limit and window), not to inFlight");
        assertThatThrownBy(() -> annotations.configure(info(Samples.Invalid.class, "badUnit"), null))
                .hasMessageStartingWith("invalid @RateLimited on Invalid.badUnit(): window: '1min' is not a duration")
                .hasMessageContaining("write m for minutes");
        assertThatThrownBy(() -> annotations.configure(info(Samples.Invalid.class, "buckets"), null))
                .hasMessageStartingWith(
                        "invalid @RateLimited on Invalid.buckets(String): window 1s cannot be cut" + " into 7 buckets");
    }

    @Test
    void maxOrigins_withAScopeOtherThanPerOrigin_failsAsTheConfigurationsMaxOriginsDoes() {
        assertInvalid(
                "maxOriginsWithoutPerOrigin",
                "invalid @RateLimited on Invalid.maxOriginsWithoutPerOrigin(): maxOrigins applies only to scope"
                        + " PER_ORIGIN; this rule's scope is ALL");
    }

    @Test
    void anOriginTheConfigurationRefusesInScopeOrigin_failsTheStart_ratherThanLimitNobody() {
        assertInvalid(
                "originRange",
                "invalid @RateLimited on Invalid.originRange(): 'origin:10.0.0.0/8' is a range; origin:<value> takes"
                        + " one IP address or identifier (a rule for a range of addresses is a per-origin rule with"
                        + " exempt)");
        assertThatThrownBy(() -> annotations.configure(info(Samples.Invalid.class, "originInvisible"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("invalid @RateLimited on Invalid.originInvisible(): ")
                .hasMessageContaining("\\u200B");
    }

    @Test
    void aNamedOriginWhereEveryClientIsAnAddress_failsTheStart() {
        // AnnotationRules(Set) is for origin = ip, the default.
        assertInvalid(
                "originName",
                "invalid @RateLimited on Invalid.originName(): 'origin:batch-job' names no IP address, and with"
                        + " leapgate.origin = ip every client is an address, so the rule can never apply; names are"
                        + " not resolved: write an address, e.g. origin:203.0.113.7 (identifiers apply with"
                        + " leapgate.origin = header:<Name> or principal)");
    }

    @Test
    void anAnnotationOnASubResourceLocator_failsTheStart_namingTheLocator() {
        assertThatThrownBy(() -> annotations.walk(List.of(BadSubResources.LimitedLocator.class)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("@RateLimited on LimitedLocator.members() cannot be applied: it is a sub-resource"
                        + " locator (a @Path without an HTTP method), not a resource method, so no request would"
                        + " be limited by it; put it on the resource methods of the class the locator returns (or"
                        + " on that class), or write a rule.* in the configuration for a pattern that covers its"
                        + " routes, such as /orgs/{org}/members/**");
        assertThatThrownBy(() -> new AnnotationRules(Set.of()).walk(List.of(BadSubResources.Depts.class)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "@RateLimited on Members.staff() cannot be applied: it is a sub-resource" + " locator")
                .hasMessageEndingWith("such as /depts/{dept}/staff/{id}/**");
    }

    @Test
    void theApplicationsClasses_withTwoInvalidMethods_failWithOneErrorNamingBoth() {
        assertThatThrownBy(() -> annotations.walk(List.of(Samples.Named.class, Samples.TwoInvalid.class)))
                .isInstanceOf(dev.leapgate.config.ConfigException.class)
                .hasMessage("2 problems in @RateLimited annotations:\n"
                        + "  - invalid @RateLimited on TwoInvalid.noWindow(): limit 10 needs a window, e.g. window ="
                        + " \"1s\", \"1m\" or \"1h\"\n"
                        + "  - invalid @RateLimited on TwoInvalid.pacePerOrigin(): on-excess pace is not supported with"
                        + " scope per-origin; use reject or borrow (rule 'TwoInvalid-pacePerOrigin-1')");
    }

    @Test
    void anAnnotatedRouteThatASiblingSharesButForARegularExpression_failsNamingBoth_inEitherOrder() {
        String says = " differ only in the regular expression of a template variable, and both are the route"
                + " GET /accounts/{id}";
        annotations.configure(info(Samples.RegexSiblings.class, "byNumber"), null);
        assertThatThrownBy(() -> annotations.configure(info(Samples.RegexSiblings.class, "byName"), null))
                .hasMessageStartingWith("@RateLimited on RegexSiblings.byNumber(String) cannot be applied:"
                        + " RegexSiblings.byName(String) and RegexSiblings.byNumber(String)" + says);

        AnnotationRules unannotatedFirst = new AnnotationRules(Set.of());
        unannotatedFirst.configure(info(Samples.RegexSiblings.class, "byName"), null);
        assertThatThrownBy(() -> unannotatedFirst.configure(info(Samples.RegexSiblings.class, "byNumber"), null))
                .hasMessageStartingWith("@RateLimited on RegexSiblings.byNumber(String) cannot be applied:"
                        + " RegexSiblings.byNumber(String) and RegexSiblings.byName(String)" + says)
                .hasMessageEndingWith("give the variables different names, or write a rule.* in the configuration");

        AnnotationRules namedApart = new AnnotationRules(Set.of());
        namedApart.configure(info(Samples.RegexSiblingsNamedApart.class, "byNumber"), null);
        namedApart.configure(info(Samples.RegexSiblingsNamedApart.class, "byName"), null);
        assertThat(namedApart.close())
                .singleElement()
                .extracting(FlowRule::resource)
                .isEqualTo("GET /accounts/{id}");
    }

    @Test
    void explicitName_usedByTwoMethods_failsNamingBoth() {
        annotations.configure(info(Samples.Named.class, "one"), null);

        assertThatThrownBy(() -> annotations.configure(info(Samples.Named.class, "two"), null))
                .hasMessageStartingWith("invalid @RateLimited on Named.two(): name 'shared' is already used by"
                        + " @RateLimited on Named.one()");
    }

    @Test
    void afterTheStart_anAnnotatedMethodIsRefused_andAnUnannotatedOneIgnored() {
        annotations.configure(info(LimitedResource.class, "free"), null);
        annotations.close();

        annotations.configure(info(LimitedResource.class, "free"), null);
        assertThatThrownBy(() -> annotations.configure(info(LimitedResource.class, "get"), null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LimitedResource.get(String)")
                .hasMessageContaining("rules are fixed when the application starts");
    }
}
