package dev.leapgate.jaxrs;

import dev.leapgate.http.HttpGate;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.ws.rs.core.Application;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jetty.ee10.servlet.ErrorPageErrorHandler;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A JAX-RS application deployed as a servlet in Jetty 12 on a free loopback port, on the runtime
 * that {@code -Dleapgate.jaxrs.runtime} names: {@code jersey} (the default), {@code resteasy} or
 * {@code cxf}. The build runs the portable suite once per runtime, each with only that runtime on
 * the class path ({@code jaxrs-filter/pom.xml}); the class for the runtime is loaded by name, so
 * that the others' classes are never touched.
 *
 * <p>{@code servletListener}: whether the container reports each request's end to the provider
 * ({@link LeapgateServletInitializer}, as a scanning container installs it); without it the
 * provider finishes requests itself, as on a runtime outside a servlet container.
 */
abstract class JaxrsServer implements AutoCloseable {

    static final String RUNTIME = "leapgate.jaxrs.runtime";

    /** The runtimes log through java.util.logging; the tests provoke exceptions on purpose. */
    private static final Logger[] QUIET = {
        Logger.getLogger("org.glassfish"),
        Logger.getLogger("org.eclipse.jetty"),
        Logger.getLogger("org.jboss.resteasy"),
        Logger.getLogger("org.apache.cxf")
    };

    static {
        quietRuntimes();
    }

    /** Silences the runtimes' java.util.logging loggers. */
    static void quietRuntimes() {
        for (Logger logger : QUIET) {
            logger.setLevel(Level.OFF);
        }
    }

    static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private Server server;
    private LeapgateFeature feature;
    URI base;

    /** The runtime under test: jersey, resteasy or cxf. */
    static String runtime() {
        return System.getProperty(RUNTIME, "jersey");
    }

    /** Deploys {@code application} on the runtime under test, with the servlet listener. */
    static JaxrsServer start(App application) {
        return start(application, true);
    }

    static JaxrsServer start(App application, boolean servletListener) {
        String name = switch (runtime()) {
            case "jersey" -> "JerseyServer";
            case "resteasy" -> "ResteasyServer";
            case "cxf" -> "CxfServer";
            default ->
                throw new IllegalArgumentException(RUNTIME + ": '" + runtime() + "' is not jersey, resteasy or cxf");
        };
        JaxrsServer server;
        try {
            server = (JaxrsServer) Class.forName("dev.leapgate.jaxrs." + name)
                    .getDeclaredConstructor()
                    .newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        server.deploy(application, servletListener);
        return server;
    }

    /** The servlet that runs {@code application} on this runtime, added to {@code context}. */
    abstract ServletHolder servlet(Application application, ServletContextHandler context);

    private void deploy(App application, boolean servletListener) {
        feature = application.feature;
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        if (servletListener) {
            context.addServletContainerInitializer(new LeapgateServletInitializer());
        }
        ServletHolder holder = servlet(application, context);
        holder.setAsyncSupported(true);
        holder.setInitOrder(1); // started with the server, so that invalid settings fail the start
        context.addServlet(holder, "/*");
        if (application.servletFilter != null) {
            FilterHolder filter = new FilterHolder(application.servletFilter);
            filter.setAsyncSupported(true);
            context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        if (application.errorPage != null) {
            ErrorPageErrorHandler errors = new ErrorPageErrorHandler();
            errors.addErrorPage(500, application.errorPage);
            context.setErrorHandler(errors);
        }
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(context);
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
        Throwable unavailable = holder.getUnavailableException();
        if (unavailable != null) { // Jetty keeps going with a servlet that failed to start
            close();
            throw new IllegalStateException("the application failed to start", unavailable);
        }
        base = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    }

    /** The application's gate. */
    HttpGate gate() {
        return feature.gate().orElseThrow();
    }

    /** The application's safety net. */
    Leases leases() {
        return feature.application().leases();
    }

    /**
     * GET {@code path} with header name, value pairs, on a connection of its own ({@code Connection:
     * close}): a connection that served a request ending in an unmapped exception is never reused.
     */
    HttpResponse<String> get(String path, String... headers) {
        return get(base, path, headers);
    }

    /** GET {@code path} of the server at {@code base}, as {@link #get(String, String...)}. */
    static HttpResponse<String> get(URI base, String path, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("Connection", "close");
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        try {
            return CLIENT.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The response head and body to {@code requestLine} ({@code GET /path?query}) sent as written,
     * over a socket of its own: also what an HTTP client would refuse to send.
     */
    String raw(String requestLine) {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream()
                    .write((requestLine + " HTTP/1.1\r\nHost: " + base.getAuthority() + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A portable application: resource classes, the provider, and {@code leapgate.*} properties. */
    static final class App extends Application {
        private final Set<Class<?>> classes = new LinkedHashSet<>();
        private final Set<Object> singletons = new LinkedHashSet<>();
        private final Map<String, Object> properties = new HashMap<>();
        final LeapgateFeature feature = new LeapgateFeature();
        private String errorPage;
        private Filter servletFilter;

        App(Class<?>... classes) {
            this.classes.addAll(Set.of(classes));
            singletons.add(feature);
        }

        App register(Object provider) {
            singletons.add(provider);
            return this;
        }

        App property(String key, Object value) {
            properties.put(key, value);
            return this;
        }

        /** A servlet filter in front of the application, on REQUEST dispatches. */
        App servletFilter(Filter filter) {
            servletFilter = filter;
            return this;
        }

        /** The container's error page for status 500: a path of this application, served by it. */
        App errorPage(String path) {
            errorPage = path;
            return this;
        }

        @Override
        public Set<Class<?>> getClasses() {
            return classes;
        }

        @Override
        public Set<Object> getSingletons() {
            return singletons;
        }

        @Override
        public Map<String, Object> getProperties() {
            return properties;
        }
    }
}
