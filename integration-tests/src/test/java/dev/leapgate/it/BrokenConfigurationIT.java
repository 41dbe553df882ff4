package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Invalid configuration never runs an application half-protected, on any container: an invalid
 * init-param of the filter stops the application's start; an invalid setting of the JAX-RS
 * provider stops the Jersey servlet, and nothing it would serve is served unprotected (Jetty fails
 * the start; Tomcat starts the application without the servlet, which answers 500: a difference
 * of the containers, documented in the README).
 */
class BrokenConfigurationIT {

    private static final String RULES = """
            rule.greet.match = GET /hello
            rule.greet.limit = 5/1m
            """;

    @ParameterizedTest(name = "{0} at ''{1}''")
    @MethodSource("dev.leapgate.it.TestWebApp#deployments")
    void invalidFilterInitParam_stopsTheApplicationsStart(Container container, String contextPath) {
        assertThatThrownBy(() -> TestWebApp.withRules(RULES)
                        .on(container, contextPath)
                        .editDescriptor(xml -> xml.replace(
                                "<param-name>reload-interval</param-name>\n      <param-value>5s</param-value>",
                                "<param-name>reload-interval</param-name>\n      <param-value>5 seconds</param-value>"))
                        .start()
                        .close())
                .satisfies(e -> {
                    if (container == Container.JETTY) { // Tomcat logs the filter's exception and says STOPPED
                        assertThat(messages(e)).contains("reload-interval: '5 seconds' is not a duration");
                    } else {
                        assertThat(messages(e)).contains("did not start the application");
                    }
                });
    }

    @ParameterizedTest(name = "{0} at ''{1}''")
    @MethodSource("dev.leapgate.it.TestWebApp#deployments")
    void invalidProviderSetting_servesNothingOfTheApiUnprotected(Container container, String contextPath)
            throws Exception {
        TestWebApp.Builder broken = TestWebApp.withRules(RULES)
                .on(container, contextPath)
                .editDescriptor(
                        xml -> xml.replace("<param-value>5/1m</param-value>", "<param-value>5/1min</param-value>"));
        if (container == Container.JETTY) {
            assertThatThrownBy(() -> broken.start().close())
                    .satisfies(e -> assertThat(messages(e)).contains("'5/1min' is not a limit"));
            return;
        }
        try (TestWebApp web = broken.start()) {
            HttpResponse<String> api = web.getFor("203.0.113.1", "/api/items/1/price");
            assertThat(api.statusCode())
                    .as("Tomcat answers for the servlet that failed to start")
                    .isEqualTo(500);
            assertThat(web.getFor("203.0.113.1", "/hello").statusCode())
                    .as("the rest of the application, and its filter, run")
                    .isEqualTo(200);
        }
    }

    /** The messages of an exception and its causes, for a container that wraps the filter's own. */
    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t).append('\n');
            for (Throwable s : t.getSuppressed()) {
                all.append(messages(s));
            }
        }
        return all.toString();
    }
}
