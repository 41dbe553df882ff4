package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.ManualClock;
import dev.leapgate.jaxrs.app.UserResource;
import java.nio.file.Files;
import java.nio.file.Path;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration, from the application's properties or a file, checked at start. */
class ConfigurationIT {

    @TempDir
    Path dir;

    @Test
    void configFile_andItsRulesFile_areRead() throws Exception {
        Path rules = dir.resolve("rules.properties");
        Files.writeString(rules, "rule.users.match = GET /users/{id}\nrule.users.limit = 1/1h\n");
        Path config = dir.resolve("leapgate.properties");
        Files.writeString(config, "rules-file = " + rules.toString().replace('\\', '/') + "\nstatus = 503\n");
        ResourceConfig app = new ResourceConfig(UserResource.class)
                .register(LeapgateFeature.class)
                .property(ProviderSettings.CLOCK, new ManualClock())
                .property(ProviderSettings.CONFIG_FILE, config.toString());

        try (TestServer server = TestServer.grizzly(app)) {
            assertThat(server.get("/users/1").statusCode()).isEqualTo(200);
            assertThat(server.get("/users/2").statusCode()).isEqualTo(503);
            assertThat(server.gate().rulesFile()).isPresent();
        }
    }

    @Test
    void invalidSettings_failTheStart_withEveryProblem() {
        ResourceConfig app = new ResourceConfig(UserResource.class)
                .register(LeapgateFeature.class)
                .property("leapgate.rule.users.match", "GET /users/{id}")
                .property("leapgate.rule.users.limit", "5/1min")
                .property("leapgate.trusted-proxis", "10.0.0.0/8");

        assertThatThrownBy(() -> TestServer.grizzly(app).close())
                .hasStackTraceContaining("2 problems in JAX-RS properties leapgate.*")
                .hasStackTraceContaining("leapgate.rule.users.limit: '5/1min' is not a limit")
                .hasStackTraceContaining(
                        "leapgate.trusted-proxis: unknown key; did you mean leapgate.trusted-proxies?");
    }

    @Test
    void noRulesAndNoAnnotations_enforceNothing_andTheGateIsAbsent() throws Exception {
        ResourceConfig app = new ResourceConfig(UserResource.class).register(LeapgateFeature.class);

        try (TestServer server = TestServer.grizzly(app)) {
            assertThat(server.get("/users/1").statusCode()).isEqualTo(200);
            assertThat(LeapgateFeature.gate(server.configuration())).isEmpty();
        }
    }
}
