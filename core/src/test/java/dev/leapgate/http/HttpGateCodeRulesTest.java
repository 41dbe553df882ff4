package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.ManualClock;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rules an adapter defines in code (annotations), enforced beside the configured ones. */
class HttpGateCodeRulesTest {

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock();
    private int version;

    private static final FlowRule CODE_RULE = FlowRule.builder("code")
            .match("GET /users/{id}")
            .limit(1, WindowSpec.of(Duration.ofMinutes(1)))
            .build();

    private Path write(String text) throws IOException {
        Path file = dir.resolve("rules.properties");
        Files.writeString(file, text);
        Files.setLastModifiedTime(
                file, FileTime.from(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(++version)));
        return file;
    }

    private static HttpGateTest.Request get(String path) {
        return HttpGateTest.Request.of("GET", path, "203.0.113.1");
    }

    @Test
    void codeRules_areEnforcedAfterTheConfiguredRules() {
        LeapgateConfig config =
                ConfigParser.parse(Map.of("rule.conf.match", "/admin/**", "rule.conf.limit", "1/1m"), "test");
        HttpGate gate = HttpGate.builder(config)
                .clock(clock)
                .addRules(List.of(CODE_RULE))
                .build();

        assertThat(gate.rules().rules()).extracting(FlowRule::name).containsExactly("conf", "code");
        assertThat(gate.enter(get("/users/1")).admitted()).isTrue();
        assertThat(gate.enter(get("/users/2")).admitted()).isFalse();
        assertThat(gate.enter(get("/admin/x")).admitted()).isTrue();
    }

    @Test
    void codeRules_surviveAReloadOfTheRulesFile() throws IOException {
        Path file = write("rule.file.match=/a\nrule.file.limit=1/1m\n");
        LeapgateConfig config = ConfigParser.parse(Map.of("rules-file", file.toString()), "test");
        HttpGate gate = HttpGate.builder(config)
                .clock(clock)
                .addRules(List.of(CODE_RULE))
                .build();

        write("rule.other.match=/b\nrule.other.limit=5/1m\n");
        assertThat(gate.rulesFile().orElseThrow().reload()).isTrue();

        assertThat(gate.rules().rules()).extracting(FlowRule::name).containsExactly("other", "code");
    }

    @Test
    void reloadedFile_whoseRuleNameClashesWithACodeRule_isRejected_andThePreviousRulesStay() throws IOException {
        Path file = write("rule.file.match=/a\nrule.file.limit=1/1m\n");
        LeapgateConfig config = ConfigParser.parse(Map.of("rules-file", file.toString()), "test");
        HttpGate gate = HttpGate.builder(config)
                .clock(clock)
                .addRules(List.of(CODE_RULE))
                .build();

        write("rule.code.match=/b\nrule.code.limit=5/1m\n");

        assertThatThrownBy(() -> gate.rulesFile().orElseThrow().reload())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rule name 'code' is used twice: by a rule of the configuration and by a rule"
                        + " defined in code (an @RateLimited annotation's, or one given to HttpGate.Builder.addRules),"
                        + " which is enforced beside it; rename the configuration's rule");
        assertThat(gate.rules().rules()).extracting(FlowRule::name).containsExactly("file", "code");
    }

    @Test
    void codeRule_namedLikeAConfiguredRule_failsTheBuild() {
        LeapgateConfig config = ConfigParser.parse(Map.of("rule.code.match", "/a", "rule.code.limit", "1/1m"), "test");

        assertThatThrownBy(() ->
                        HttpGate.builder(config).addRules(List.of(CODE_RULE)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rule name 'code' is used twice");
    }

    private static final FlowRule CODE_RULE_FOR_ONE_KEY = FlowRule.builder("partner")
            .match("GET /users/{id}")
            .limit(1, WindowSpec.of(Duration.ofMinutes(1)))
            .scope(Scope.origin("sk_live_4f8a9b"))
            .build();

    private static final FlowRule CODE_RULE_FOR_ONE_ADDRESS = FlowRule.builder("office")
            .match("GET /users/{id}")
            .limit(1, WindowSpec.of(Duration.ofMinutes(1)))
            .scope(Scope.origin("10.20.0.5"))
            .build();

    /**
     * A rule in code for one origin that the configuration exempts could never apply: the client it
     * was written to limit would not be limited at all. The start fails, naming the rule, not the
     * origin (an API key, with origins from a header).
     */
    @Test
    void codeRule_forAnExemptOrigin_failsTheBuild_namingTheRuleButNotTheKey() {
        LeapgateConfig byKey = ConfigParser.parse(
                Map.of(
                        "origin",
                        "header:X-Api-Key",
                        "exempt",
                        "sk_live_4f8a9b",
                        "rule.conf.match",
                        "/a",
                        "rule.conf.limit",
                        "1/1m"),
                "test");
        assertThatThrownBy(() -> HttpGate.builder(byKey)
                        .addRules(List.of(CODE_RULE_FOR_ONE_KEY))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rule 'partner' is for an origin that exempt lists")
                .message()
                .doesNotContain("sk_live");

        LeapgateConfig byAddress = ConfigParser.parse(
                Map.of("exempt", "10.0.0.0/8", "rule.conf.match", "/a", "rule.conf.limit", "1/1m"), "test");
        assertThatThrownBy(() -> HttpGate.builder(byAddress)
                        .addRules(List.of(CODE_RULE_FOR_ONE_ADDRESS))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rule 'office' is for an origin that exempt lists");
    }

    /** A rules file that exempts a code rule's origin later is rejected, and the rules in force stay. */
    @Test
    void reloadedFile_exemptingACodeRulesOrigin_isRejected_andThePreviousRulesStay() throws IOException {
        Path file = write("rule.file.match=/a\nrule.file.limit=1/1m\n");
        LeapgateConfig config = ConfigParser.parse(Map.of("rules-file", file.toString()), "test");
        HttpGate gate = HttpGate.builder(config)
                .clock(clock)
                .addRules(List.of(CODE_RULE_FOR_ONE_ADDRESS))
                .build();

        write("rule.file.match=/a\nrule.file.limit=1/1m\nexempt=10.0.0.0/8\n");

        assertThatThrownBy(() -> gate.rulesFile().orElseThrow().reload())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rule 'office' is for an origin that exempt lists");
        assertThat(gate.rules().exempt().isEmpty()).isTrue();
        assertThat(gate.rules().rules()).extracting(FlowRule::name).containsExactly("file", "office");
    }

    @Test
    void parseDuration_readsTheConfigurationSyntax_andNamesWhatIsExpected() {
        assertThat(ConfigParser.parseDuration("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(ConfigParser.parseDuration(" 1m ")).isEqualTo(Duration.ofMinutes(1));
        assertThatThrownBy(() -> ConfigParser.parseDuration("1min"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("write m for minutes");
    }
}
