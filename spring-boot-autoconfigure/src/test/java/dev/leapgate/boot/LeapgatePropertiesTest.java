package dev.leapgate.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.leapgate.Origin;
import dev.leapgate.config.ConfigException;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.store.FailurePolicy;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;

/** The properties as Boot binds them from its property sources, and the configuration they make. */
class LeapgatePropertiesTest {

    /**
     * Binds as Boot binds {@code @ConfigurationProperties(ignoreUnknownFields = false)}: environment
     * variables first, then application.yml, and every property under leapgate. must bind.
     */
    private static LeapgateProperties bind(
            Map<String, Object> environmentVariables, Map<String, Object> applicationYml) {
        MutablePropertySources sources = new MutablePropertySources();
        sources.addLast(new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, environmentVariables));
        sources.addLast(new MapPropertySource("application.yml", applicationYml));
        return new Binder(ConfigurationPropertySources.from(sources))
                .bindOrCreate(
                        "leapgate",
                        Bindable.of(LeapgateProperties.class),
                        new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
    }

    /**
     * An environment variable can spell a rule name only without its dashes, and Boot binds it to the
     * rule of that name with dashes, but under a second map key too: the rule api-per-ip and a copy
     * named apiperip, which the reader refused as a second rule ("rule 'api-per-ip' is the same rule as
     * 'apiperip'"), so overriding a limit the usual way, in a Kubernetes manifest, failed the start.
     */
    @Test
    void anEnvironmentVariable_setsASettingOfARuleWhoseNameHasDashes_withoutACopyOfTheRule() {
        Map<String, Object> yml = Map.of(
                "leapgate.rule.api-per-ip.match", "/api/**",
                "leapgate.rule.api-per-ip.limit", "100/10s",
                "leapgate.rule.api-per-ip.scope", "per-origin",
                "leapgate.rule.login.match", "POST /login",
                "leapgate.rule.login.limit", "5/1m");

        LeapgateProperties properties = bind(Map.of("LEAPGATE_RULE_APIPERIP_LIMIT", "20/10s"), yml);

        assertThat(properties.toConfig().rules().rules())
                .extracting(FlowRule::name, FlowRule::limit)
                .containsExactlyInAnyOrder(tuple("api-per-ip", 20L), tuple("login", 5L));
        assertThat(bind(Map.of("LEAPGATE_RULE_LOGIN_LIMIT", "3/1m"), yml)
                        .toConfig()
                        .rules()
                        .rules())
                .extracting(FlowRule::name, FlowRule::limit)
                .containsExactlyInAnyOrder(tuple("api-per-ip", 100L), tuple("login", 3L));
    }

