package dev.leapgate.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.servlet.BlockHandler;
import dev.leapgate.stats.StatsTotals;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.support.SpringBootServletInitializer;
import org.springframework.context.annotation.Bean;
import org.springframework.web.SpringServletContainerInitializer;
import org.springframework.web.context.support.WebApplicationContextUtils;

/**
 * The starter in a WAR deployed to an external servlet container: a Tomcat of the test's own (not
 * Boot's embedded one) starts the application as a container starts a WAR, through Spring's
 * {@code ServletContainerInitializer} and the application's {@link SpringBootServletInitializer},
 * at a context path the container chooses.
 */
class WarDeploymentTest {

    /** The properties of the next deployment (the container creates the initializer itself). */
    static volatile Map<String, Object> deploymentProperties = Map.of();

    /** The application's own configurations in the next deployment. */
    static volatile Class<?>[] deploymentSources = {};

    /** The WAR's initializer, as an application deployed as a WAR has one. */
    public static class Shop extends SpringBootServletInitializer {
        @Override
        protected SpringApplicationBuilder configure(SpringApplicationBuilder builder) {
            return builder.sources(ContractApplication.class)
                    .sources(deploymentSources)
                    .properties(deploymentProperties)
                    .initializers(c -> c.getBeanFactory().registerSingleton("leapgateTestClock", new ManualClock()));
        }
    }

    /** A WAR deployed at {@code contextPath} in a running Tomcat on loopback. */
    record Deployment(Tomcat tomcat, Context context, int port) implements AutoCloseable {
        static Deployment start(Path baseDir, String contextPath, Map<String, String> properties, Class<?>... sources)
                throws Exception {
            Map<String, Object> all = new LinkedHashMap<>(properties);
            all.put("spring.main.banner-mode", "off");
            deploymentProperties = all;
            deploymentSources = sources;
            Tomcat tomcat = new Tomcat();
            tomcat.setBaseDir(baseDir.toString());
            Connector connector = new Connector();
            connector.setPort(0);
            connector.setProperty("address", "127.0.0.1");
            tomcat.getService().addConnector(connector);
            Path docBase = Files.createDirectories(baseDir.resolve("webapp"));
            Context context = tomcat.addContext(contextPath, docBase.toString());
            context.addServletContainerInitializer(new SpringServletContainerInitializer(), Set.of(Shop.class));
            tomcat.start();
            return new Deployment(tomcat, context, connector.getLocalPort());
        }

        HttpGate gate() {
            return WebApplicationContextUtils.getRequiredWebApplicationContext(context.getServletContext())
                    .getBean(HttpGate.class);
        }

        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + port + path);
        }

        @Override
        public void close() throws Exception {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    private static int get(Deployment app, String path) throws Exception {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build()
                .send(HttpRequest.newBuilder(app.uri(path)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static int post(Deployment app, String path) throws Exception {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build()
                .send(
                        HttpRequest.newBuilder(app.uri(path))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    /**
     * The container, not server.servlet.context-path, gives a WAR its context path: a rule written
     * with it is reported as one that can never match, as it is in a jar.
     */
    @Test
    void aRuleWrittenWithTheContainersContextPath_isReportedAsOneThatCanNeverMatch(@TempDir Path dir) throws Exception {
        Map<String, String> properties = Map.of(
                "leapgate.rule.login.match", "POST /login",
                "leapgate.rule.login.limit", "2/1m",
                "leapgate.rule.orders.match", "GET /shop/orders/**",
                "leapgate.rule.orders.limit", "5/1m");
        try (Deployment app = Deployment.start(dir, "/shop", properties)) {
            assertThat(List.of(post(app, "/shop/login"), post(app, "/shop/login"), post(app, "/shop/login")))
                    .as("rules match the path below the context path")
                    .containsExactly(200, 200, 429);
            assertThat(app.gate().warnings())
                    .containsExactly("rule 'orders' (GET /shop/orders/**) can never match: rules match the path"
                            + " below the context path /shop, so it applies to /shop/shop/orders/**; write GET"
                            + " /orders/**");
        }
    }

    /** A block handler that lets the container's error page answer: Spring Boot's, in a WAR. */
    static class ErrorPageRejections {
        @Bean
        BlockHandler sendError() {
            return (request, response, rejection, standard) -> response.sendError(standard.status());
        }
    }

    /**
     * In a WAR, Spring Boot's ErrorPageFilter answers an exception or a sendError by forwarding to
     * /error after the chain returned: a forward the filter must not count as a second request (the
     * starter maps the filter for REQUEST dispatches only). A guard for that mapping.
     */
    @Test
    void requestsThatEndOnTheErrorPage_areCountedOnce(@TempDir Path dir) throws Exception {
        Map<String, String> properties = Map.of(
                "leapgate.rule.all.match", "/**",
                "leapgate.rule.all.limit", "3/1m");
        try (Deployment app = Deployment.start(dir, "/shop", properties, ErrorPageRejections.class)) {
            assertThat(List.of(
                            get(app, "/shop/throws"),
                            get(app, "/shop/not-found"),
                            get(app, "/shop/ok"),
                            get(app, "/shop/ok")))
                    .containsExactly(500, 404, 200, 429);
            StatsTotals totals = app.gate().stats("/**").orElseThrow().totals();
            assertThat(List.of(totals.admitted(), totals.rejected(), totals.failed()))
                    .as("admitted, rejected, failed")
                    .containsExactly(3L, 1L, 1L);
        }
    }
}
