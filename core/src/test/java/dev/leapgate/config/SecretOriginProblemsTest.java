package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.Origin;
import dev.leapgate.http.HttpGate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code origin = header:<Name>} shown by fingerprint (the default), an identifier that
 * {@code exempt}, {@code deny} or a rule's {@code scope = origin:<value>} names is an API key: a
 * problem quoting it, which goes to the log, to the status's {@code lastError} and to a start's
 * exception, names it by its fingerprint, as the status does, and still names its line and key.
 */
class SecretOriginProblemsTest {

    private static final String KEY = "sk_live_4f8a9b";
    /** {@code printf %s sk_live_4f8a9b | sha256sum | cut -c1-12}. */
    private static final String FINGERPRINT = "sha256:5a373c7149fd";

    private static final OriginSource API_KEY = OriginSource.header("X-Api-Key");

    @TempDir
    Path dir;

    private static String rulesProblems(OriginSource origin, String... lines) {
        return ConfigProblems.catchConfigException(
                        () -> ConfigParser.parseRules(String.join("\n", lines), "rules.properties", origin))
                .getMessage();
    }

    private static String rulesProblems(String... lines) {
        return rulesProblems(API_KEY, lines);
    }

    /**
     * A configuration's text (a record's, which an application may log or a debugger show) names
     * the keys of exempt, deny and a rule's scope by their fingerprints too; as sent only when
     * configured so.
     */
    @Test
    void aConfigurationPrinted_namesEveryKeyByItsFingerprint() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("origin", "header:X-Api-Key");
        settings.put("exempt", KEY + ", 10.0.0.0/8");
        settings.put("deny", "sk_test_other");
        settings.put("rule.a.match", "/a");
        settings.put("rule.a.limit", "5/1m");
        settings.put("rule.a.scope", "origin:sk_live_partner");
        settings.put("rule.b.match", "/b");
        settings.put("rule.b.limit", "5/1m");
        settings.put("rule.b.scope", "origin:203.0.113.7");

        String text = ConfigParser.parse(settings, "test").toString();

        assertThat(text)
                .doesNotContain("4f8a9b", "sk_test_other", "sk_live_partner")
                .contains("exempt=10.0.0.0/8, " + FINGERPRINT)
                .contains("deny=" + Origin.secret("sk_test_other"))
                .contains("rule 'a': /a, 5 per 1m in 10 buckets, strict, origin:" + Origin.secret("sk_live_partner")
                        + ", reject")
                .contains("origin:203.0.113.7, reject") // an address is no secret
                .contains("origin=header:X-Api-Key");

