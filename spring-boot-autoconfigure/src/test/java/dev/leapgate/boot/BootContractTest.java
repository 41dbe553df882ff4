package dev.leapgate.boot;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.testing.AdapterContract;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The adapter contract ({@link AdapterContract}) for the Spring Boot starter: a Boot application
 * on embedded Tomcat, Spring MVC endpoints, Leapgate configured by {@code leapgate.*} properties.
 */
class BootContractTest extends AdapterContract {

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
}
