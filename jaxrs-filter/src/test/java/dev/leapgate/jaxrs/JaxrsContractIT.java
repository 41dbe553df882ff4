package dev.leapgate.jaxrs;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.jaxrs.app.ContractResource;
import dev.leapgate.testing.AdapterContract;
import java.net.URI;
import java.util.Map;
import org.glassfish.jersey.server.ResourceConfig;

/**
 * The adapter contract ({@link AdapterContract}) for the JAX-RS provider on Jersey 3.1, deployed
 * as a servlet in Jetty 12 and configured by {@code leapgate.*} application properties.
 */
class JerseyContractIT extends AdapterContract {

    @Override
    protected App start(Map<String, String> settings, ManualClock clock) {
        ResourceConfig application = new ResourceConfig(ContractResource.class)
                .register(LeapgateFeature.class)
                .property(ProviderSettings.CLOCK, clock);
        settings.forEach((key, value) -> application.property(ProviderSettings.PREFIX + key, value));
        TestServer server = TestServer.jetty(application);
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
            public void close() throws Exception {
                server.close();
            }
        };
    }
}
