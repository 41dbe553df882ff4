package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.jaxrs.app.invalid.MisplacedAnnotations.ApiElsewhere;
import dev.leapgate.jaxrs.app.invalid.MisplacedAnnotations.Handler;
import dev.leapgate.jaxrs.app.invalid.MisplacedAnnotations.UsersAndProfiles;
import org.glassfish.jersey.server.ApplicationHandler;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.model.Resource;
import org.junit.jupiter.api.Test;

/**
 * {@code @RateLimited} where no route it could limit is served fails the start, naming it, rather
 * than limit nothing, or another route (found by a review helper).
 */
class MisplacedAnnotationsTest {

    /**
     * The interface's limit was applied to {@code GET /api/b}, a route it was not written for (and
     * {@code /api/a} is not served).
     */
    @Test
    void aLimitOnAnInterfaceMethod_whoseImplementationDeclaresItsOwnRoute_failsTheStart() {
        ResourceConfig app = new ResourceConfig(ApiElsewhere.class).register(LeapgateFeature.class);

        assertThatThrownBy(() -> new ApplicationHandler(app))
                .hasStackTraceContaining("@RateLimited on Api.item() cannot be applied: ApiElsewhere.item() overrides"
                        + " it with JAX-RS annotations of its own, which replace all of its annotations");
    }

    /**
     * A limit on a sub-resource's method whose route, through a locator, differs from a resource
     * method's only in a regular expression: both are {@code GET /users/{id}}, and the limit counted
     * both (the check covered routes of resource classes alone).
     */
    @Test
    void aLimitOnARouteThroughALocator_thatDiffersFromAnotherOnlyInARegularExpression_failsTheStart() {
        ResourceConfig app = new ResourceConfig(UsersAndProfiles.class).register(LeapgateFeature.class);

        assertThatThrownBy(() -> new ApplicationHandler(app))
                .hasStackTraceContaining("differ only in the regular expression of a template variable, and both"
                        + " are the route GET /users/{id}");
    }

    /** Its limit was read nowhere: every request to {@code GET /prog} was served. */
    @Test
    void aLimitOnTheHandlerOfAResourceBuiltInCode_failsTheStart() throws Exception {
        Resource.Builder builder = Resource.builder("prog");
        builder.addMethod("GET").handledBy(Handler.class, Handler.class.getMethod("hello"));
        Resource built = builder.build();
        ResourceConfig app = new ResourceConfig().registerResources(built).register(LeapgateFeature.class);

        assertThatThrownBy(() -> new ApplicationHandler(app))
                .hasStackTraceContaining("@RateLimited on Handler.hello() cannot be applied: the runtime serves it as"
                        + " a resource method, but it has no HTTP method");
    }
}
