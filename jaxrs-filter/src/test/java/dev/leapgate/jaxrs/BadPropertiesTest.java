package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.leapgate.config.ConfigException;
import dev.leapgate.testing.BadSettings;
import java.util.Map;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The shared bad settings ({@link BadSettings}) as the application's {@code leapgate.*}
 * properties: each is refused with the documented problem, its key and suggestions written with
 * the prefix.
 */
class BadPropertiesTest {

    @ParameterizedTest(name = "{0}")
    @FieldSource("dev.leapgate.testing.BadSettings#CASES")
    void aBadProperty_isRefused_withTheDocumentedProblem(BadSettings.Case bad) {
        ResourceConfig app = new ResourceConfig().addProperties(Map.copyOf(bad.settings("leapgate.")));

        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ProviderSettings.read(app, null));

        assertThat(e).as("accepted").isNotNull();
        assertThat(e.problems()).anySatisfy(problem -> assertThat(problem).startsWith(bad.expected("leapgate.")));
    }
}
