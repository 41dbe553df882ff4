package dev.leapgate.it;

import static dev.leapgate.it.TestWebApp.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.stats.StatsSnapshot;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An in-flight limit: with N slow reports running, the N+1-th request is rejected at once; when
 * they finish every slot comes back, and N can run again. For a report that holds its thread and
 * for one that goes asynchronous (its slot is freed when it completes, not when its first dispatch
 * returns).
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrencyLimitIT {

    private static final int SLOTS = 3;
    private static final String RULES = """
            # at most 3 reports being built at once, for everyone together
            rule.reports.match = GET /reports/**
            rule.reports.in-flight = 3
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

    @ParameterizedTest
    @ValueSource(strings = {"/reports/slow", "/reports/slow-async"})
    void nPlusFirstSlowRequest_isRejected_andEverySlotReturns(String path) throws Exception {
        StatsSnapshot before = web.stats("GET /reports/**");
        for (int round = 1; round <= 2; round++) {
            List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
            for (int i = 0; i < SLOTS; i++) {
                slow.add(web.getAsync(path));
            }
            web.hold.awaitArrivals(SLOTS);
            assertThat(web.resource("GET /reports/**").inFlight()).isEqualTo(SLOTS);

            HttpResponse<String> rejected = web.get(path);

            assertThat(rejected.statusCode()).as("round %d", round).isEqualTo(429);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(rejected.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"reports\";q=3;qu=\"concurrent-requests\"");
            assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"reports\";r=0");
            assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");

            web.hold.releaseAll();
            for (CompletableFuture<HttpResponse<String>> response : slow) {
                assertThat(response.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            // A slot is released when the request completes, just after its response is sent.
            eventually(() -> web.resource("GET /reports/**").inFlight() == 0);
        }

        StatsSnapshot after = web.stats("GET /reports/**");
        assertThat(after.admitted() - before.admitted()).isEqualTo(2 * SLOTS);
        assertThat(after.rejected() - before.rejected()).isEqualTo(2);
        assertThat(after.succeeded() - before.succeeded()).isEqualTo(2 * SLOTS);
        assertThat(after.failed() - before.failed()).isZero();
        assertThat(after.peakInFlight()).isEqualTo(SLOTS);
    }

    /**
     * A servlet that calls {@code startAsync} and then throws: the client gets an error status, or
     * on Tomcat 10.1 a dropped connection, and the request's slot comes back either way: more such
     * requests than there are slots all run, and nothing stays in flight.
     */
    @ParameterizedTest
    @ValueSource(strings = "/reports/async-then-throw")
    void aRequestThatThrowsAfterStartAsync_givesItsSlotBack(String path) throws Exception {
        StatsSnapshot before = web.stats("GET /reports/**");
        List<String> outcomes = new ArrayList<>();
        for (int i = 0; i < 2 * SLOTS; i++) {
            try {
                // Raw, so that a dropped connection is not retried as HttpClient retries a GET.
                outcomes.add(String.valueOf(
                        RawHttp.get(web.port(), web.uri(path).getRawPath()).status()));
            } catch (IOException dropped) {
                outcomes.add("connection dropped");
            }
            eventually(() -> web.resource("GET /reports/**").inFlight() == 0);
        }

        assertThat(outcomes).as("%s", container).allMatch(o -> o.equals("500") || o.equals("connection dropped"));
        StatsSnapshot after = web.stats("GET /reports/**");
        assertThat(after.admitted() - before.admitted()).isEqualTo(2 * SLOTS);
        assertThat(after.rejected() - before.rejected()).isZero();
        assertThat(after.failed() - before.failed()).isEqualTo(2 * SLOTS);
    }
}
