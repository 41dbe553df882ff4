package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.jaxrs.app.ByClassNameApplication;
import dev.leapgate.jaxrs.app.LocatorAnnotations;
import java.net.URI;
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
 * annotations only, as the README says, and the provider warns about it at the start. Root
 * resources named in the runtime's own setting, without an {@code Application} subclass, have
 * their locators walked as the application's classes do. The servlet is configured by init-params
 * and context parameters alone, as in a {@code web.xml}, on the runtime under test ({@link
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
        try (Deployed deployed = Deployed.start(initParams, Map.of())) {
            var annotated = JaxrsServer.get(deployed.base, "/limited/named");
            assertThat(annotated.statusCode()).isEqualTo(200);
            assertThat(annotated.headers().firstValue("RateLimit-Policy")).hasValue("\"per-ip\";q=1;w=60");
            assertThat(JaxrsServer.get(deployed.base, "/limited/named").statusCode())
                    .as("@RateLimited, on every runtime")
                    .isEqualTo(429);

            List<Integer> statuses = new ArrayList<>();
            for (String user : new String[] {"1", "2", "3"}) {
                statuses.add(JaxrsServer.get(deployed.base, "/users/" + user).statusCode());
            }
            if (JaxrsServer.runtime().equals("resteasy")) {
                // RESTEasy configures a feature named in resteasy.providers before it applies the
                // application's properties: the provider sees no leapgate.* setting (the README says so).
                assertThat(statuses).as("the application's rule, unseen").containsExactly(200, 200, 200);
                assertThat(deployed.log.lines().filter(line -> line.contains("WARN")))
                        .as("said once at the start, naming what is ignored and the way that works")
                        .singleElement()
                        .asString()
                        .contains("the application's properties leapgate.rule.users.limit, leapgate.rule.users.match"
                                + " are not in the runtime's configuration when the provider starts")
                        .contains("list dev.leapgate.jaxrs.LeapgateFeature among the application's classes");
            } else {
                assertThat(statuses).as("the application's rule, 2 per hour").containsExactly(200, 200, 429);
                assertThat(deployed.log).as("nothing is ignored").doesNotContain("not in the runtime's configuration");
            }
        }
    }

    /**
     * Root resources named in the runtime's own setting, without an {@code Application} subclass
     * (RESTEasy's {@code resteasy.resources} context parameter, CXF's {@code jaxrs.serviceClasses},
     * Jersey's {@code jersey.config.server.provider.classnames}), one of them with a sub-resource
     * locator and no resource method: its annotated sub-resource is limited from the first request.
     */
    @Test
    void aRootResourceNamedInTheRuntimesSetting_withALocatorAlone_hasItsSubResourceLimited() throws Exception {
        String library = LocatorAnnotations.Library.class.getName();
        String home = LocatorAnnotations.Home.class.getName();
        Map<String, String> initParams = Map.of();
        Map<String, String> contextParams = Map.of();
        switch (JaxrsServer.runtime()) {
            case "resteasy" ->
                contextParams = Map.of("resteasy.resources", library + "," + home, "resteasy.providers", PROVIDER);
            case "cxf" ->
                initParams = Map.of("jaxrs.serviceClasses", library + "," + home, "jaxrs.providers", PROVIDER);
            default ->
                initParams =
                        Map.of("jersey.config.server.provider.classnames", PROVIDER + ", " + library + ", " + home);
        }
        try (Deployed deployed = Deployed.start(initParams, contextParams)) {
            assertThat(JaxrsServer.get(deployed.base, "/").statusCode()).isEqualTo(200);
            var first = JaxrsServer.get(deployed.base, "/lib/1");
            assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
            assertThat(JaxrsServer.get(deployed.base, "/lib/2").statusCode())
                    .as("Page.get()'s limit, 1 per hour, on GET /lib/{id}")
                    .isEqualTo(429);
        }
    }

    /** The runtime's servlet in Jetty, configured by init-params and context parameters alone. */
    private record Deployed(Server server, URI base, String log) implements AutoCloseable {

        static Deployed start(Map<String, String> initParams, Map<String, String> contextParams) throws Exception {
            String servlet = switch (JaxrsServer.runtime()) {
                case "resteasy" -> "org.jboss.resteasy.plugins.server.servlet.HttpServlet30Dispatcher";
                case "cxf" -> "org.apache.cxf.jaxrs.servlet.CXFNonSpringJaxrsServlet";
                default -> "org.glassfish.jersey.servlet.ServletContainer";
            };
            ServletContextHandler context = new ServletContextHandler();
            context.setContextPath("/");
            contextParams.forEach(context::setInitParameter);
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
            String log = StandardError.capturedWhile(server::start); // what the provider says while it starts
            if (holder.getUnavailableException() != null) {
                server.stop();
                throw new IllegalStateException("the application failed to start", holder.getUnavailableException());
            }
            return new Deployed(server, URI.create("http://127.0.0.1:" + connector.getLocalPort()), log);
        }

        @Override
        public void close() throws Exception {
            server.stop();
        }
    }
}
