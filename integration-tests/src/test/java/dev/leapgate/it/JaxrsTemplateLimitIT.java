package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.stats.ResourceStats;
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
 * The JAX-RS provider, registered by class name in web.xml and configured by the Jersey servlet's
 * {@code leapgate.*} init-params, limits by route template: {@code GET /items/{id}/price} is one
 * count per client whatever the id, and raw URLs never become resources. Its 429 is the servlet
 * filter's, field for field. (Its rules run on the system clock: the window of a minute cannot
 * slide while this test runs.)
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JaxrsTemplateLimitIT {

    private TestWebApp web;

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        web = TestWebApp.withRules("rules = none\n")
                .on(container, contextPath)
                .start(); // no filter rules: only the provider's
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    @Test
    void perClientLimitOnARouteTemplate_countsEveryIdTogether_andRejectsWithTheStandardFields() throws Exception {
        String a = "203.0.113.10";
        String b = "198.51.100.20";
        for (int id = 1; id <= 5; id++) {
            HttpResponse<String> admitted = web.getFor(a, "/api/items/" + id + "/price");
            assertThat(admitted.statusCode()).isEqualTo(200);
            assertThat(admitted.body()).startsWith("item " + id + " costs");
            assertThat(admitted.headers().firstValue("RateLimit-Policy"))
                    .hasValueSatisfying(policy -> assertThat(policy).contains("\"price-per-ip\";q=5;w=60"));
            String remaining = "\"price-per-ip\";r=" + (5 - id) + ";t=";
            assertThat(admitted.headers().firstValue("RateLimit"))
                    .hasValueSatisfying(value -> assertThat(value).contains(remaining));
        }

        HttpResponse<String> rejected = web.getFor(a, "/api/items/6/price");

        assertThat(rejected.statusCode()).isEqualTo(429);
        String retryAfter = rejected.headers().firstValue("Retry-After").orElseThrow();
        assertThat(Long.parseLong(retryAfter)).isBetween(1L, 66L);
        assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"price-per-ip\";q=5;w=60");
        assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"price-per-ip\";r=0;t=" + retryAfter);
        assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(rejected.body())
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Rule 'price-per-ip' rejected the request: limit exceeded. Retry after "
                        + retryAfter + " s.\",\"rule\":\"price-per-ip\",\"retryAfter\":" + retryAfter + "}");

        assertThat(web.getFor(b, "/api/items/1/price").statusCode())
                .as("another client")
                .isEqualTo(200);
        assertThat(web.getFor(a, "/api/items/1").statusCode())
                .as("another route")
                .isEqualTo(200);

        StatsSnapshot price = web.jaxrsStats("GET /items/{id}/price");
        assertThat(price.admitted()).isEqualTo(6);
        assertThat(price.rejected()).isEqualTo(1);
        assertThat(web.jaxrsGate().trackedOrigins("price-per-ip")).hasValue(2);
        assertThat(web.jaxrsGate().stats())
                .as("resources are the rules' templates, never raw URLs")
                .extracting(ResourceStats::resource)
                .containsExactlyInAnyOrder("/items/**", "GET /items/{id}/price");
    }
}
