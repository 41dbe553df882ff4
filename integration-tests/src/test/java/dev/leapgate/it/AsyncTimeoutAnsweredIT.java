package dev.leapgate.it;

import static dev.leapgate.it.TestWebApp.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.stats.StatsSnapshot;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Long polls whose timeouts the application answers itself (200, "no news"): every one got a
 * response that is no server error, so each succeeded, and its slot came back.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#rootDeployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AsyncTimeoutAnsweredIT {

    private static final String RULES = """
            rule.poll.match = GET /hello/long-poll
            rule.poll.in-flight = 2
            """;

    private TestWebApp web;

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        web = TestWebApp.withRules(RULES).on(container, contextPath).start();
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    @Test
    void aTimeoutTheApplicationAnswers_isASuccess() throws Exception {
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = web.get("/hello/long-poll");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("no news\n");
        }
        eventually(() -> web.resource("GET /hello/long-poll").inFlight() == 0);
        StatsSnapshot m = web.stats("GET /hello/long-poll");
        assertThat(m.admitted()).as("admitted").isEqualTo(5);
        assertThat(m.failed()).as("failed").isZero();
        assertThat(m.succeeded()).as("succeeded").isEqualTo(5);
    }
}
