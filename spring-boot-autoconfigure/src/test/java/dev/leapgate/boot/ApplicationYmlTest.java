package dev.leapgate.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

import dev.leapgate.ManualClock;
import dev.leapgate.config.ConfigException;
import dev.leapgate.http.HttpGate;
import dev.leapgate.rule.FlowRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Traps of application.yml: Boot's relaxed binding and YAML 1.1, in a started application whose
 * configuration is an application.yml file, as a user writes it.
 */
class ApplicationYmlTest {

    @TempDir
    Path dir;

    private BootApps.Running start(String yml) throws Exception {
        return start("application.yml", yml);
    }

    private BootApps.Running start(String fileName, String text) throws Exception {
        Path file = dir.resolve(fileName);
        Files.writeString(file, text);
        return BootApps.start(Map.of("spring.config.location", "file:" + file), new ManualClock());
    }

    /** The start's failure, explained as Boot explains it: by Leapgate's failure analysis. */
    private String failure(String yml) {
        return failure("application.yml", yml);
    }

    private String failure(String fileName, String text) {
        Throwable failure = catchThrowable(() -> start(fileName, text).close());
        assertThat(failure).as("the start fails").isNotNull();
        boolean leapgate = false;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            leapgate |= t instanceof ConfigException;
        }
        assertThat(leapgate).as("on Leapgate's configuration: " + failure).isTrue();
        FailureAnalysis analysis = new LeapgateFailureAnalyzer().analyze(failure);
        assertThat(analysis).isNotNull();
        return analysis.getDescription();
    }

    /**
     * Boot compares property names ignoring dashes, underscores and case, so it bound the settings
     * of one rule to another whose name differs only so: apihello, written without a limit, ran
     * with api-hello's limit instead of failing the start for its missing limit.
     */
    @Test
    void twoRulesWhoseNamesDifferOnlyInDashes_failTheStart_ratherThanOneTakingTheOthersLimit() {
        String description = failure("""
                leapgate:
                  rule:
                    api-hello:
                      match: GET /ok
                      limit: 2/1m
                    apihello:
                      match: /hello/**
                """);

        assertThat(description)
                .contains("leapgate.rule.apihello: rule names 'api-hello' and 'apihello' differ only in dashes,"
                        + " underscores or case");
    }

    /** api_hello ran with apihello's match and limit, its own scope alone kept. */
    @Test
    void twoRulesWhoseNamesDifferOnlyInUnderscores_failTheStart_ratherThanOneTakingTheOthersSettings() {
        String description = failure("""
                leapgate:
                  rule:
                    api_hello:
                      match: GET /ok
                      limit: 2/1m
                      scope: per-origin
                    apihello:
                      match: /hello/**
                      limit: 100/1m
                """);

        assertThat(description)
                .contains("leapgate.rule.apihello: rule names 'api_hello' and 'apihello' differ only in dashes,"
                        + " underscores or case");
    }

    /** Two copies of one rule were refused as copies, unless their names differed in a dash: one was dropped. */
    @Test
    void twoIdenticalRulesWhoseNamesDifferOnlyInDashes_failTheStart_ratherThanOneBeingDropped() {
        String description = failure("""
                leapgate:
                  rule:
                    api-hello:
                      match: GET /ok
                      limit: 2/1m
                    apihello:
                      match: GET /ok
                      limit: 2/1m
                """);

        assertThat(description).contains("rule names 'api-hello' and 'apihello' differ only in dashes");
    }

    /**
     * An environment variable spells a rule's name without its dashes or underscores, in capitals:
     * it sets that rule's setting, and is not a rule of its own sharing its settings. A rule named
     * with an underscore or a capital (api_hello, Login) failed the start when overridden so, its
     * copy refused as the same rule or as a name differing only in case.
     */
    @Test
    void anEnvironmentVariable_overridesALimitOfARuleWhoseNameHasDashesUnderscoresOrCapitals() throws Exception {
        Path file = dir.resolve("application.yml");
        Files.writeString(file, """
                leapgate:
                  rule:
                    api-hello:
                      match: GET /ok
                      limit: 100/1m
                    api_other:
                      match: /other/**
                      limit: 100/1m
                    Login:
                      match: POST /login
                      limit: 100/1m
                """);
        StandardEnvironment environment = new StandardEnvironment();
        environment
                .getPropertySources()
                .replace(
                        StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        new SystemEnvironmentPropertySource(
                                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                Map.of(
                                        "LEAPGATE_RULE_APIHELLO_LIMIT", "2/1m",
                                        "LEAPGATE_RULE_APIOTHER_LIMIT", "3/1m",
                                        "LEAPGATE_RULE_LOGIN_LIMIT", "4/1m")));
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ContractApplication.class)
                .environment(environment)
                .properties(Map.of(
                        "server.port", "0",
                        "server.address", "127.0.0.1",
                        "spring.config.location", "file:" + file))
                .initializers(c -> c.getBeanFactory().registerSingleton("leapgateTestClock", new ManualClock()))
                .run()) {
            assertThat(context.getBean(HttpGate.class).rules().rules())
                    .extracting(FlowRule::name, FlowRule::limit)
                    .containsExactly(tuple("api-hello", 2L), tuple("api_other", 3L), tuple("Login", 4L));
        }
    }

    /**
     * The README has an application with a gate of its own build it from the properties bean
     * ({@code HttpGate.builder(properties.toConfig())}): its toConfig() skipped the starter's checks
     * of where each value was written. An environment variable overriding a rule named Login failed
     * the start as a second rule, and buckets: 010 ran with 8 buckets without a word.
     */
    @Test
    void anApplicationsOwnGateFromTheProperties_getsTheStartersChecksOfTheEnvironment() throws Exception {
        String yml = """
                leapgate:
                  rule:
                    Login:
                      match: POST /login
                      limit: 100/1m
                """;
        try (ConfigurableApplicationContext context =
                startWith(yml, Map.of("LEAPGATE_RULE_LOGIN_LIMIT", "4/1m"), Map.of(), OwnGate.class)) {
            assertThat(context.getBean(HttpGate.class))
                    .as("the application's own")
                    .isSameAs(context.getBean(OwnGate.class).gate);
            assertThat(context.getBean(HttpGate.class).rules().rules())
                    .extracting(FlowRule::name, FlowRule::limit)
                    .containsExactly(tuple("Login", 4L));
        }
        Throwable octal =
                catchThrowable(() -> startWith(yml + "      buckets: 010\n", Map.of(), Map.of(), OwnGate.class)
                        .close());
        assertThat(octal).hasStackTraceContaining("buckets: '010' is read by YAML 1.1 as 8");
    }

    /** An application's own gate, built from the properties bean. */
    static class OwnGate {
        HttpGate gate;

        @Bean
        HttpGate ownGate(LeapgateProperties properties) {
            gate = HttpGate.builder(properties.toConfig()).build();
            return gate;
        }
    }

    /** Starts the application of {@code yml} with these environment variables and JVM system properties. */
    private ConfigurableApplicationContext startWith(
            String yml,
            Map<String, Object> environmentVariables,
            Map<String, Object> systemProperties,
            Class<?>... more)
            throws Exception {
        Path file = dir.resolve("application.yml");
        Files.writeString(file, yml);
        StandardEnvironment environment = new StandardEnvironment();
        environment
                .getPropertySources()
                .replace(
                        StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        new SystemEnvironmentPropertySource(
                                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, environmentVariables));
        environment
                .getPropertySources()
                .replace(
                        StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
                        new MapPropertySource(
                                StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME, systemProperties));
        List<Class<?>> sources = new java.util.ArrayList<>(List.of(ContractApplication.class));
        sources.addAll(List.of(more));
        return new SpringApplicationBuilder(sources.toArray(new Class<?>[0]))
                .environment(environment)
                .properties(Map.of(
                        "server.port", "0",
                        "server.address", "127.0.0.1",
                        "spring.config.location", "file:" + file))
                .initializers(c -> c.getBeanFactory().registerSingleton("leapgateTestClock", new ManualClock()))
                .run();
    }

    /**
     * Boot checks only the application's files for properties that bind to nothing; an environment
     * variable or a JVM system property that does was dropped without a word: a misspelt override
     * (LEAPGATE_RULE_LOGIN_LIMT) left the limit as it was, and a list written as Boot writes one
     * there (LEAPGATE_DENY_0_) denied no one, where the same mistakes in application.yml fail the
     * start; so did a misspelt setting (LEAPGATE_TRUSTEDPROXYS), which is reported with the setting
     * meant. Another program's variable that only shares the prefix is left alone.
     */
    @Test
    void anEnvironmentVariableOrSystemPropertyThatSetsNothing_failsTheStart_ratherThanBeingIgnored() throws Exception {
        String yml = """
                leapgate:
                  rule:
                    api-per-ip:
                      match: GET /ok
                      limit: 100/1m
                """;
        Map<String, Map<String, Object>> environmentVariables = Map.of(
                "LEAPGATE_RULE_APIPERIP_LIMT", Map.of("LEAPGATE_RULE_APIPERIP_LIMT", "2/1m"),
                "LEAPGATE_DENY_0_", Map.of("LEAPGATE_DENY_0_", "127.0.0.1"),
                "LEAPGATE_TRUSTED_PROXIES_1_", Map.of("LEAPGATE_TRUSTED_PROXIES_1_", "10.0.0.0/8"));
        environmentVariables.forEach((variable, environment) -> {
            Throwable failure =
                    catchThrowable(() -> startWith(yml, environment, Map.of()).close());
            assertThat(failure).as(variable + ": the start fails").isNotNull();
            assertThat(new LeapgateFailureAnalyzer().analyze(failure))
                    .as(variable)
                    .isNotNull()
                    .satisfies(analysis -> assertThat(analysis.getDescription())
                            .contains(variable)
                            .contains("sets no Leapgate setting, so Spring Boot would ignore it"));
        });
        Throwable misspelt =
                catchThrowable(() -> startWith(yml, Map.of("LEAPGATE_TRUSTEDPROXYS", "10.0.0.0/8"), Map.of())
                        .close());
        assertThat(new LeapgateFailureAnalyzer().analyze(misspelt))
                .as("a setting's name misspelt")
                .isNotNull()
                .satisfies(analysis -> assertThat(analysis.getDescription())
                        .contains("LEAPGATE_TRUSTEDPROXYS")
                        .contains("sets no Leapgate setting")
                        .contains("did you mean leapgate.trusted-proxies (LEAPGATE_TRUSTEDPROXIES in an"
                                + " environment variable)?"));
        Throwable failure =
                catchThrowable(() -> startWith(yml, Map.of(), Map.of("leapgate.rule.api-per-ip.limt", "2/1m"))
                        .close());
        assertThat(new LeapgateFailureAnalyzer().analyze(failure))
                .as("a JVM system property")
                .isNotNull()
                .satisfies(analysis -> assertThat(analysis.getDescription())
                        .contains("leapgate.rule.api-per-ip.limt")
                        .contains("sets no Leapgate setting"));

        Map<String, Object> fine = Map.of(
                "LEAPGATE_RULE_API_PER_IP_LIMIT", "2/1m", // a dash written as an underscore, which Boot binds
                "LEAPGATE_TRUSTEDPROXIES", "10.0.0.0/8",
                "LEAPGATE_REDIS7_SERVER", "/usr/bin/redis-server"); // another program's
        try (ConfigurableApplicationContext context = startWith(yml, fine, Map.of("leapgate.redis.server", "x"))) {
            assertThat(context.getBean(HttpGate.class).rules().rules())
                    .extracting(FlowRule::name, FlowRule::limit)
                    .containsExactly(tuple("api-per-ip", 2L));
        }
    }

    @Test
    void rulesWhoseNamesDifferInALetter_eachKeepTheirOwnSettings() throws Exception {
        try (BootApps.Running app = start("""
                leapgate:
                  rule:
                    api-hello:
                      match: GET /ok
                      limit: 2/1m
                    api-hallo:
                      match: /hello/**
                      in-flight: 3
                    login:
                      match: POST /login
                      limit: 5/1m
                """)) {
            assertThat(app.bean(HttpGate.class).rules().rules())
                    .extracting(FlowRule::name, FlowRule::resource, FlowRule::limit)
                    .containsExactly(
                            tuple("api-hello", "GET /ok", 2L),
                            tuple("api-hallo", "/hello/**", 3L),
                            tuple("login", "POST /login", 5L));
        }
    }

    /**
     * YAML 1.1, which application.yml is read as, takes an unquoted 010 for the octal number 8, 0x10
     * for 16, 1:30 for 90 (base 60), 1_000 for 1000 and on or yes for true. Boot handed Leapgate the
     * number or boolean YAML made of it: buckets: 010 ran with 8 buckets, filter-order: 010 at order 8,
     * mode: on was refused as 'true', deny-status: 0403 as 259, all without a word of what was written.
     */
    @Test
    void aValueThatYaml11ReadsAsAnotherNumberOrAsABoolean_failsTheStart_namingTheSettingAndTheValueAsWritten() {
        String rule = "leapgate:\n  rule:\n    api:\n      match: GET /ok\n";
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put(
                rule + "      limit: 100/10s\n      buckets: 010\n",
                "leapgate.rule.api.buckets: '010' is read by YAML 1.1 as 8");
        cases.put(rule + "      in-flight: 0x10\n", "leapgate.rule.api.in-flight: '0x10' is read by YAML 1.1 as 16");
        cases.put(
                rule + "      in-flight: 1_000\n", "leapgate.rule.api.in-flight: '1_000' is read by YAML 1.1 as 1000");
        cases.put(
                rule + "      limit: 100/10s\n      window: 1:30\n",
                "leapgate.rule.api.window: '1:30' is read by YAML 1.1 as 90");
        cases.put(
                rule + "      limit: 100/10s\n      mode: on\n",
                "leapgate.rule.api.mode: 'on' is read by YAML 1.1 as true");
        cases.put(
                rule + "      limit: 100/10s\n      scope: per-origin\n      max-origins: 1:30\n",
                "leapgate.rule.api.max-origins: '1:30' is read by YAML 1.1 as 90");
        cases.put(
                rule + "      limit: 100/10s\n  deny-status: 0403\n",
                "leapgate.deny-status: '0403' is read by YAML 1.1 as 259");
        cases.put(
                rule + "      limit: 100/10s\n  exempt: 0.0.0.0/0\n  allow-wide-exempt: yes\n",
                "leapgate.allow-wide-exempt: 'yes' is read by YAML 1.1 as true");
        cases.put(
                rule + "      limit: 100/10s\n  filter-order: 010\n",
                "leapgate.filter-order: '010' is read by YAML 1.1 as 8");
        // After a byte-order mark (not counted in SnakeYAML's columns), behind an anchor, after a tag.
        cases.put(
                "\uFEFFleapgate.rule.api.buckets: 010\nleapgate.rule.api.match: GET /ok\nleapgate.rule.api.limit: 100/10s\n",
                "leapgate.rule.api.buckets: '010' is read by YAML 1.1 as 8");
        cases.put(
                "eight: &n 010\n" + rule + "      limit: 100/10s\n      buckets: *n\n",
                "leapgate.rule.api.buckets: '010' is read by YAML 1.1 as 8");
        cases.put(
                rule + "      limit: 100/10s\n      buckets: !!int 010\n",
                "leapgate.rule.api.buckets: '010' is read by YAML 1.1 as 8");
        cases.forEach((yml, expected) -> assertThat(failure(yml))
                .as(yml)
                .contains(expected)
                .contains("application.yml")
                .contains("in quotes"));
    }

    /**
     * A rule name is a key of YAML, which YAML 1.1 reads as it reads a value: a rule written on: ran
     * as the rule true (so named in its headers, status and metrics, and out of reach of an
     * environment variable written for on), 010: as the rule 8, ~: as the rule null.
     */
    @Test
    void aRuleNameThatYaml11ReadsAsABooleanOrAnotherNumber_failsTheStart_namingTheNameAsWritten() {
        String rule = "\n      match: GET /ok\n      limit: 2/1m\n";
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put(
                "leapgate:\n  rule:\n    on:" + rule,
                "leapgate.rule.true: the rule name 'on' is read by YAML 1.1 as true, not as written (application.yml,"
                        + " line 3); write the name in quotes, 'on', for the rule to be named as written");
        cases.put(
                "leapgate:\n  rule:\n    api:" + rule + "    Off:" + rule,
                "the rule name 'Off' is read by YAML 1.1 as false");
        cases.put(
                "leapgate:\n  rule:\n    010:" + rule, "leapgate.rule.8: the rule name '010' is read by YAML 1.1 as 8");
        cases.put("leapgate:\n  rule:\n    1_000:" + rule, "the rule name '1_000' is read by YAML 1.1 as 1000");
        cases.put("leapgate.rule:\n  yes:" + rule, "the rule name 'yes' is read by YAML 1.1 as true");
        cases.put(
                "leapgate:\n  rule: {no: {match: GET /ok, limit: 2/1m}}\n",
                "the rule name 'no' is read by YAML 1.1 as false, not as written (application.yml, line 2)");
        cases.put(
                "spring.application.name: demo\n---\nleapgate:\n  rule:\n    on:" + rule,
                "the rule name 'on' is read by YAML 1.1 as true, not as written (application.yml, line 5)");
        cases.put(
                "base: &base\n  api:\n    match: /api/**\n    limit: 5/1m\n"
                        + "leapgate:\n  rule:\n    <<: *base\n    yes:" + rule,
                "the rule name 'yes' is read by YAML 1.1 as true, not as written (application.yml, line 8)");
        cases.put(
                "base: &base\n  off:\n    match: /api/**\n    limit: 5/1m\nleapgate:\n  rule:\n    <<: *base\n",
                "the rule name 'off' is read by YAML 1.1 as false, not as written (application.yml, line 2)");
        cases.forEach((yml, expected) -> assertThat(failure(yml)).as(yml).contains(expected));
    }

    /**
     * A rule name YAML 1.1 reads as null. Spring Framework 6.2 (Boot 3.5) fails on such a key itself,
     * before Leapgate reads anything (a {@code NullPointerException} in its {@code YamlProcessor}):
     * the start fails there too, without this message.
     */
    @Test
    @Tag("spring-boot-4")
    void aRuleNameThatYaml11ReadsAsNull_failsTheStart_namingTheNameAsWritten() {
        assertThat(failure("leapgate:\n  rule:\n    ~:\n      match: GET /ok\n      limit: 2/1m\n"))
                .contains("the rule name '~' is read by YAML 1.1 as null");
    }

    /** A document of the file that Boot does not load (another profile's) is not this start's to report. */
    @Test
    void aRuleNameInADocumentOfAnotherProfile_isNotReported() throws Exception {
        try (BootApps.Running app = start("""
                leapgate:
                  rule:
                    true:
                      match: GET /ok
                      limit: 2/1m
                ---
                spring.config.activate.on-profile: other
                leapgate:
                  rule:
                    on:
                      match: GET /on
                      limit: 3/1m
                """)) {
            assertThat(app.bean(HttpGate.class).rules().rules())
                    .extracting(FlowRule::name, FlowRule::limit)
                    .containsExactly(tuple("true", 2L));
        }
    }

    /** A rule name YAML reads as written (true, 8), or one in quotes, names the rule as written. */
    @Test
    void aRuleNameReadAsWritten_orInQuotes_namesTheRule() throws Exception {
        try (BootApps.Running app = start("""
                leapgate:
                  rule:
                    true:
                      match: GET /ok
                      limit: 2/1m
                    8:
                      match: /eight/**
                      limit: 8/1m
                    'on':
                      match: /on/**
                      limit: 3/1m
                    "010":
                      match: /octal/**
                      limit: 4/1m
                """)) {
            assertThat(app.bean(HttpGate.class).rules().rules())
                    .extracting(FlowRule::name, FlowRule::limit)
                    .containsExactlyInAnyOrder(tuple("true", 2L), tuple("8", 8L), tuple("on", 3L), tuple("010", 4L));
        }
    }

    /** A value YAML reads as written (or as the same number), or one in quotes, is Leapgate's to read. */
    @Test
    void aNumberWrittenInDecimal_orAValueInQuotes_isReadAsWritten() throws Exception {
        try (BootApps.Running app = start("""
                leapgate:
                  filter-order: -110
                  allow-wide-exempt: false
                  deny-status: 403
                  rule:
                    api:
                      match: GET /ok
                      limit: 100/10s
                      buckets: '010'
                    slow:
                      match: /slow/**
                      limit: 10/1s
                      on-excess: warm-up
                      cold-factor: 1.50
                    files:
                      match: /files/**
                      in-flight: 20
                """)) {
            assertThat(app.bean(HttpGate.class).rules().rules())
                    .extracting(
                            FlowRule::name,
                            r -> r.window() == null ? 0 : r.window().buckets(),
                            FlowRule::limit)
                    .containsExactly(tuple("api", 10, 100L), tuple("slow", 10, 10L), tuple("files", 0, 20L));
            assertThat(app.bean(HttpGate.class)
                            .rules()
                            .rules()
                            .get(1)
                            .onExcess()
                            .coldFactor())
                    .isEqualTo(1.5);
        }
    }

    /**
     * A Leapgate setting outside leapgate. is not bound, and was ignored without a word: with the
     * prefix misspelt, or the rules copied from a rules file without it, the application started
     * with a gate of no rule, protecting nothing.
     */
    @Test
    void aSettingWithAMisspeltPrefix_orWithoutIt_failsTheStart_ratherThanLeavingTheApplicationUnprotected() {
        assertThat(failure("""
                        leapgte:
                          rule:
                            login:
                              match: POST /login
                              limit: 5/1m
                        """))
                .contains("leapgte.rule.login.match: looks like a Leapgate setting, but its prefix is not leapgate."
                        + " exactly, so it would be ignored; write leapgate.rule.login.match");
        assertThat(failure(
                        "application.properties",
                        "leapgate.trusted-proxies=10.0.0.0/8\nrule.login.match=POST /login\nrule.login.limit=5/1m\n"))
                .contains("rule.login.limit: is a Leapgate setting without its prefix, so it would be ignored; write"
                        + " leapgate.rule.login.limit");
    }

    /**
     * An application's own properties named like Leapgate settings without the prefix (a rule of
     * its own with no match, a main key) are the application's: they must not stop its start.
     */
    @Test
    void theApplicationsOwnPropertiesNamedLikeLeapgateSettings_areNotReported() throws Exception {
        try (BootApps.Running app = start(
                "application.properties",
                "leapgate.rule.login.match=POST /login\nleapgate.rule.login.limit=5/1m\n"
                        + "rule.discount.limit=10\nrule.discount.mode=percent\nstatus-path=/health/deep\n")) {
            assertThat(app.bean(HttpGate.class).rules().rules())
                    .extracting(FlowRule::name)
                    .containsExactly("login");
        }
    }

    /** Boot binds leapgate. in any case and with dashes or underscores: such a prefix is Leapgate's. */
    @Test
    void aPrefixBootBindsAsLeapgate_isNotReportedAsMisspelt() throws Exception {
        try (BootApps.Running app = start("""
                Leapgate:
                  rule:
                    login:
                      match: POST /login
                      limit: 5/1m
                """)) {
            assertThat(app.bean(HttpGate.class).rules().rules())
                    .extracting(FlowRule::name)
                    .containsExactly("login");
        }
    }

    /**
     * How Boot explains a failed start: the first analysis of the failure analyzers it loads, in
     * their order.
     */
    private static FailureAnalysis bootsAnalysis(Throwable failure) {
        for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, e) -> {}))) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        return null;
    }

    /**
     * A YAML list where Leapgate takes one value, comma-separated or not: the start failed with
     * Boot's "the elements leapgate.trusted-proxies[0], ... were left unbound" and "Update your
     * application's configuration", which says neither that the setting takes one value nor how to
     * write it.
     */
    @Test
    void aYamlListForASetting_failsTheStart_withAnAnalysisSayingHowToWriteIt() throws Exception {
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put(
                """
                leapgate:
                  trusted-proxies:
                    - 10.0.0.0/8
                    - 192.168.0.0/16
                  rule:
                    login:
                      match: POST /login
                      limit: 5/1m
                """,
                "leapgate.trusted-proxies is written as a list (10.0.0.0/8, 192.168.0.0/16), but it takes one"
                        + " value: write the entries on one line, separated by commas: trusted-proxies: 10.0.0.0/8,"
                        + " 192.168.0.0/16");
        cases.put(
                """
                leapgate:
                  exempt: [10.0.0.1, 10.0.0.2]
                """,
                "leapgate.exempt is written as a list (10.0.0.1, 10.0.0.2), but it takes one value: write the"
                        + " entries on one line, separated by commas: exempt: 10.0.0.1, 10.0.0.2");
        cases.put("""
                leapgate:
                  rule:
                    login:
                      match:
                        - GET
                        - /login
                      limit: 5/1m
                """, "leapgate.rule.login.match is written as a list (GET, /login), but it takes one value");
        cases.put(
                """
                leapgate:
                  rule:
                    - login:
                        match: POST /login
                        limit: 5/1m
                """,
                "leapgate.rule is written as a list, but it is a map from each rule's name to its settings: write"
                        + " the names under rule: without a dash");
        for (Map.Entry<String, String> yml : cases.entrySet()) {
            Throwable failure = catchThrowable(() -> start(yml.getKey()).close());
            assertThat(failure).as(yml.getKey()).isNotNull();
            FailureAnalysis analysis = bootsAnalysis(failure);
            assertThat(analysis).as(yml.getKey()).isNotNull();
            assertThat(analysis.getDescription()).as(yml.getKey()).contains(yml.getValue());
        }
    }

    /**
     * A YAML list where the setting is also given one value, in the main file, as a profile
     * overrides it: Boot binds the one value and drops the list's elements without a word (its
     * check for unbound properties skips the elements of a list whose setting is bound), so the
     * profile's deny list, exempt list or trusted proxies were silently not in force.
     */
    @Test
    void aYamlListOverridingASettingOfTheMainFile_failsTheStart_ratherThanBeingDropped() throws Exception {
        Files.writeString(dir.resolve("application.yml"), """
                leapgate:
                  deny: 203.0.113.5
                  rule:
                    login:
                      match: GET /ok
                      limit: 5/1m
                """);
        Files.writeString(dir.resolve("application-prod.yml"), """
                leapgate:
                  deny:
                    - 203.0.113.5
                    - 198.51.100.7
                """);
        Throwable failure = catchThrowable(() -> BootApps.start(
                        Map.of("spring.config.location", "file:" + dir + "/", "spring.profiles.active", "prod"),
                        new ManualClock())
                .close());

        assertThat(failure)
                .as("the start fails, rather than deny 198.51.100.7 being dropped")
                .isNotNull();
        FailureAnalysis analysis = bootsAnalysis(failure);
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription())
                .contains("leapgate.deny is written as a list (203.0.113.5, 198.51.100.7), but it takes one value:"
                        + " write the entries on one line, separated by commas: deny: 203.0.113.5, 198.51.100.7")
                .contains("application-prod.yml");
    }

    /**
     * Boot reads trusted-proxies and trustedProxies (or limit and LIMIT) as one property: written
     * both in one file, one of the two values was taken and the other ignored without a word.
     */
    @Test
    void aSettingWrittenTwiceInOneFile_inTwoSpellingsBootReadsAsOne_failsTheStart() {
        assertThat(failure("""
                        leapgate:
                          trusted-proxies: 10.0.0.0/8
                          trustedProxies: 192.168.0.0/16
                          rule:
                            login:
                              match: POST /login
                              limit: 5/1m
                        """))
                .contains("leapgate.trusted-proxies: written twice in one file, as leapgate.trusted-proxies and"
                        + " leapgate.trustedProxies,"
                        + " which Spring Boot reads as one property, taking one of the values; keep one");
        assertThat(failure(
                        "application.properties",
                        "leapgate.rule.login.match=POST /login\nleapgate.rule.login.max-queue=1s\n"
                                + "leapgate.rule.login.on-excess=pace\nleapgate.rule.login.limit=5/1m\n"
                                + "leapgate.rule.login.maxQueue=2s\n"))
                .contains(
                        "leapgate.rule.login.max-queue: written twice in one file, as leapgate.rule.login.max-queue and"
                                + " leapgate.rule.login.maxQueue");
    }
}
