package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every spelling of a JAX-RS route that the runtime behind the servlet filter serves is counted by
 * the filter's rule on that route, for each runtime (system property {@code leapgate.it.runtime}:
 * {@code jersey}, the default, {@code resteasy} or {@code cxf}, each in failsafe executions of its
 * own) deployed from web.xml as a user deploys it. A per-client rule with a limit of 1 is the
 * oracle: a spelling served twice, or served without the route's rule in its {@code RateLimit}
 * field, was not counted. Each deployment's answers are written to {@code target/runtime-spelling/}.
 *
 * <p>What the runtimes do differently from the container: Tomcat collapses {@code //} and drops a
 * segment of path parameters alone ({@code /;x=1/}) before routing, while all three runtimes route
 * the raw request URI, and serve {@code tags/{tag: [^/]*}/count} for {@code /api/tags//count} (CXF
 * not for {@code /;x=1/}) with the empty tag: the filter reads such a path both ways (Jetty answers
 * 400). A variable that accepts an empty last segment ({@code labels/{label: [^/]*}}) is served for
 * {@code /api/labels/} by Jersey and CXF, and for {@code /api/labels} by CXF, on both containers: a
 * trailing slash is no segment to the filter, so such a route is limited by a rule on {@code
 * /api/labels/**}, which this test uses.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RuntimeSpellingIT {

    static final String RUNTIME = System.getProperty("leapgate.it.runtime", "jersey");

    private static final String RULES = """
            rule.price.match = GET /api/items/*/price
            rule.price.limit = 1/1m
            rule.price.scope = per-origin
            rule.tag-count.match = GET /api/tags/*/count
            rule.tag-count.limit = 1/1m
            rule.tag-count.scope = per-origin
            rule.labels.match = GET /api/labels/**
            rule.labels.limit = 1/1m
            rule.labels.scope = per-origin
            """;

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    private TestWebApp web;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        web = TestWebApp.withRules(RULES)
                .on(container, contextPath)
                .editDescriptor(RuntimeSpellingIT::withRuntime)
                .start();
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    /** The web.xml with its JAX-RS servlet served by {@link #RUNTIME}, with the tags resource too. */
    static String withRuntime(String webXml) {
        String resources =
                "dev.leapgate.it.app.ItemsResource,dev.leapgate.it.app.TagsResource,dev.leapgate.it.app.LabelsResource";
        Matcher servlet = Pattern.compile(
                        "<servlet>\\s*<servlet-name>jaxrs</servlet-name>.*?</servlet>", Pattern.DOTALL)
                .matcher(webXml);
        if (!servlet.find()) {
            throw new IllegalStateException("web.xml has no servlet named jaxrs");
        }
        String replacement = switch (RUNTIME) {
            case "jersey" ->
                servlet.group()
                        .replace(
                                "dev.leapgate.it.app.ItemsResource,",
                                "dev.leapgate.it.app.ItemsResource, dev.leapgate.it.app.TagsResource, dev.leapgate.it.app.LabelsResource,");
            case "resteasy" -> """
                            <servlet>
                              <servlet-name>jaxrs</servlet-name>
                              <servlet-class>org.jboss.resteasy.plugins.server.servlet.HttpServlet30Dispatcher</servlet-class>
                              <init-param><param-name>resteasy.servlet.mapping.prefix</param-name><param-value>/api</param-value></init-param>
                              <init-param><param-name>resteasy.resources</param-name><param-value>%s</param-value></init-param>
                              <load-on-startup>1</load-on-startup>
                              <async-supported>true</async-supported>
                            </servlet>""".formatted(resources);
            case "cxf" -> """
                            <servlet>
                              <servlet-name>jaxrs</servlet-name>
                              <servlet-class>org.apache.cxf.jaxrs.servlet.CXFNonSpringJaxrsServlet</servlet-class>
                              <init-param><param-name>jaxrs.serviceClasses</param-name><param-value>%s</param-value></init-param>
                              <load-on-startup>1</load-on-startup>
                              <async-supported>true</async-supported>
                            </servlet>""".formatted(resources);
            default -> throw new IllegalStateException("unknown leapgate.it.runtime " + RUNTIME);
        };
        return webXml.substring(0, servlet.start()) + replacement + webXml.substring(servlet.end());
    }

    @Test
    void everySpellingTheRuntimeServes_isCountedByTheRuleOfTheRoute() throws Exception {
        List<String> spellings = new ArrayList<>();
        for (String path : List.of(
                "/api/items/1/price",
                // matrix parameters, in every segment
                "/api;x=1/items/1/price",
                "/api/items;x=1/1/price",
                "/api/items/1;x=1/price",
                "/api/items/1/price;x=1",
                "/api;/items/1/price",
                "/api/items/1/price;",
                // the route's first segment as a parameter of the servlet's: routed to the servlet as
                // /api/1/price, while a runtime that cuts its base path off the raw URI by length
                // serves items/1/price
                "/api;items/1/price",
                "/api;tags/a/count",
                "/api;labels/a",
                // an escaped semicolon, a literal character of its segment to the container
                "/api/items/1%3Bx=1/price",
                "/api/items%3Bx=1/1/price",
                "/api/items/1/price%3Bx=1",
                "/api%3Bx=1/items/1/price",
                "/api/items/%3B/price",
                // an escaped percent sign: decoded twice, it would be a letter
                "/api/items/1/pr%2569ce",
                "/api/it%2565ms/1/price",
                "/api/items/%2531/price",
                "/%2561pi/items/1/price",
                // escaped letters
                "/api/%69tems/1/price",
                "/api/items/1/pr%69ce",
                "/%61pi/items/1/price",
                "/api/items/%31/price",
                // doubled and trailing slashes
                "//api/items/1/price",
                "/api//items/1/price",
                "/api/items//1/price",
                "/api/items/1//price",
                "/api/items/1/price/",
                "/api/items/1/price//",
                "/api/",
                // an empty id
                "/api/items//price",
                "/api/items/;x=1/price",
                "/api/items/;/price",
                // case
                "/API/items/1/price",
                "/api/ITEMS/1/price",
                "/api/items/1/PRICE",
                "/api/items/1/Price",
                // dot segments
                "/api/items/./price",
                "/api/items/%2E/price",
                "/api/items/../items/1/price",
                "/api/./items/1/price",
                "/./api/items/1/price",
                "/api/items/1/./price",
                "/api/items/1/x/../price",
                "/api/items/1/%2e%2e/1/price",
                "/api/items/1/price/.",
                "/api/items/1/price/..;/price",
                "/api/x/..;/items/1/price",
                "/x/..;/api/items/1/price",
                // separators in a segment
                "/api/items/1%2F2/price",
                "/api/items%2F1/price",
                "/api/items/1%5C2/price",
                "/api/items/1%00/price",
                "/api/items/1%20/price",
                "/api/items/1/price%20",
                "/api/items/1/price%09",
                "/api/items/1/price%0A",
                "/api/items/1/price.txt",
                "/api/items/1/price?x=1",
                "/api/items/1/price%3F",
                "/api/items/1/price%23",
                "/api/items/1/price#x",
                // a template that accepts an empty segment
                "/api/tags/a/count",
                "/api/tags//count",
                "/api/tags/;x=1/count",
                "/api/tags/;/count",
                "/api/tags/%3B/count",
                "/api/tags/./count",
                "/api/tags/%2E/count",
                "/api/tags/;x=1/../a/count",
                "/api//tags/a/count",
                "/api/tags/a/b/count",
                "/api/items/1/price/x",
                // a last segment that accepts an empty one
                "/api/labels/a",
                "/api/labels/a/",
                "/api/labels",
                "/api/labels/",
                "/api/labels//",
                "/api/labels/;x=1",
                "/api/labels;x=1/",
                "/api/labels/;",
                "/api/labels/.",
                "/api/labels/%2E",
                "/api/labels/a/b",
                "/api/labels/;x=1/../a/b",
                "/api/labels//a")) {
            spellings.add(contextPath + path);
        }
        if (!contextPath.isEmpty()) {
            for (String context : List.of("/%61pp", "//app", "/app;x=1", "/./app", "/APP", "/app/", "/x/../app")) {
                spellings.add(context + "/api/items/1/price");
                spellings.add(context + "/api;x=1/items/1/price");
                spellings.add(context + "/api;items/1/price");
                spellings.add(context + "//api/items/1/price");
                spellings.add(context + "/api/tags//count");
                spellings.add(context + "/api/tags/;x=1/count");
            }
        }
        spellings.add("http://127.0.0.1:" + web.port() + contextPath + "/api/items/1/price");
        int client = 0;
        List<String> rows = new ArrayList<>();
        List<String> uncounted = new ArrayList<>();
        for (String target : spellings) {
            String ip = "198.18." + (client / 250) + "." + (1 + client % 250);
            client++;
            StringBuilder row = new StringBuilder(target).append(" |");
            for (int i = 1; i <= 2; i++) {
                RawHttp.Response r;
                try {
                    r = RawHttp.get(web.port(), target, "X-Forwarded-For: " + ip);
                } catch (IOException e) {
                    row.append(" closed");
                    continue;
                }
                String served = r.body().contains(" costs ")
                        ? "price"
                        : r.body().contains(" counted ")
                                ? "tag-count"
                                : r.body().contains(" listed") ? "labels" : null;
                String counted = r.header("RateLimit");
                row.append(' ').append(r.status()).append(' ').append(served == null ? "-" : served);
                row.append(counted == null ? "" : " counted");
                if (served != null && (i == 2 || counted == null || !counted.contains('"' + served + '"'))) {
                    uncounted.add(target + " (request " + i + ": " + r.status() + " "
                            + r.body().strip() + ")");
                }
                if (r.status() == 429) {
                    for (String rule : List.of("price", "tag-count", "labels")) {
                        if (r.body().contains('"' + rule + '"') || r.body().contains("'" + rule + "'")) {
                            row.append(' ').append(rule);
                        }
                    }
                }
                assertThat(r.status()).as("%s, request %d", target, i).isNotEqualTo(500);
            }
            rows.add(row.toString());
        }
        Path out = Path.of("target/runtime-spelling");
        Files.createDirectories(out);
        Files.write(
                out.resolve((RUNTIME + "-" + container + "-" + (contextPath.isEmpty() ? "root" : "app"))
                                .replaceAll("[^A-Za-z0-9.-]+", "-")
                                .toLowerCase(Locale.ROOT)
                        + ".txt"),
                rows);
        assertThat(uncounted)
                .as("served by a protected resource without its rule counting it")
                .isEmpty();
        assertThat(rows)
                .as("the plain spellings are served (the deployment works)")
                .anyMatch(row -> row.startsWith(contextPath + "/api/items/1/price | 200 price"))
                .anyMatch(row -> row.startsWith(contextPath + "/api/tags/a/count | 200 tag-count"))
                .anyMatch(row -> row.startsWith(contextPath + "/api/labels/a | 200 labels"));
        if (container == Container.TOMCAT) {
            assertThat(rows)
                    .as("Tomcat routes an empty segment, and the runtime serves the empty tag")
                    .anyMatch(row -> row.startsWith(contextPath + "/api/tags//count | 200 tag-count"));
        }
    }
}
