package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.jaxrs.app.invalid.BadAnnotations;
import dev.leapgate.jaxrs.app.invalid.BadSubResources;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.Scope;
import dev.leapgate.testing.BadSettings;
import java.util.stream.Stream;
import org.glassfish.jersey.server.ApplicationHandler;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shared bad settings ({@link BadSettings}) that {@code @RateLimited} can express, written as
 * annotations ({@code app.invalid.BadAnnotations}): each fails the application's start with the
 * same problem.
 */
class BadAnnotationsTest {

    static Stream<BadSettings.Case> annotated() {
        return BadSettings.CASES.stream().filter(c -> c.annotation() != null);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("annotated")
    void aBadAnnotation_failsTheStart_withTheSameProblem(BadSettings.Case bad) throws Exception {
        Class<?> resource = Class.forName("dev.leapgate.jaxrs.app.invalid.BadAnnotations$" + bad.annotation());
        ResourceConfig app = new ResourceConfig(resource).register(LeapgateFeature.class);

        assertThatThrownBy(() -> new ApplicationHandler(app)).hasStackTraceContaining(bad.annotationSays());
    }

    @Test
    void anOriginThatExemptLists_failsTheStart_sinceTheAnnotationsRuleCouldNeverApply() {
        ResourceConfig app = new ResourceConfig(BadAnnotations.ExemptedOrigin.class)
                .register(LeapgateFeature.class)
                .property("leapgate.exempt", "10.0.0.0/8");

        assertThatThrownBy(() -> new ApplicationHandler(app))
                .hasStackTraceContaining("invalid @RateLimited on ExemptedOrigin.get(): 'origin:10.20.0.5' names an"
                        + " origin that leapgate.exempt lists (10.0.0.0/8), and an exempt origin passes every rule,"
                        + " so this rule can never apply and 10.20.0.5 is not limited at all; to limit it, take it"
                        + " out of leapgate.exempt (narrow or split the block), or remove the rule");
    }

    /** An API key (origins from a header, shown by fingerprint) is named by its fingerprint, as in the configuration's problems. */
    @Test
    void anExemptedKey_isNamedByItsFingerprint() {
        ResourceConfig app = new ResourceConfig(BadAnnotations.NamedOrigin.class)
                .register(LeapgateFeature.class)
                .property("leapgate.origin", "header:X-Api-Key")
                .property("leapgate.exempt", "batch-job");

        assertThatThrownBy(() -> new ApplicationHandler(app))
                .hasStackTraceContaining("invalid @RateLimited on NamedOrigin.get(): 'origin:sha256:")
                .satisfies(e -> assertThat(stackTrace(e)).doesNotContain("batch-job"));
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter text = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(text));
        return text.toString();
    }

    @Test
    void aNamedOrigin_isAcceptedWhereOriginsAreIdentifiers() {
        ResourceConfig app = new ResourceConfig(BadAnnotations.NamedOrigin.class)
                .register(LeapgateFeature.class)
                .property("leapgate.origin", "header:X-Api-Key");

        assertThat(LeapgateFeature.gate(new ApplicationHandler(app).getConfiguration())
                        .orElseThrow()
                        .rules()
                        .rules())
                .extracting(FlowRule::scope)
                .containsExactly(Scope.origin("batch-job"));
    }

    @Test
    void everyInvalidAnnotationOfTheApplication_isNamedInOneStartError() {
        ResourceConfig app = new ResourceConfig(
                        BadAnnotations.UnknownUnit.class,
                        BadAnnotations.Both.class,
                        BadSubResources.Broken.class,
                        BadAnnotations.ExemptedOrigin.class)
                .register(LeapgateFeature.class);

        assertThatThrownBy(() -> new ApplicationHandler(app))
                .hasStackTraceContaining("3 problems in @RateLimited annotations:\n"
                        + "  - invalid @RateLimited on Both.get(): set either limit and window (requests per window)"
                        + " or inFlight (requests at once), not both; use a second @RateLimited for the other\n"
                        + "  - invalid @RateLimited on UnknownUnit.get(): window: '1min' is not a duration (unknown"
                        + " unit 'min'; write m for minutes); expected a whole number and a unit ms, s, m or h, e.g."
                        + " 250ms, 10s, 1m, 24h\n"
                        + "  - invalid @RateLimited on BrokenPage.get() at GET /broken/{id}: window must be between"
                        + " 100ms and 24h, was 0s");
    }
}
