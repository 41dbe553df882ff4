package dev.leapgate.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Entry;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Tomcat strips the path parameter of {@code /api;items/1/price} and routes {@code /api/1/price} to
 * the JAX-RS servlet mapped at {@code /api/*} (servlet path {@code /api}, path info {@code
 * /1/price}); Jersey cuts its base path {@code /api/} off the raw request URI by length and serves
 * {@code items/1/price}, the route of the rule {@code GET /api/items/*}{@code /price}. The rule must
 * count it, as it counts {@code /api/items/1/price}.
 */
class ServletPathParameterTest {

    /** A request as Tomcat gives it to a filter in front of a servlet mapped at {@code /api/*}. */
    private static HttpServletRequest tomcat(String requestUri, String servletPath, String pathInfo) {
        Map<String, Object> answers = new java.util.HashMap<>(Map.of(
                "getMethod", "GET",
                "getContextPath", "",
                "getRequestURI", requestUri,
                "getServletPath", servletPath,
                "getRemoteAddr", "203.0.113.9"));
        answers.put("getPathInfo", pathInfo);
        return (HttpServletRequest) Proxy.newProxyInstance(
                ServletPathParameterTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class},
                (proxy, method, args) -> method.getName().equals("getHeaders")
                        ? Collections.emptyEnumeration()
                        : answers.get(method.getName()));
    }

    @Test
    void aPathParameterOnTheServletSegment_isCountedByTheRuleOfTheRouteTheRuntimeServes() {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of("rule.item-price.match", "GET /api/items/*/price", "rule.item-price.limit", "1/1m"),
                        "test"))
                .build();

        assertThat(gate.enter(new ServletRequestView(tomcat("/api/items/1/price", "/api", "/items/1/price"))))
                .as("the plain spelling: admitted, and counted")
                .isInstanceOf(Entry.class);
        assertThat(gate.enter(new ServletRequestView(tomcat("/api;items/1/price", "/api", "/1/price"))))
                .as("/api;items/1/price, which Jersey serves as items/{id}/price, is over the rule's limit")
                .isInstanceOf(Rejection.class);
        assertThat(gate.enter(new ServletRequestView(tomcat("/api;login", "/api", null))))
                .as("a request the container routes to the servlet's root passes (no rule for it)")
                .isInstanceOf(Entry.class);
    }
}
