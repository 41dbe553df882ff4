package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.UserResource;
import dev.leapgate.rule.FlowRule;
import java.nio.file.Path;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/** The provider registered the three ways a JAX-RS application registers one. */
class RegistrationIT {

    @Test
    void registeredInCode() throws Exception {
        ResourceConfig app = new ResourceConfig(UserResource.class)
                .register(LeapgateFeature.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property("leapgate.rule.users.match", "GET /users/{id}")
                .property("leapgate.rule.users.limit", "1/1h");
        try (TestServer server = TestServer.grizzly(app)) {
            assertThat(server.get("/users/1").statusCode()).isEqualTo(200);
            assertThat(server.get("/users/2").statusCode()).isEqualTo(429);
        }
    }

    @Test
    void registeredInCode_asAnInstanceWithItsConfiguration_andTwiceByMistake_appliesOnce() throws Exception {
        var config = dev.leapgate.config.ConfigParser.parse(
                java.util.Map.of("rule.users.match", "GET /users/{id}", "rule.users.limit", "2/1h"), "code");
        ResourceConfig app = new ResourceConfig(UserResource.class)
                .register(new LeapgateFeature(config))
                .register(LeapgateFeature.class)
                .property(ProviderSettings.CLOCK, new ManualClock());
        try (TestServer server = TestServer.grizzly(app)) {
            assertThat(server.get("/users/1").statusCode()).isEqualTo(200);
            assertThat(server.get("/users/2").statusCode())
                    .as("counted once per request")
                    .isEqualTo(200);
            assertThat(server.get("/users/3").statusCode()).isEqualTo(429);
        }
    }

    @Test
    void foundByPackageScanning() throws Exception {
        ResourceConfig app = new ResourceConfig()
                .packages(false, "dev.leapgate.jaxrs")
                .packages("dev.leapgate.jaxrs.app.scanned")
                .property(ProviderSettings.CLOCK, new ManualClock());
        try (TestServer server = TestServer.grizzly(app)) {
            assertThat(server.get("/scanned").statusCode()).isEqualTo(200);
            assertThat(server.get("/scanned").statusCode()).isEqualTo(429);
            assertThat(server.gate().rules().rules())
                    .extracting(FlowRule::name)
                    .containsExactly("ScannedResource-get-1");
        }
    }

    @Test
    void namedInWebXml_withItsSettingsAsInitParams_limitsEachClientBehindTheTrustedProxy() throws Exception {
        try (TestServer server = TestServer.jettyWebApp(Path.of("src/test/webapp"), "api")) {
            for (String client : new String[] {"203.0.113.1", "203.0.113.2"}) {
                assertThat(server.get("/users/1", "X-Forwarded-For", client).statusCode())
                        .isEqualTo(200);
                assertThat(server.get("/users/2", "X-Forwarded-For", "198.51.100.9, " + client)
                                .statusCode())
                        .isEqualTo(200);
                assertThat(server.get("/users/3", "X-Forwarded-For", client).statusCode())
                        .as("third request of %s", client)
                        .isEqualTo(429);
            }
            assertThat(server.get("/users/1").statusCode())
                    .as("the proxy itself")
                    .isEqualTo(200);
            assertThat(server.get("/limited/named", "X-Forwarded-For", "203.0.113.1")
                            .statusCode())
                    .isEqualTo(200);
            assertThat(server.get("/limited/named", "X-Forwarded-For", "203.0.113.1")
                            .statusCode())
                    .as("annotations work in a web.xml deployment too")
                    .isEqualTo(429);
        }
    }
}
