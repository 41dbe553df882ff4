package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.testing.BadSettings;
import java.util.stream.Stream;
import org.glassfish.jersey.server.ApplicationHandler;
import org.glassfish.jersey.server.ResourceConfig;
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
}
