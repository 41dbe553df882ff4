package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.GateLookupResource;
import org.junit.jupiter.api.Test;

/**
 * A resource finds the application's gate through its {@code @Context Configuration}, as the
 * README shows, on the runtime under test ({@link JaxrsServer}).
 */
class GateLookupIT {

    @Test
    void aResource_findsTheGate_inItsConfiguration() {
        JaxrsServer.App app = new JaxrsServer.App(GateLookupResource.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.gate.match", "GET /gate")
                .property("leapgate.rule.gate.limit", "10/1m");
        try (JaxrsServer server = JaxrsServer.start(app)) {
            assertThat(server.get("/gate").body()).isEqualTo("1");
            assertThat(server.get("/gate").body())
                    .as("the second request, admitted too")
                    .isEqualTo("2");
        }
    }
}
