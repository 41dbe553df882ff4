package dev.leapgate.it;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.it.app.Hold;
import dev.leapgate.it.app.JaxrsConfigurationPublisher;
import dev.leapgate.jaxrs.LeapgateFeature;
import dev.leapgate.servlet.LeapgateFilter;
import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsSnapshot;
import jakarta.ws.rs.core.Configuration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;

/**
 * The test application ({@code src/test/webapp}) deployed from its {@code WEB-INF/web.xml} in an
 * embedded Jetty 12 (ee10) on a free loopback port, and an HTTP client to call it.
 *
 * <p><b>Rules.</b> The web.xml names {@code WEB-INF/leapgate-rules.properties}, relative to the
 * application root. Each instance deploys a fresh copy of the application directory in a temporary
 * directory and writes the test's rules there before starting; {@link #rewriteRules} changes them
 * while the application runs.
 *
 * <p><b>Time.</b> A {@link ManualClock} is put in the servlet-context attribute {@code
 * dev.leapgate.Clock} before the server starts. {@code WebAppContext} parses web.xml and initializes
 * its filters while it starts (before the connector accepts requests), and the filter takes the
 * clock from the attribute in {@code init}; the attribute, set on the context beforehand, is
 * already visible then. Windows and the reload interval therefore move only when a test advances
 * {@link #clock}. The JAX-RS provider is configured by the Jersey servlet's init-params, which
 * cannot carry an object: it runs on the system clock, and no JAX-RS scenario waits for a window.
 *
 * <p><b>Deployments.</b> The application runs at {@code /app}, behind "the proxy": web.xml trusts
 * 127.0.0.1, so the test client is the trusted proxy and the client it speaks for is the one in
 * {@code X-Forwarded-For}. {@link Builder#alsoExposedDirectly()} deploys the same application a
 * second time at {@code /exposed} with a Jetty override descriptor that trusts only 10.0.0.0/8:
 * there the test client is an untrusted peer, as an attacker reaching the application directly.
 */
final class TestWebApp implements AutoCloseable {

    static final String FILTER_NAME = "leapgate";
    private static final Path WEBAPP = Path.of("src/test/webapp").toAbsolutePath();
    private static final Path EXPOSED_OVERRIDE =
            Path.of("src/test/deploy/exposed-override-web.xml").toAbsolutePath();
    private static final String RULES_FILE = "WEB-INF/leapgate-rules.properties";

    final ManualClock clock = new ManualClock();
    final Hold hold = new Hold();
    final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private final Path root;
    private final Server server = new Server();
    private final ServerConnector connector = new ServerConnector(server);
    private final WebAppContext app;
    private final WebAppContext exposed;
    private long rulesModifiedMillis = -1;

    private TestWebApp(Builder builder) throws IOException {
        root = Files.createTempDirectory("leapgate-it-webapp");
        copy(WEBAPP, root);
        rewriteRules(builder.rules);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        app = deploy("/app", null);
        exposed = builder.exposed ? deploy("/exposed", EXPOSED_OVERRIDE) : null;
        server.setHandler(exposed == null ? app : new ContextHandlerCollection(app, exposed));
        server.setStopTimeout(5_000);
    }

    /** A deployment whose rules file holds {@code rules} (properties text). */
    static Builder withRules(String rules) {
        return new Builder(rules);
    }

    private WebAppContext deploy(String contextPath, Path overrideDescriptor) {
        WebAppContext context = new WebAppContext();
        context.setContextPath(contextPath);
        context.setBaseResourceAsPath(root);
        // Application classes come from the test class path, as the test's own: one ManualClock class.
        context.setParentLoaderPriority(true);
        context.setThrowUnavailableOnStartupException(true);
        if (overrideDescriptor != null) {
            context.addOverrideDescriptor(overrideDescriptor.toUri().toString());
        }
        context.setAttribute(LeapgateFilter.CLOCK_ATTRIBUTE, clock);
        context.setAttribute(Hold.ATTRIBUTE, hold);
        return context;
    }

    private TestWebApp start() throws Exception {
        try {
            server.start();
        } catch (Exception e) {
            close();
            throw e;
        }
        return this;
    }

