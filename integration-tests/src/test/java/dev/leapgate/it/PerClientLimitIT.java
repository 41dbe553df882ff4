package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A per-IP limit behind the trusted proxy: each client has its own quota, a rejection carries the
 * complete 429 (Retry-After, RateLimit-Policy, RateLimit, problem+json), and the limit lifts
 * exactly when Retry-After said, as the test's clock slides the window.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PerClientLimitIT {

    private static final String RULES = """
            # 5 greetings per minute per client IP (strict window, 10 buckets of 6 s)
            rule.greet-per-ip.match = GET /hello
            rule.greet-per-ip.limit = 5/1m
            rule.greet-per-ip.scope = per-origin
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
    void clientOverItsLimit_isRejectedWithTheStandardFields_whileAnotherClientIsNot() throws Exception {
        String a = "203.0.113.10";
        String b = "198.51.100.20";
        web.clock.advance(Duration.ofMillis(1_500)); // into the first 6 s bucket, which ends at 6 s

        for (int remaining = 4; remaining >= 0; remaining--) {
            HttpResponse<String> admitted = web.getFor(a, "/hello");
            assertThat(admitted.statusCode()).isEqualTo(200);
            assertThat(admitted.body()).isEqualTo("hello\n");
            assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"greet-per-ip\";q=5;w=60");
            // Strict window: the bucket [0 s, 6 s) leaves the window at 66 s, 64.5 s from now.
            assertThat(admitted.headers().firstValue("RateLimit"))
                    .hasValue("\"greet-per-ip\";r=" + remaining + ";t=65");
        }

        HttpResponse<String> rejected = web.getFor(a, "/hello");

        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(rejected.headers().firstValue("Retry-After")).hasValue("65");
        assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"greet-per-ip\";q=5;w=60");
        assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"greet-per-ip\";r=0;t=65");
        assertThat(rejected.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(rejected.body())
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Rule 'greet-per-ip' rejected the request: limit exceeded. Retry after 65 s.\","
                        + "\"rule\":\"greet-per-ip\",\"retryAfter\":65}");

        HttpResponse<String> other = web.getFor(b, "/hello");
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.headers().firstValue("RateLimit")).hasValue("\"greet-per-ip\";r=4;t=65");

        // The limit lifts when the window has slid past the first bucket: exactly at Retry-After.
        web.clock.advance(Duration.ofSeconds(64));
        assertThat(web.getFor(a, "/hello").statusCode())
                .as("1 s before Retry-After")
                .isEqualTo(429);
        web.clock.advance(Duration.ofSeconds(1));
        HttpResponse<String> again = web.getFor(a, "/hello");
        assertThat(again.statusCode()).as("at Retry-After").isEqualTo(200);
        // Admitted at 66.5 s into the bucket [66 s, 72 s), which leaves a strict window at 132 s.
        assertThat(again.headers().firstValue("RateLimit")).hasValue("\"greet-per-ip\";r=4;t=66");
    }

    @Test
    void requestsTheRulesDoNotMatch_passWithoutRateLimitFields() throws Exception {
        HttpResponse<String> response = web.getFor("203.0.113.99", "/hello/async");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("hello (async)\n");
        assertThat(response.headers().firstValue("RateLimit")).isEmpty();
    }
}
