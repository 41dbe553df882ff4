package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.jaxrs.app.ByClassNameApplication;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/**
 * The README's registration by class name in the runtime's own setting, with the settings among
 * the application's properties: CXF's {@code jaxrs.providers} init-param of {@code
 * CXFNonSpringJaxrsServlet} and Jersey's {@code jersey.config.server.provider.classnames} apply
 * both the annotations and the application's rules; RESTEasy's {@code resteasy.providers} the
 * annotations only, as the README says, and the provider warns about it at the start. The servlet
 * is configured by init-params alone, as in a {@code web.xml}, on the runtime under test ({@link
 * JaxrsServer#runtime()}).
 */
class ProviderByClassNameIT {

    private static final String PROVIDER = LeapgateFeature.class.getName();

    @Test
    void theProviderNamedInTheRuntimesSetting_appliesTheApplicationsRules() throws Exception {
        Map<String, String> initParams = switch (JaxrsServer.runtime()) {
            case "resteasy" ->
                Map.of(
                        "jakarta.ws.rs.Application",
                        ByClassNameApplication.class.getName(),
                        "resteasy.providers",
                        PROVIDER);
            case "cxf" ->
                Map.of(
                        "jakarta.ws.rs.Application",
                        ByClassNameApplication.class.getName(),
                        "jaxrs.providers",
                        PROVIDER);
            default ->
                Map.of(
                        "jakarta.ws.rs.Application",
                        ByClassNameApplication.class.getName(),
                        "jersey.config.server.provider.classnames",
                        PROVIDER);
        };
        String servlet = switch (JaxrsServer.runtime()) {
            case "resteasy" -> "org.jboss.resteasy.plugins.server.servlet.HttpServlet30Dispatcher";
            case "cxf" -> "org.apache.cxf.jaxrs.servlet.CXFNonSpringJaxrsServlet";
            default -> "org.glassfish.jersey.servlet.ServletContainer";
        };
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addServletContainerInitializer(new LeapgateServletInitializer());
        ServletHolder holder =
                new ServletHolder(servlet, Class.forName(servlet).asSubclass(jakarta.servlet.Servlet.class));
        holder.setInitParameters(initParams);
        holder.setAsyncSupported(true);
        holder.setInitOrder(1);
        context.addServlet(holder, "/*");
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(context);
        // The provider logs through slf4j-simple, to System.err: what it says while the application starts.
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            server.start();
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        err.print(log);
        try {
            assertThat(holder.getUnavailableException()).isNull();
            URI base = URI.create("http://127.0.0.1:" + connector.getLocalPort());

            var annotated = JaxrsServer.get(base, "/limited/named");
            assertThat(annotated.statusCode()).isEqualTo(200);
            assertThat(annotated.headers().firstValue("RateLimit-Policy")).hasValue("\"per-ip\";q=1;w=60");
            assertThat(JaxrsServer.get(base, "/limited/named").statusCode())
                    .as("@RateLimited, on every runtime")
                    .isEqualTo(429);

            List<Integer> statuses = new ArrayList<>();
            for (String user : new String[] {"1", "2", "3"}) {
                statuses.add(JaxrsServer.get(base, "/users/" + user).statusCode());
            }
            if (JaxrsServer.runtime().equals("resteasy")) {
                // RESTEasy configures a feature named in resteasy.providers before it applies the
                // application's properties: the provider sees no leapgate.* setting (the README says so).
                assertThat(statuses).as("the application's rule, unseen").containsExactly(200, 200, 200);
                assertThat(log.lines().filter(line -> line.contains("WARN")))
                        .as("said once at the start, naming what is ignored and the way that works")
                        .singleElement()
                        .asString()
                        .contains("the application's properties leapgate.rule.users.limit, leapgate.rule.users.match"
                                + " are not in the runtime's configuration when the provider starts")
                        .contains("list dev.leapgate.jaxrs.LeapgateFeature among the application's classes");
            } else {
                assertThat(statuses).as("the application's rule, 2 per hour").containsExactly(200, 200, 429);
                assertThat(log).as("nothing is ignored").doesNotContain("not in the runtime's configuration");
            }
        } finally {
            server.stop();
        }
    }
}