    /**
     * Replaces the rules file. Its modification time is moved a second past the previous one, so
     * the change is seen however coarse the file system's timestamps are (the reload notices
     * changes by modification time and size).
     */
    void rewriteRules(String rules) throws IOException {
        Path file = root.resolve(RULES_FILE);
        Files.writeString(file, rules);
        long now = System.currentTimeMillis();
        long modified = rulesModifiedMillis < 0 ? now : Math.max(now, rulesModifiedMillis + 1_000);
        Files.setLastModifiedTime(file, FileTime.fromMillis(modified));
        rulesModifiedMillis = modified;
    }

    /** The servlet filter's gate in the {@code /app} deployment (published in its servlet context). */
    HttpGate gate() {
        return gate(app);
    }

    HttpGate exposedGate() {
        return gate(exposed);
    }

    private static HttpGate gate(WebAppContext context) {
        return (HttpGate) context.getServletContext().getAttribute(LeapgateFilter.GATE_ATTRIBUTE_PREFIX + FILTER_NAME);
    }

    /**
     * The JAX-RS provider's gate in the {@code /app} deployment. The provider takes its settings
     * from the Jersey servlet's init-params, which cannot hold a clock object: its rules run on the
     * system clock.
     */
    HttpGate jaxrsGate() {
        return jaxrsGate(app);
    }

    HttpGate exposedJaxrsGate() {
        return jaxrsGate(exposed);
    }

    private static HttpGate jaxrsGate(WebAppContext context) {
        Configuration configuration =
                (Configuration) context.getServletContext().getAttribute(JaxrsConfigurationPublisher.ATTRIBUTE);
        return LeapgateFeature.gate(configuration).orElseThrow(() -> new AssertionError("no JAX-RS gate"));
    }

    /** The statistics of a resource of the JAX-RS provider over the last minute (system clock). */
    StatsSnapshot jaxrsStats(String resource) {
        return jaxrsResource(resource).lastMinute();
    }

    ResourceStats jaxrsResource(String resource) {
        return jaxrsGate().stats(resource).orElseThrow(() -> new AssertionError("no JAX-RS rule protects " + resource));
    }

    ResourceStats resource(String resource) {
        return gate().stats(resource).orElseThrow(() -> new AssertionError("no rule protects " + resource));
    }

    /** The statistics of a resource over the last minute of the test's clock. */
    StatsSnapshot stats(String resource) {
        return resource(resource).lastMinute();
    }

    /** A URI in the {@code /app} deployment. */
    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/app" + path);
    }

    /** A URI in the {@code /exposed} deployment. */
    URI exposedUri(String path) {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/exposed" + path);
    }

    static HttpRequest request(URI uri, String... headerNamesAndValues) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
        for (int i = 0; i < headerNamesAndValues.length; i += 2) {
            request.header(headerNamesAndValues[i], headerNamesAndValues[i + 1]);
        }
        return request.build();
    }

    /** GET in the {@code /app} deployment, with header fields given as name, value, name, value... */
    HttpResponse<String> get(String path, String... headerNamesAndValues) throws IOException, InterruptedException {
        return get(uri(path), headerNamesAndValues);
    }

    HttpResponse<String> get(URI uri, String... headerNamesAndValues) throws IOException, InterruptedException {
        return client.send(request(uri, headerNamesAndValues), HttpResponse.BodyHandlers.ofString());
    }

    /** GET in the {@code /app} deployment as the trusted proxy forwarding for {@code clientIp}. */
    HttpResponse<String> getFor(String clientIp, String path) throws IOException, InterruptedException {
        return get(path, "X-Forwarded-For", clientIp);
    }

    CompletableFuture<HttpResponse<String>> getAsync(String path) {
        return client.sendAsync(request(uri(path)), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Waits (up to 10 s) for something that happens just after a response was sent, such as an
     * asynchronous listener closing an entry. Not for windows: those move only with {@link #clock}.
     */
    static void eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("condition not met within 10 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            server.stop();
        } finally {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(TestWebApp::delete);
            }
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path source : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        }
    }

    private static void delete(Path path) {
        try {
            Files.delete(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Configures a {@link TestWebApp}. */
    static final class Builder {
        private final String rules;
        private boolean exposed;

        private Builder(String rules) {
            this.rules = rules;
        }

        /** Also deploys the application at {@code /exposed}, where loopback is not a trusted proxy. */
        Builder alsoExposedDirectly() {
            exposed = true;
            return this;
        }

        TestWebApp start() throws Exception {
            return new TestWebApp(this).start();
        }
    }
}
