package dev.leapgate.demo;

import dev.leapgate.config.ReloadingRules;
import dev.leapgate.http.HttpGate;
import dev.leapgate.servlet.LeapgateFilter;
import dev.leapgate.store.StoreSettings;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The Leapgate demo: a small application (servlets and a JAX-RS API) in embedded Jetty 12, protected
 * by Leapgate through nothing but its {@code WEB-INF/web.xml} and the rules file it names, which is
 * reloaded while the demo runs.
 *
 * <p>The application is served from its directory on disk ({@code demo/src/main/webapp}), so its
 * rules file can be edited live. Settings (system property, else environment variable):
 *
 * <ul>
 *   <li>{@code -Dport} / {@code PORT}: the port, 8080 by default; 0 picks a free one.
 *   <li>{@code -Dhost} / {@code HOST}: the address to listen on, 127.0.0.1 by default.
 *   <li>{@code -Dwebapp} / {@code WEBAPP}: the application directory, found next to the demo's
 *       build output by default.
 *   <li>{@code -Dstore} / {@code STORE}: a shared store for the filter's {@code store} setting, such
 *       as {@code redis://127.0.0.1:6379}, so that several demo instances enforce one limit; none
 *       by default (every limit in this process).
 * </ul>
 */
public final class LeapgateDemo {

    /**
     * Jersey notes at start that optional providers (jakarta.activation) are absent, which does not
     * matter here. Held in a field: java.util.logging keeps only weak references to its loggers.
     */
    private static final Logger JERSEY_PROVIDERS =
            Logger.getLogger("org.glassfish.jersey.message.internal.MessagingBinders");

    static {
        JERSEY_PROVIDERS.setLevel(Level.SEVERE);
    }

    private LeapgateDemo() {}

    public static void main(String[] args) throws Exception {
        String host = setting("host", "HOST").orElse("127.0.0.1");
        int port;
        try {
            port = port(setting("port", "PORT").orElse("8080"));
            checkHost(host);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path webapp = setting("webapp", "WEBAPP").map(Path::of).orElseGet(LeapgateDemo::defaultWebapp);
        if (!Files.isRegularFile(webapp.resolve("WEB-INF/web.xml"))) {
            System.err.println("No WEB-INF/web.xml in " + webapp.toAbsolutePath() + "; set -Dwebapp=<dir>");
            System.exit(2);
        }
        Server server;
        try {
            server = start(host, port, webapp, setting("store", "STORE"));
        } catch (PortInUse e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        server.setStopAtShutdown(true);
        System.out.println(banner(host, port(server), rulesFile(server), setting("store", "STORE")));
        server.join();
    }

    /** Starts the demo application from {@code webapp} on {@code host:port} (port 0: a free one). */
    public static Server start(String host, int port, Path webapp) throws Exception {
        return start(host, port, webapp, Optional.empty());
    }

    /**
     * As {@link #start(String, int, Path)}; with {@code store}, the Leapgate filter shares its
     * windows there (its {@code store} init-param, set before the filter starts).
     */
    public static Server start(String host, int port, Path webapp, Optional<String> store) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(host);
        connector.setPort(port);
        server.addConnector(connector);
        WebAppContext app = new WebAppContext();
        app.setContextPath("/");
        app.setBaseResourceAsPath(webapp.toAbsolutePath().normalize());
        app.setParentLoaderPriority(true);
        app.setThrowUnavailableOnStartupException(true); // a bad init-param stops the demo, loudly
        store.ifPresent(uri -> app.addEventListener(new ServletContextListener() {
            @Override
            public void contextInitialized(ServletContextEvent event) {
                event.getServletContext().getFilterRegistration("leapgate").setInitParameter("store", uri);
            }
        }));
        server.setHandler(app);
        try {
            server.start();
        } catch (IOException e) {
            if (!(e.getCause() instanceof BindException)) {
                throw e;
            }
            server.stop();
            throw new PortInUse(
                    (host.contains(":") ? "[" + host + "]" : host) + ":" + port
                            + " is in use (another server listens there): start the demo on another port with"
                            + " -Dport=9090 or PORT=9090 (0 picks a free one)",
                    e);
        }
        return server;
    }

    /** The demo's port is taken: said in one line by {@link #main}, the README's first command. */
    static final class PortInUse extends IOException {
        private static final long serialVersionUID = 1L;

        PortInUse(String message, IOException cause) {
            super(message, cause);
        }
    }

    /**
     * The {@code port} setting: 0 to 65535.
     *
     * @throws IllegalArgumentException naming the setting and the value, for anything else
     */
    static int port(String text) {
        if (text.matches("[0-9]{1,5}") && Integer.parseInt(text) <= 65535) {
            return Integer.parseInt(text);
        }
        throw new IllegalArgumentException("port (-Dport or PORT) must be a whole number from 0 to 65535 (0 picks a"
                + " free one), was '" + text + "'");
    }

    /**
     * The {@code host} setting: an address of this machine (or 0.0.0.0, every interface), so that a
     * failure to listen is a port in use.
     *
     * @throws IllegalArgumentException naming the setting and the value, for anything else
     */
    static void checkHost(String host) {
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("host (-Dhost or HOST): '" + host + "' is not an address, nor a name"
                    + " this machine resolves; use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)");
        }
        boolean local;
        try {
            local = address.isAnyLocalAddress()
                    || address.isLoopbackAddress()
                    || NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            local = true; // cannot tell: let the server try
        }
        if (!local) {
            throw new IllegalArgumentException("host (-Dhost or HOST): '" + host + "' is not an address of this"
                    + " machine, so the demo cannot listen there; use 127.0.0.1 (this machine only) or 0.0.0.0"
                    + " (every interface)");
        }
    }

    /** The port the demo listens on. */
    public static int port(Server server) {
        return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    /** The rules file the Leapgate filter follows, as it resolved it. */
    public static Optional<Path> rulesFile(Server server) {
        WebAppContext app = (WebAppContext) server.getHandler();
        HttpGate gate =
                (HttpGate) app.getServletContext().getAttribute(LeapgateFilter.GATE_ATTRIBUTE_PREFIX + "leapgate");
        return gate == null ? Optional.empty() : gate.rulesFile().map(ReloadingRules::file);
    }

    static String banner(String host, int port, Optional<Path> rules, Optional<String> store) {
        String base = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        return """

                Leapgate demo running at %1$s/
                  servlets:  %1$s/hello   %1$s/reports/slow (takes 2 s)
                  JAX-RS:    %1$s/api/items   %1$s/api/items/1   %1$s/api/items/1/stock (async)
                  rules:     %2$s
                             (edit it while the demo runs: checked every 2 s)
                  status:    %1$s/leapgate/status (a live page in a browser, JSON to curl; this machine only)
                  store:     %3$s

                Send 7 requests; the 6th and 7th are rejected (5 per 10 s per client):
                  for i in 1 2 3 4 5 6 7; do curl -s -i %1$s/hello | grep -E '^(HTTP|Retry-After|RateLimit)'; done
                See a whole rejection:
                  curl -i %1$s/hello

                Stop with Ctrl+C.
                """.formatted(
                base,
                rules.map(Path::toString).orElse("(none)"),
                store.map(uri -> StoreSettings.withoutPassword(uri) + " (limits shared with every instance using it)")
                        .orElse("none: every limit in this process (-Dstore=redis://... to share)"));
    }

    private static Optional<String> setting(String property, String environment) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            value = System.getenv(environment);
        }
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }

    /**
     * {@code demo/src/main/webapp}, found from where this class was loaded: {@code
     * demo/target/leapgate-demo.jar} or {@code demo/target/classes}, both two levels below {@code
     * demo/}.
     */
    private static Path defaultWebapp() {
        CodeSource source = LeapgateDemo.class.getProtectionDomain().getCodeSource();
        if (source != null) {
            try {
                Path module = Path.of(source.getLocation().toURI()).getParent().getParent();
                if (module != null) {
                    return module.resolve("src/main/webapp");
                }
            } catch (URISyntaxException | IllegalArgumentException e) {
                // not a file location: the path from the repository root, below
            }
        }
        return Path.of("demo/src/main/webapp");
    }
}
