package dev.leapgate.servlet;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.stats.StatsSnapshot;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.eclipse.jetty.ee10.servlet.ErrorPageErrorHandler;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** An embedded Jetty 12 with the Leapgate filter on {@code /*}, on a free loopback port. */
final class JettyHarness implements AutoCloseable {

    final ManualClock clock;
    final HttpClient client =
            // HTTP/1.1 only: the default would try an h2c upgrade on every new connection.
            HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
    private final Server server = new Server();
    private final ServletContextHandler context = new ServletContextHandler();
    private final ServerConnector connector = new ServerConnector(server);
    private final FilterHolder filter;

    JettyHarness(Map<String, String> initParams) {
        this(initParams, new ManualClock());
    }

    /** The filter configured by {@code initParams}, reading time from {@code clock}. */
    JettyHarness(Map<String, String> initParams, ManualClock clock) {
        this(new FilterHolder(LeapgateFilter.class), clock);
        initParams.forEach(filter::setInitParameter);
    }

    JettyHarness(Filter instance) {
        this(instance, Map.of());
    }

    /** A filter instance (built in code), with init-params on its registration. */
    JettyHarness(Filter instance, Map<String, String> initParams) {
        this(new FilterHolder(instance), new ManualClock());
        initParams.forEach(filter::setInitParameter);
    }

    private JettyHarness(FilterHolder holder, ManualClock clock) {
        this.filter = holder;
        this.clock = clock;
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        context.setContextPath("/app");
        context.setAttribute(LeapgateFilter.CLOCK_ATTRIBUTE, clock);
        filter.setName("leapgate");
        filter.setAsyncSupported(true);
        context.addFilter(filter, "/*", EnumSet.allOf(DispatcherType.class));
        ErrorPageErrorHandler errors = new ErrorPageErrorHandler();
        errors.addErrorPage(500, "/error");
        context.setErrorHandler(errors);
        server.setHandler(context);
    }

    /** A filter that runs before Leapgate's on every REQUEST dispatch, as an application's earlier filter. */
    JettyHarness upstream(Filter earlier) {
        return upstream(earlier, true);
    }

    /**
     * {@link #upstream(Filter)}, declared with or without {@code async-supported} (the default of
     * {@code web.xml}): without, no request through it can go asynchronous.
     */
    JettyHarness upstream(Filter earlier, boolean asyncSupported) {
        FilterHolder holder = new FilterHolder(earlier);
        holder.setName("upstream");
        holder.setAsyncSupported(asyncSupported);
        context.getServletHandler().addFilter(holder);
        org.eclipse.jetty.ee10.servlet.FilterMapping mapping = new org.eclipse.jetty.ee10.servlet.FilterMapping();
        mapping.setFilterName("upstream");
        mapping.setPathSpec("/*");
        mapping.setDispatcherTypes(EnumSet.of(DispatcherType.REQUEST));
        context.getServletHandler().prependFilterMapping(mapping);
        return this;
    }

    /**
     * A second {@code filter-mapping} of Leapgate's filter, as {@code web.xml} may declare (a path
     * pattern besides {@code /*}): Jetty runs a filter once per mapping that matches.
     */
    JettyHarness alsoMapped(String pathSpec) {
        context.getServletHandler().addFilterWithMapping(filter, pathSpec, EnumSet.allOf(DispatcherType.class));
        return this;
    }

    /**
     * Another filter, named {@code name}, after Leapgate's, on {@code pathSpec} for {@code
     * dispatches}: a second Leapgate filter, on the same gate or another.
     */
    JettyHarness alsoFiltered(String name, Filter another, String pathSpec, EnumSet<DispatcherType> dispatches) {
        FilterHolder holder = new FilterHolder(another);
        holder.setName(name);
        holder.setAsyncSupported(true);
        context.addFilter(holder, pathSpec, dispatches);
        return this;
    }

    JettyHarness servlet(String path, HttpServlet servlet) {
        ServletHolder holder = new ServletHolder(servlet);
        holder.setAsyncSupported(true);
        context.addServlet(holder, path);
        return this;
    }

    JettyHarness start() throws Exception {
        server.start();
        return this;
    }

    /**
     * Starts the server expecting the filter to fail; returns the filter's exception (from the start
     * failure's causes), or null if it started.
     */
    Throwable startExpectingFailure() {
        try {
            server.start();
        } catch (Exception e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof jakarta.servlet.ServletException) {
                    return t;
                }
            }
            return e;
        }
        return filter.isStarted() ? null : new IllegalStateException("filter not started");
    }

    HttpGate gate() {
        return (HttpGate) context.getServletContext().getAttribute(LeapgateFilter.GATE_ATTRIBUTE_PREFIX + "leapgate");
    }

    StatsSnapshot stats(String resource) {
        return gate().stats(resource).orElseThrow().lastMinute();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/app" + path);
    }

    HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Waits (up to 10 s) for something that happens after a response is sent, e.g. an async listener. */
    static void eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
