package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A servlet-filter rule on a Jersey route counts a request whose route variable is a dot-segment,
 * plain or spelled with an escape. Tomcat resolves {@code /api/items/./price}, {@code
 * /api/items/..;/price} and {@code /api/items/%2E/price} before routing, so the filter's path is
 * {@code /api/items/price} (or {@code /api/price}); Jersey routes the raw request URI and serves
 * them as {@code items/{id}/price} with the id {@code .} or {@code ..} (Jetty refuses the escaped
 * ones, 400). The spellings with an empty id ({@code ;x=1}) match no Jersey route.
 * Every spelling that reaches the resource must be counted by the rule written for the route.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EncodedDotSegmentIT {

    private static final String RULES = """
            rule.item-price.match = GET /api/items/*/price
            rule.item-price.limit = 2/1m
            rule.item-price.scope = per-origin
            """;

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    private TestWebApp web;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        web = TestWebApp.withRules(RULES).on(container, contextPath).start();
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    @Test
    void aDotSegmentAsTheRouteVariable_isCountedByTheRuleOfTheRoute() throws Exception {
        String[] ids = {
            "1", "%2E", "%2e", "%2e%2e", ".%2E", "%2E.", "%2E;v=1", ".", "..", ";x=1", ";", ".;x=1", "..;", "%2E%2E;",
            "1;x=1", "%3B"
        };
        List<String> contexts = new ArrayList<>(List.of(contextPath));
        if (!contextPath.isEmpty()) {
            contexts.add("/" + contextPath); // a context path spelled another way
            contexts.add("/%61pp");
            contexts.add("/x/../app");
            contexts.add("/app/../app");
        }
        contexts.add(contextPath + "/."); // a dot-segment before the servlet path
        contexts.add("http://127.0.0.1:" + web.port() + contextPath); // the absolute form
        int client = 0;
        List<String> served = new ArrayList<>();
        List<String> uncounted = new ArrayList<>();
        for (String context : contexts) {
            for (String id : ids) {
                String target = context + "/api/items/" + id + "/price";
                String ip = "198.18.9." + (++client);
                for (int i = 1; i <= 3; i++) {
                    RawHttp.Response r = RawHttp.get(web.port(), target, "X-Forwarded-For: " + ip);
                    assertThat(r.status()).as("%s, request %d", target, i).isNotEqualTo(500);
                    if (r.body().contains(" costs ")) {
                        served.add(target);
                        String counted = r.header("RateLimit");
                        if (i > 2 || counted == null || !counted.contains("\"item-price\";r=" + (2 - i))) {
                            uncounted.add(
                                    target + " (request " + i + ": " + r.body().strip() + ")");
                        }
                    } else if (i == 3 && served.contains(target)) {
                        assertThat(r.status()).as(target).isEqualTo(429);
                        assertThat(r.body()).contains("item-price");
                    }
                }
            }
        }
        System.out.println(
                "RVPSERVED " + container + " '" + contextPath + "' " + new java.util.LinkedHashSet<>(served));
        assertThat(uncounted)
                .as("served without the rule of the route counting it, or beyond its limit")
                .isEmpty();
        assertThat(served)
                .as(
                        "the plain spelling reaches the resource, and so does a plain dot (Jersey's id '.', every container)")
                .contains(contextPath + "/api/items/1/price", contextPath + "/api/items/./price");
    }
}