        settings.put("header-origin-shown", "as-sent");
        assertThat(ConfigParser.parse(settings, "test").toString())
                .contains("exempt=10.0.0.0/8, " + KEY)
                .contains("origin:sk_live_partner, reject");
    }

    @Test
    void aRuleForAnExemptKey_namesTheKeyByItsFingerprint() {
        String message = rulesProblems(
                "rule.a.match=/a", "rule.a.limit=5/1m", "rule.a.scope = origin:" + KEY, "exempt = " + KEY);

        assertThat(message)
                .doesNotContain("4f8a9b")
                .contains("line 3: rule.a.scope: 'origin:" + FINGERPRINT + "' names an origin that exempt lists ("
                        + FINGERPRINT + "), and an exempt origin passes every rule, so this rule can never apply and "
                        + FINGERPRINT + " is not limited at all");
    }

    @Test
    void aCommentAfterAKey_showsTheKeyByItsFingerprint_andTheCommentAsWritten() {
        assertThat(rulesProblems("rule.a.match=/a", "rule.a.limit=5/1m", "rule.a.scope = origin:" + KEY + " # partner"))
                .doesNotContain("4f8a9b")
                .contains("line 3: rule.a.scope: 'origin:" + FINGERPRINT + " # partner' ends in what looks like a"
                        + " comment");
        assertThat(rulesProblems("rule.a.match=/a", "rule.a.limit=5/1m", "exempt = 10.0.0.1, " + KEY + " ! partner"))
                .doesNotContain("4f8a9b")
                .contains("line 3: exempt: '10.0.0.1, " + FINGERPRINT + " ! partner' ends in what looks like a"
                        + " comment");
    }

    @Test
    void everyProblemQuotingAKey_showsItsFingerprint() {
        String rule = "rule.a.match=/a\nrule.a.limit=5/1m\n";
        assertThat(rulesProblems(rule + "rule.a.scope = origin:" + KEY + "\nrule.a.max-origins = 5"))
                .doesNotContain("4f8a9b")
                .contains("line 4: rule.a.max-origins: applies only to scope per-origin; this rule's scope is origin:"
                        + FINGERPRINT);
        assertThat(rulesProblems(rule + "rule.a.scope = origin:" + KEY + "\u200B"))
                .doesNotContain("4f8a9b")
                .contains("line 3: rule.a.scope: 'origin:sha256:")
                .contains("holds an invisible character, \\u200B");
        assertThat(rulesProblems(rule + "deny = " + KEY + "\u200B"))
                .doesNotContain("4f8a9b")
                .contains("line 3: deny: 'sha256:")
                .contains("holds an invisible character, \\u200B");
        // A base64 key holds '/', which reads as an IP block.
        assertThat(rulesProblems(rule + "rule.a.scope = origin:" + KEY + "/x+y"))
                .doesNotContain("4f8a9b")
                .contains("line 3: rule.a.scope: 'origin:sha256:")
                .contains("' is a range");
        assertThat(rulesProblems(rule + "exempt = " + KEY + "/x+y, 10.0.0.1"))
                .doesNotContain("4f8a9b")
                .contains("line 3: exempt: 'sha256:")
                .contains(", 10.0.0.1'");
        // An address mistyped is no secret, and is still shown; the list around it is.
        assertThat(rulesProblems(rule + "exempt = " + KEY + ", 10.0.0.300"))
                .doesNotContain("4f8a9b")
                .contains("line 3: exempt: invalid CIDR '10.0.0.300'")
                .contains("(in '" + FINGERPRINT + ", 10.0.0.300')");
        assertThat(rulesProblems(rule + "rule.a.scope = origni:" + KEY))
                .doesNotContain("4f8a9b")
                .contains("line 3: rule.a.scope: 'sha256:")
                .contains("' is not allowed; expected all, per-origin or origin:<value>");
    }

    @Test
    void aRejectedReload_namesTheKeyByItsFingerprint_inTheLastErrorAndTheStatus() throws IOException {
        Path file = dir.resolve("rules.properties");
        Files.writeString(file, "rule.a.match=/a\nrule.a.limit=5/1m\n");
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("origin", "header:X-Api-Key");
        settings.put("rules-file", file.toString());
        settings.put("status-path", "/leapgate/status");
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test")).build();
        Files.writeString(file, "rule.a.match=/a\nrule.a.limit=5/1m\nrule.a.scope=origin:" + KEY + "\nexempt=" + KEY);

        assertThatThrownBy(() -> gate.rulesFile().orElseThrow().reload())
                .hasMessageNotContaining("4f8a9b")
                .hasMessageContaining(FINGERPRINT);
        assertThat(gate.rulesFile().orElseThrow().lastError().orElseThrow())
                .doesNotContain("4f8a9b")
                .contains("line 3: rule.a.scope: 'origin:" + FINGERPRINT + "'");
        assertThat(gate.statusJson()).doesNotContain("4f8a9b").contains(FINGERPRINT);
    }

    /** Inline, the origin is read from the same settings, after or before the values naming keys. */
    @Test
    void initParams_nameTheKeyByItsFingerprint_whereverTheOriginIsWritten() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("exempt", KEY + " # partner");
        settings.put("rule.a.match", "/a");
        settings.put("rule.a.limit", "5/1m");
        settings.put("rule.a.scope", "origin:" + KEY);
        settings.put("origin", "header:X-Api-Key");
        String message = ConfigProblems.catchConfigException(
                        () -> ConfigParser.parse(settings, "init-params", "leapgate."))
                .getMessage();
        assertThat(message)
                .doesNotContain("4f8a9b")
                .contains("leapgate.exempt: '" + FINGERPRINT + " # partner' holds what looks like a comment")
                .contains("leapgate.rule.a.scope: 'origin:" + FINGERPRINT + "' names an origin that");

        settings.put("header-origin-shown", "fingerprints");
        assertThat(ConfigProblems.catchConfigException(() -> ConfigParser.parse(settings, "init-params", "leapgate."))
                        .getMessage())
                .as("with header-origin-shown mistyped, the default")
                .doesNotContain("4f8a9b")
                .contains("leapgate.header-origin-shown: 'fingerprints' is not allowed");

        String properties = String.join(
                "\n",
                "exempt = " + KEY + " # partner",
                "rule.a.match=/a",
                "rule.a.limit=5/1m",
                "origin=header:X-Api-Key");
        assertThat(ConfigProblems.catchConfigException(
                                () -> ConfigParser.parseProperties(properties, "leapgate.properties"))
                        .getMessage())
                .doesNotContain("4f8a9b")
                .contains("line 1: exempt: '" + FINGERPRINT + " # partner' ends in what looks like a comment");
    }

    /** Values shown as sent, or addresses, are quoted as written, and so are values that name no origin. */
    @Test
    void originsShownAsSent_andOtherValues_areQuotedAsWritten() {
        String asSent = "rule.a.scope: 'origin:" + KEY + "' names an origin that exempt lists (" + KEY + ")";
        assertThat(rulesProblems(
                        API_KEY.valuesShownAsSent(),
                        "rule.a.match=/a",
                        "rule.a.limit=5/1m",
                        "rule.a.scope = origin:" + KEY,
                        "exempt = " + KEY))
                .contains(asSent);
        assertThat(rulesProblems(
                        OriginSource.principal(),
                        "rule.a.match=/a",
                        "rule.a.limit=5/1m",
                        "rule.a.scope = origin:" + KEY,
                        "exempt = " + KEY))
                .contains(asSent);
        assertThat(rulesProblems(
                        "rule.a.match=/a",
                        "rule.a.limit=5/1m",
                        "rule.a.scope = origin:203.0.113.7",
                        "exempt = 203.0.113.0/24"))
                .contains("rule.a.scope: 'origin:203.0.113.7' names an origin that exempt lists (203.0.113.0/24)");
        assertThat(rulesProblems("rule.a.match=/a # " + KEY, "rule.a.limit=5/1m/" + KEY))
                .contains("line 1: rule.a.match: '/a # " + KEY + "' ends in what looks like a comment")
                .contains("line 2: rule.a.limit: '5/1m/" + KEY + "' is not a limit");
    }

    @Test
    void theFingerprintIsTheOneTheStatusShows() {
        assertThat(Origin.secret(KEY)).hasToString(FINGERPRINT);
    }
}
