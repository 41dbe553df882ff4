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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The test application ({@code src/test/webapp}) deployed from its {@code WEB-INF/web.xml} in an
 * embedded servlet container ({@link Container}: Jetty 12.1 or Tomcat 11) on a free loopback port,
 * at the root or under a context path, and an HTTP client to call it.
 *
 * <p><b>Rules.</b> The web.xml names {@code WEB-INF/leapgate-rules.properties}, relative to the
 * application root. Each instance deploys a fresh copy of the application directory in a temporary
 * directory and writes the test's rules there before starting; {@link #rewriteRules} changes them
 * while the application runs.
 *
 * <p><b>Time.</b> A {@link ManualClock} is put in the servlet-context attribute {@code
 * dev.leapgate.Clock} before the filters start, and the filter takes the clock from it in {@code
 * init}. Windows and the reload interval therefore move only when a test advances {@link #clock}.
 * The JAX-RS provider is configured by the Jersey servlet's init-params, which cannot carry an
 * object: it runs on the system clock, and no JAX-RS scenario waits for a window.
 *
 * <p><b>Deployments.</b> The application runs at the context path of the test ({@code ""} or
 * {@code /app}), behind "the proxy": web.xml trusts 127.0.0.1, so the test client is the trusted
 * proxy and the client it speaks for is the one in {@code X-Forwarded-For}. {@link
 * Builder#alsoExposedDirectly()} deploys the same application a second time at {@code /exposed} from
 * a copy of the descriptor that trusts only 10.0.0.0/8: there the test client is an untrusted peer,
 * as an attacker reaching the application directly.
 */
final class TestWebApp implements AutoCloseable {

    static final String FILTER_NAME = "leapgate";
    static final String EXPOSED = "/exposed";
    private static final Path WEBAPP = Path.of("src/test/webapp").toAbsolutePath();
    private static final String RULES_FILE = "WEB-INF/leapgate-rules.properties";

    /**
     * Every container at the root and under a context path: what the suite runs on. The system
     * property {@code leapgate.it.containers} (comma-separated {@link Container} names, lower case)
     * narrows the containers: the failsafe run on Tomcat 10.1's class path sets it to {@code tomcat}.
     */
    static List<Arguments> deployments() {
        List<Arguments> all = new ArrayList<>();
        String only = System.getProperty("leapgate.it.containers", "");
        for (Container container : Container.values()) {
            if (!only.isEmpty()
                    && !List.of(only.split(",")).contains(container.name().toLowerCase(java.util.Locale.ROOT))) {
                continue;
            }
            for (String contextPath : List.of("", "/app")) {
                all.add(Arguments.of(container, contextPath));
            }
        }
        return all;
    }

    /**
     * Every container at the root only: for a test whose subject does not depend on the context
     * path (the per-client table under a flood) and that is too long to run twice per container.
     */
    static List<Arguments> rootDeployments() {
        return deployments().stream()
                .filter(deployment -> deployment.get()[1].equals(""))
                .toList();
    }

    final ManualClock clock = new ManualClock();
    final Hold hold = new Hold();
    final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    final Container container;
    final String contextPath;

    private final Path root;
    private final Container.Server server;
    private final boolean exposed;
    private long rulesModifiedMillis = -1;

    private TestWebApp(Builder builder) throws IOException {
        this.container = builder.container;
        this.contextPath = builder.contextPath;
        this.exposed = builder.exposed;
        root = Files.createTempDirectory("leapgate-it-webapp");
        copy(WEBAPP, root);
        rewriteRules(builder.rules);
        Path descriptor = root.resolve("WEB-INF/web.xml");
        Files.writeString(descriptor, builder.descriptorEdit.apply(Files.readString(descriptor)));
        Map<String, Object> attributes = Map.of(LeapgateFilter.CLOCK_ATTRIBUTE, clock, Hold.ATTRIBUTE, hold);
        server = container.newServer();
        server.deploy(contextPath, root, descriptor, attributes);
        if (exposed) {
            // The same application, trusting only 10.0.0.0/8 (the filter's and the provider's setting).
            Path exposedDescriptor = root.resolve("WEB-INF/web-exposed.xml");
            String webXml = Files.readString(descriptor);
            String trusting =
                    webXml.replace("<param-value>127.0.0.1</param-value>", "<param-value>10.0.0.0/8</param-value>");
            if (trusting.equals(webXml)) {
                throw new IllegalStateException("web.xml no longer trusts 127.0.0.1 as written here");
            }
            Files.writeString(exposedDescriptor, trusting);
            server.deploy(EXPOSED, root, exposedDescriptor, attributes);
        }
    }

    /** A deployment whose rules file holds {@code rules} (properties text). */
    static Builder withRules(String rules) {
        return new Builder(rules);
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

    /** The servlet filter's gate in the test's deployment (published in its servlet context). */
    HttpGate gate() {
        return gate(contextPath);
    }

    HttpGate exposedGate() {
        return gate(EXPOSED);
    }

    private HttpGate gate(String deployment) {
        return (HttpGate)
                server.servletContext(deployment).getAttribute(LeapgateFilter.GATE_ATTRIBUTE_PREFIX + FILTER_NAME);
    }

    /**
     * The JAX-RS provider's gate in the {@code /app} deployment. The provider takes its settings
     * from the Jersey servlet's init-params, which cannot hold a clock object: its rules run on the
     * system clock.
     */
    HttpGate jaxrsGate() {
        return jaxrsGate(contextPath);
    }

    HttpGate exposedJaxrsGate() {
        return jaxrsGate(EXPOSED);
    }

    private HttpGate jaxrsGate(String deployment) {
        Configuration configuration =
                (Configuration) server.servletContext(deployment).getAttribute(JaxrsConfigurationPublisher.ATTRIBUTE);
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

    /** A URI in the test's deployment: {@code path} below its context path. */
    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + contextPath + path);
    }

    /** A URI in the {@code /exposed} deployment. */
    URI exposedUri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + EXPOSED + path);
    }

    /** The server's port, for raw-socket clients. */
    int port() {
        return server.port();
    }

    static HttpRequest request(URI uri, String... headerNamesAndValues) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
        for (int i = 0; i < headerNamesAndValues.length; i += 2) {
            request.header(headerNamesAndValues[i], headerNamesAndValues[i + 1]);
        }
        return request.build();
    }

    /** GET in the test's deployment, with header fields given as name, value, name, value... */
    HttpResponse<String> get(String path, String... headerNamesAndValues) throws IOException, InterruptedException {
        return get(uri(path), headerNamesAndValues);
    }

    HttpResponse<String> get(URI uri, String... headerNamesAndValues) throws IOException, InterruptedException {
        return client.send(request(uri, headerNamesAndValues), HttpResponse.BodyHandlers.ofString());
    }

    /** GET in the test's deployment as the trusted proxy forwarding for {@code clientIp}. */
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
            server.close();
        } finally {
            deleteTree(root);
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(TestWebApp::delete);
        }
    }

    @Override
    public String toString() {
        return container + " at '" + contextPath + "'";
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
        private Container container = Container.JETTY;
        private String contextPath = "/app";
        private UnaryOperator<String> descriptorEdit = UnaryOperator.identity();

        private Builder(String rules) {
            this.rules = rules;
        }

        /** The container and the context path ({@code ""} for the root) to deploy in and at. */
        Builder on(Container container, String contextPath) {
            this.container = container;
            this.contextPath = contextPath;
            return this;
        }

        /** Changes the text of the application's web.xml before it is deployed. */
        Builder editDescriptor(UnaryOperator<String> edit) {
            this.descriptorEdit = edit;
            return this;
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
