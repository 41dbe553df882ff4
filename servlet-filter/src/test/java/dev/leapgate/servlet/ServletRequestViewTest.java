package dev.leapgate.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Host the core sees of an HTTP/2 request that has no Host field (Tomcat gives :authority as the server name). */
class ServletRequestViewTest {

    /** An HTTP/2 request without a Host field, to {@code serverName}:8443. */
    private static HttpServletRequest http2To(String serverName) {
        Map<String, Object> answers =
                Map.of("getProtocol", "HTTP/2.0", "getServerName", serverName, "getServerPort", 8443);
        return (HttpServletRequest) Proxy.newProxyInstance(
                ServletRequestViewTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class},
                (proxy, method, args) -> method.getName().equals("getHeaders")
                        ? Collections.emptyEnumeration()
                        : answers.get(method.getName()));
    }

    @Test
    void http2WithoutAHostField_givesTheServerNameAndPort_anIpv6AddressInBrackets() {
        assertThat(new ServletRequestView(http2To("status.example")).headers("Host"))
                .containsExactly("status.example:8443");
        assertThat(new ServletRequestView(http2To("0:0:0:0:0:0:0:1")).headers("Host"))
                .containsExactly("[0:0:0:0:0:0:0:1]:8443");
        assertThat(new ServletRequestView(http2To("[::1]")).headers("Host")).containsExactly("[::1]:8443");
    }

    private static HttpServletRequest to(String contextPath, String requestUri) {
        Map<String, Object> answers = Map.of("getContextPath", contextPath, "getRequestURI", requestUri);
        return (HttpServletRequest) Proxy.newProxyInstance(
                ServletRequestViewTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class},
                (proxy, method, args) -> answers.get(method.getName()));
    }

    /** The raw path below the context path, for the core to find dot-segments spelled with escapes; null without a '%'. */
    @Test
    void theEncodedPath_isTheRequestUriBelowTheContextPath_whenItHoldsAPercentSign() {
        assertThat(new ServletRequestView(to("/app", "/app/api/items/%2E/price")).encodedPath())
                .isEqualTo("/api/items/%2E/price");
        assertThat(new ServletRequestView(to("", "/api/items/%2e/price")).encodedPath())
                .isEqualTo("/api/items/%2e/price");
        assertThat(new ServletRequestView(to("/%61pp", "/%61pp/api/items/1/price")).encodedPath())
                .as("an escape in the context path alone")
                .isNull();
        assertThat(new ServletRequestView(to("/app", "/app/api/items/1/price")).encodedPath())
                .isNull();
    }

    /** Tomcat resolves a plain dot-segment before routing too, while Jersey serves it as a route variable. */
    @Test
    void theEncodedPath_isTheRequestUriBelowTheContextPath_whenASegmentStartsWithADot() {
        assertThat(new ServletRequestView(to("/app", "/app/api/items/./price")).encodedPath())
                .isEqualTo("/api/items/./price");
        assertThat(new ServletRequestView(to("", "/api/items/..;/price")).encodedPath())
                .isEqualTo("/api/items/..;/price");
        assertThat(new ServletRequestView(to("/app", "/app/./api/items/1/price")).encodedPath())
                .isEqualTo("/./api/items/1/price");
        assertThat(new ServletRequestView(to("/./app", "/./app/api/items/1/price")).encodedPath())
                .as("a dot in the context path alone")
                .isNull();
        assertThat(new ServletRequestView(to("/app", "/app/static/app.js")).encodedPath())
                .isNull();
    }

    /** Tomcat drops an empty segment before routing, while a template such as {@code {tag: [^/]*}} serves it. */
    @Test
    void theEncodedPath_isTheRequestUriBelowTheContextPath_whenItHoldsAnEmptySegment() {
        assertThat(new ServletRequestView(to("/app", "/app/api/tags//count")).encodedPath())
                .isEqualTo("/api/tags//count");
        assertThat(new ServletRequestView(to("", "/api/tags/;x=1/count")).encodedPath())
                .isEqualTo("/api/tags/;x=1/count");
        assertThat(new ServletRequestView(to("/app;x=1", "/app;x=1/api/tags/a/count")).encodedPath())
                .as("path parameters in the context path alone")
                .isNull();
        assertThat(new ServletRequestView(to("/app", "/app/api/tags/a;x=1/count")).encodedPath())
                .as("path parameters after a segment's text")
                .isNull();
    }
}