    /**
     * A rule's store-on-failure binds from application.yml and from an environment variable (which
     * overrides it), and reaches the rule; a rule without it has none (the store's setting).
     */
    @Test
    void aRulesStoreOnFailure_bindsFromApplicationYml_andAnEnvironmentVariable() {
        Map<String, Object> yml = Map.of(
                "leapgate.store", "redis://127.0.0.1:6379",
                "leapgate.store-on-failure", "open",
                "leapgate.rule.login.match", "POST /login",
                "leapgate.rule.login.limit", "5/1m",
                "leapgate.rule.login.store-on-failure", "closed",
                "leapgate.rule.api.match", "/api/**",
                "leapgate.rule.api.limit", "100/10s");

        assertThat(bind(Map.of(), yml).toConfig().rules().rules())
                .extracting(FlowRule::name, FlowRule::storeOnFailure)
                .containsExactlyInAnyOrder(tuple("login", FailurePolicy.CLOSED), tuple("api", null));
        assertThat(bind(Map.of("LEAPGATE_RULE_LOGIN_STOREONFAILURE", "local-share"), yml)
                        .toConfig()
                        .rules()
                        .rules())
                .extracting(FlowRule::name, FlowRule::storeOnFailure)
                .containsExactlyInAnyOrder(tuple("login", FailurePolicy.LOCAL_SHARE), tuple("api", null));
        Map<String, Object> inFlight = new java.util.LinkedHashMap<>(yml);
        inFlight.remove("leapgate.rule.login.limit");
        inFlight.put("leapgate.rule.login.in-flight", "3");
        assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(
                        ConfigException.class, () -> bind(Map.of(), inFlight).toConfig()))
                .isNotNull()
                .hasMessageContaining("leapgate.rule.login.store-on-failure: 'closed' applies only to a rule in the"
                        + " shared store");
    }

    @Test
    void aRuleGivenOnlyByEnvironmentVariables_isNamedAsTheyWriteIt() {
        LeapgateProperties properties = bind(
                Map.of("LEAPGATE_RULE_APIPERIP_MATCH", "/api/**", "LEAPGATE_RULE_APIPERIP_LIMIT", "20/10s"), Map.of());

        assertThat(properties.toConfig().rules().rules())
                .extracting(FlowRule::name)
                .containsExactly("apiperip");
    }

    @Test
    void twoRulesWhoseNamesDifferOnlyInCase_areStillRefused() {
        LeapgateProperties properties = bind(
                Map.of(),
                Map.of(
                        "leapgate.rule.login.match", "POST /login",
                        "leapgate.rule.login.limit", "5/1m",
                        "leapgate.rule.Login.match", "POST /login",
                        "leapgate.rule.Login.limit", "5/1m"));

        assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(ConfigException.class, properties::toConfig))
                .isNotNull();
    }

    /**
     * Boot's application.properties has comments only on lines of their own: text written after a
     * value is read into it, and its words would be identifiers that exempt any client sending one.
     */
    @Test
    void aCommentAfterAnExemptValue_inApplicationProperties_failsTheStart_ratherThanExemptingItsWords()
            throws Exception {
        String applicationProperties = String.join(
                "\n",
                "leapgate.origin=header:X-Api-Key",
                "leapgate.rule.api.match=/api/**",
                "leapgate.rule.api.limit=100/10s",
                "leapgate.exempt=monitoring-key # health checks");
        MutablePropertySources sources = new MutablePropertySources();
        new PropertiesPropertySourceLoader()
                .load(
                        "application.properties",
                        new ByteArrayResource(applicationProperties.getBytes(StandardCharsets.UTF_8)))
                .forEach(sources::addLast);
        LeapgateProperties properties = new Binder(ConfigurationPropertySources.from(sources))
                .bindOrCreate(
                        "leapgate",
                        Bindable.of(LeapgateProperties.class),
                        new NoUnboundElementsBindHandler(BindHandler.DEFAULT));

        assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(ConfigException.class, properties::toConfig))
                .isNotNull()
                .extracting(ConfigException::problems)
                .asList()
                .singleElement()
                .asString()
                .startsWith("leapgate.exempt: '" + Origin.secret("monitoring-key")
                        + " # health checks' holds what looks like a comment");
    }

    /**
     * Each of Leapgate's settings, written as its leapgate. property (as CONFIGURATION.md lists
     * them), reaches the reader under its own key with its own value, not another setting's.
     */
    @Test
    void everySetting_writtenAsItsProperty_reachesTheReaderUnderItsKey() {
        Map<String, Object> yml = new java.util.LinkedHashMap<>();
        Map<String, String> expected = new java.util.LinkedHashMap<>();
        for (String key : dev.leapgate.config.ConfigParser.settingKeys()) {
            yml.put("leapgate." + key, "value of " + key);
            expected.put(key, "value of " + key);
        }
        for (String key : dev.leapgate.config.ConfigParser.ruleSettingKeys()) {
            yml.put("leapgate.rule.api-per-ip." + key, "value of " + key);
            expected.put("rule.api-per-ip." + key, "value of " + key);
        }

        assertThat(bind(Map.of(), yml).settings()).containsExactlyInAnyOrderEntriesOf(expected);
    }
}
