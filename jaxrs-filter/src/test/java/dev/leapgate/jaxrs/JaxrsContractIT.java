package dev.leapgate.jaxrs;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.jaxrs.app.ContractResource;
import dev.leapgate.testing.AdapterContract;
import java.net.URI;
import java.util.Map;

/**
 * The adapter contract ({@link AdapterContract}) for the JAX-RS provider on the runtime under test
 * ({@link JaxrsServer}: Jersey 3.1, RESTEasy 6.2 or CXF 4.1), deployed as a servlet in Jetty 12
 * and configured by {@code leapgate.*} application properties.
 */
class JaxrsContractIT extends AdapterContract {

    @Override
    protected App start(Map<String, String> settings, ManualClock clock) {
        JaxrsServer.App application =
                new JaxrsServer.App(ContractResource.class).property(ProviderSettings.CLOCK, clock);
        settings.forEach((key, value) -> application.property(ProviderSettings.PREFIX + key, value));
        JaxrsServer server = JaxrsServer.start(application);
        return new App() {
            @Override
            public URI uri(String path) {
                return server.base.resolve(path);
            }

            @Override
            public HttpGate gate() {
                return server.gate();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }
}
