package dev.leapgate.jaxrs;

import dev.leapgate.http.HttpGate;
import jakarta.ws.rs.core.Configuration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainerProvider;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

/**
 * A Jersey application on a real HTTP server on a free loopback port, for what is Jersey's own:
 * Grizzly (no servlet container) or Jetty 12 (a servlet container, programmatic or from a {@code
 * web.xml}). The portable suite runs on {@link JaxrsServer}.
 */
final class TestServer implements AutoCloseable {

    static {
        JaxrsServer.quietRuntimes(); // the tests provoke exceptions on purpose
    }

    final URI base;
    private final Supplier<Configuration> configuration;
    private final AutoCloseable stop;

    private TestServer(URI base, Supplier<Configuration> configuration, AutoCloseable stop) {
        this.base = base;
        this.configuration = configuration;
        this.stop = stop;
    }

    static TestServer grizzly(ResourceConfig application) {
        GrizzlyHttpContainer container =
                new GrizzlyHttpContainerProvider().createContainer(GrizzlyHttpContainer.class, application);
        HttpServer server = GrizzlyHttpServerFactory.createHttpServer(
                URI.create("http://127.0.0.1:0/"), container, false, null, false);
        server.getListener("grizzly")
                .getTransport()
                .setWorkerThreadPoolConfig(
                        ThreadPoolConfig.defaultConfig().setCorePoolSize(32).setMaxPoolSize(32));
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int port = server.getListener("grizzly").getPort();
        return new TestServer(
                URI.create("http://127.0.0.1:" + port),
                () -> container.getApplicationHandler().getConfiguration(),
                server::shutdownNow);
    }

    static TestServer jetty(ResourceConfig application) {
        // Jersey's advice for Jetty: without it, a response written through sendError (an
        // unmapped exception of a resumed AsyncResponse) can leave a stray 500 on the connection.
        application.property("jersey.config.server.response.setStatusOverSendError", true);
        ServletContainer servlet = new ServletContainer(application);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        ServletHolder holder = new ServletHolder(servlet);
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/*");
        return jettyServer(context, () -> servlet.getApplicationHandler().getConfiguration());
    }

    /** Jetty with the web application in {@code webapp}, configured by its {@code WEB-INF/web.xml}. */
    static TestServer jettyWebApp(Path webapp, String servletName) {
        WebAppContext context = new WebAppContext();
        context.setContextPath("/");
        context.setBaseResourceAsPath(webapp.toAbsolutePath());
        context.setParentLoaderPriority(true);
        return jettyServer(context, () -> {
            try {
                return ((ServletContainer) context.getServletHandler()
                                .getServlet(servletName)
                                .getServlet())
                        .getApplicationHandler()
                        .getConfiguration();
            } catch (jakarta.servlet.ServletException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static TestServer jettyServer(org.eclipse.jetty.server.Handler handler, Supplier<Configuration> config) {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(handler);
        try {
            server.start();
        } catch (Exception e) {
            try {
                server.stop();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
        return new TestServer(URI.create("http://127.0.0.1:" + connector.getLocalPort()), config, server::stop);
    }

    /** The application's gate, as {@link LeapgateFeature#gate} gives it. */
    HttpGate gate() {
        return LeapgateFeature.gate(configuration.get()).orElseThrow();
    }

    /** The application's runtime configuration. */
    Configuration configuration() {
        return configuration.get();
    }

    /**
     * GET {@code path} with header name, value pairs, on a connection of its own ({@code Connection:
     * close}): a connection that served a request ending in an unmapped exception is never reused,
     * since Jersey on Jetty 12 can leave a stray response on it for the next request.
     */
    HttpResponse<String> get(String path, String... headers) {
        return JaxrsServer.get(base, path, headers);
    }

    @Override
    public void close() throws Exception {
        stop.close();
    }
}
