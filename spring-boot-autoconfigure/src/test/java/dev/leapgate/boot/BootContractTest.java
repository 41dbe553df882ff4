package dev.leapgate.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.testing.AdapterContract;
import jakarta.servlet.ServletContext;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The adapter contract ({@link AdapterContract}) for the Spring Boot starter: a Boot application
 * on embedded Tomcat, Spring MVC endpoints, Leapgate configured by {@code leapgate.*} properties.
 * {@link JettyBootContractTest} runs it on embedded Jetty.
 */
class BootContractTest extends AdapterContract {

    /** The embedded server the contract runs on, as its servlet context's server info starts. */
    String server() {
        return "Apache Tomcat/";
    }

    @Override
    protected App start(Map<String, String> settings, ManualClock clock) {
        Map<String, String> properties = new LinkedHashMap<>();
        settings.forEach((key, value) -> properties.put("leapgate." + key, value));
        BootApps.Running app = BootApps.start(properties, clock);
        return new App() {
            @Override
            public URI uri(String path) {
                return app.uri(path);
            }

            @Override
            public HttpGate gate() {
                return app.bean(HttpGate.class);
            }

            @Override
            public void close() {
                app.close();
            }
        };
    }

    /** The contract ran on the server this class names, not on another one on the class path. */
    @Test
    void runsOnItsEmbeddedServer() {
        try (BootApps.Running app = BootApps.start(
                Map.of("leapgate.rule.ok.match", "GET /ok", "leapgate.rule.ok.limit", "5/1m"), new ManualClock())) {
            // The servlet API's word for it, the same on every Boot version (Boot's own web server
            // types moved between 3 and 4: spring-boot-3-tests runs this class too).
            assertThat(app.bean(ServletContext.class).getServerInfo()).startsWith(server());
        }
    }
}
