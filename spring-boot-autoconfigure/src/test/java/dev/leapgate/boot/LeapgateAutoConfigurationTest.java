package dev.leapgate.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.leapgate.ManualClock;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.reflect.Method;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.core.io.ByteArrayResource;

/** The starter's auto-configuration in a real Boot application: properties, failures, metrics, Actuator. */
class LeapgateAutoConfigurationTest {

    private static final Map<String, String> LOGIN_PER_IP = Map.of(
            "leapgate.rule.login.match", "GET /ok",
            "leapgate.rule.login.limit", "2/1m",
            "leapgate.rule.login.scope", "per-origin");

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(BootApps.Running app, String path) throws Exception {
        return send(HttpRequest.newBuilder(app.uri(path)));
    }

    private static String camel(String key) {
        StringBuilder name = new StringBuilder();
        for (String part : key.split("-")) {
            name.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        return name.toString();
    }

    private static List<String> setters(Class<?> type) {
        return Arrays.stream(type.getMethods())
                .map(Method::getName)
                .filter(name -> name.startsWith("set"))
                .toList();
    }

    @Test
    void everySettingAndEveryRuleSetting_isAProperty() {
        for (String key : ConfigParser.settingKeys()) {
            assertThat(setters(LeapgateProperties.class)).as("leapgate." + key).contains("set" + camel(key));
        }
        assertThat(setters(LeapgateProperties.class)).contains("setRules", "setRule");
        for (String key : ConfigParser.ruleSettingKeys()) {
            assertThat(setters(LeapgateProperties.Rule.class))
                    .as("leapgate.rule.<name>." + key)
                    .contains("set" + camel(key));
        }
    }

    @Test
    void theReadmesApplicationYml_protectsTheLoginEndpointPerClientIp() throws Exception {
        String readme = Files.readString(Path.of("../README.md"));
        int section = readme.indexOf("\n## Spring Boot\n");
        int start = readme.indexOf("```yaml\n", section) + "```yaml\n".length();
        String yaml = readme.substring(start, readme.indexOf("```", start));
        YamlPropertiesFactoryBean factory = new YamlPropertiesFactoryBean();
        factory.setResources(new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        Map<String, String> properties = new LinkedHashMap<>();
        factory.getObject().forEach((key, value) -> properties.put(key.toString(), value.toString()));
        assertThat(properties).containsEntry("leapgate.rule.login.match", "POST /login");

        try (BootApps.Running app = BootApps.start(properties, new ManualClock())) {
            for (int i = 0; i < 5; i++) {
                assertThat(login(app, "203.0.113.7").statusCode()).isEqualTo(200);
            }
            HttpResponse<String> sixth = login(app, "203.0.113.7");
            assertThat(sixth.statusCode()).isEqualTo(429);
            assertThat(sixth.headers().firstValue("RateLimit-Policy")).hasValue("\"login\";q=5;w=60");
            assertThat(login(app, "198.51.100.1").statusCode())
                    .as("another client")
                    .isEqualTo(200);
            assertThat(get(app, "/ok").statusCode()).as("no rule for it").isEqualTo(200);
        }
    }

    private static HttpResponse<String> login(BootApps.Running app, String client) throws Exception {
        return send(HttpRequest.newBuilder(app.uri("/login"))
                .header("X-Forwarded-For", client)
                .POST(HttpRequest.BodyPublishers.noBody()));
    }

    @Test
    void theFilter_limitsPerClient_runsBeforeSpringSecurity_andSupportsAsynchronousRequests() throws Exception {
        try (BootApps.Running app = BootApps.start(LOGIN_PER_IP, new ManualClock())) {
            assertThat(get(app, "/ok").statusCode()).isEqualTo(200);
            assertThat(get(app, "/ok").statusCode()).isEqualTo(200);
            assertThat(get(app, "/ok").statusCode()).isEqualTo(429);

            FilterRegistrationBean<?> registration =
                    app.context().getBean("leapgateFilterRegistration", FilterRegistrationBean.class);
            assertThat(registration.getOrder())
                    .as("before Spring Security's filter chain (-100)")
                    .isEqualTo(LeapgateProperties.DEFAULT_FILTER_ORDER)
                    .isLessThan(-100);
            assertThat(registration.isAsyncSupported()).isTrue();
        }
    }

    @Test
    void invalidProperties_failTheStart_withAnAnalysisNamingThePropertyAndTheValue() {
        Throwable failure = catchThrowable(() -> BootApps.start(
                        Map.of("leapgate.rule.login.match", "GET /ok", "leapgate.rule.login.limit", "5/1min"),
                        new ManualClock())
                .close());

        ConfigException cause = findCause(failure, ConfigException.class);
        assertThat(cause).as("the start failed on Leapgate's configuration").isNotNull();
        FailureAnalysis analysis = new LeapgateFailureAnalyzer().analyze(failure);
        assertThat(analysis.getDescription()).contains("leapgate.rule.login.limit: '5/1min' is not a limit");
        assertThat(analysis.getAction()).contains("leapgate.* properties");
    }

    @Test
    void anUnknownProperty_failsTheStart_ratherThanBeingIgnored() {
        Throwable failure = catchThrowable(() -> BootApps.start(
                        Map.of(
                                "leapgate.rule.login.match", "GET /ok",
                                "leapgate.rule.login.limit", "5/1m",
                                "leapgate.trusted-proxys", "10.0.0.0/8"),
                        new ManualClock())
                .close());

        assertThat(failure).isNotNull();
        assertThat(messages(failure)).contains("trusted-proxys");
    }

    @Test
    void aRuleWrittenWithTheContextPath_isReportedAsOneThatCanNeverMatch() throws Exception {
        Map<String, String> properties = Map.of(
                "server.servlet.context-path", "/shop",
                "leapgate.rule.login.match", "POST /shop/login",
                "leapgate.rule.login.limit", "5/1m");
        try (BootApps.Running app = BootApps.start(properties, new ManualClock())) {
            assertThat(app.bean(HttpGate.class).warnings())
                    .containsExactly("rule 'login' (POST /shop/login) can never match: rules match the path below the"
                            + " context path /shop, so it applies to /shop/shop/login; write POST /login");
        }
    }

    @Test
    void disabled_noGateAndNoFilter() throws Exception {
        Map<String, String> properties = new java.util.HashMap<>(LOGIN_PER_IP);
        properties.put("leapgate.enabled", "false");
        try (BootApps.Running app = BootApps.start(properties, new ManualClock())) {
            for (int i = 0; i < 4; i++) {
                assertThat(get(app, "/ok").statusCode()).isEqualTo(200);
            }
            assertThat(app.context().getBeanNamesForType(HttpGate.class)).isEmpty();
        }
    }

    @Test
    void theGatesMetrics_areInTheApplicationsMeterRegistry() throws Exception {
        try (BootApps.Running app = BootApps.start(LOGIN_PER_IP, new ManualClock())) {
            for (int i = 0; i < 3; i++) {
                get(app, "/ok");
            }
            MeterRegistry registry = app.bean(MeterRegistry.class);

            assertThat(registry.get("leapgate.requests")
                            .tags("resource", "GET /ok", "outcome", "rejected")
                            .functionCounter()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get("leapgate.rule.rejections")
                            .tags("rule", "login", "reason", "limit-exceeded")
                            .functionCounter()
                            .count())
                    .isEqualTo(1);
        }
    }

    @Test
    void theActuatorEndpoint_readsTheStatus_andReloadsTheRulesFile(@TempDir Path dir) throws Exception {
        Path rules = dir.resolve("rules.properties");
        Files.writeString(rules, "rule.login.match = GET /ok\nrule.login.limit = 2/1m\n");
        Map<String, String> properties = Map.of(
                "leapgate.rules-file", rules.toString(),
                "leapgate.reload-interval", "0s",
                "management.endpoints.web.exposure.include", "leapgate");
        try (BootApps.Running app = BootApps.start(properties, new ManualClock())) {
            get(app, "/ok");
            HttpResponse<String> status = get(app, "/actuator/leapgate");
            assertThat(status.statusCode()).isEqualTo(200);
            assertThat(status.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
            assertThat(status.body())
                    .startsWith("{\"rules\":[{\"name\":\"login\"")
                    .contains("\"limit\":2");

            Files.writeString(rules, "rule.login.match = GET /ok\nrule.login.limit = 7/1m\n");
            Files.setLastModifiedTime(
                    rules, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 2_000));
            HttpResponse<String> reload = send(
                    HttpRequest.newBuilder(app.uri("/actuator/leapgate")).POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(reload.statusCode()).isEqualTo(200);
            assertThat(reload.body()).isEqualTo("{\"reloaded\":true,\"changed\":true}");
            assertThat(get(app, "/actuator/leapgate").body()).contains("\"limit\":7");

            Files.writeString(rules, "rule.login.match = GET /ok\nrule.login.limit = lots\n");
            Files.setLastModifiedTime(
                    rules, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 4_000));
            HttpResponse<String> broken = send(
                    HttpRequest.newBuilder(app.uri("/actuator/leapgate")).POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(broken.body())
                    .startsWith("{\"reloaded\":false,\"error\":\"1 problem in")
                    .contains("lots");
            assertThat(get(app, "/actuator/leapgate").body())
                    .as("the rules in force stay")
                    .contains("\"limit\":7");
        }
    }

    private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }
}
