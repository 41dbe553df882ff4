package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Origin;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A map source (web.xml init-params, Spring Boot's properties and YAML, JAX-RS properties) has no
 * comment syntax: text written after a value as a comment is part of the value. In a list of
 * identifiers its words would become identifiers that exempt or deny whoever sends them.
 */
class MapSourceCommentsTest {

    private static Map<String, String> map(String... keyValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    private static List<String> problems(String... keyValues) {
        return ConfigProblems.of(() -> ConfigParser.parse(map(keyValues), "application.properties", "leapgate."));
    }

    private static final String[] HEADER_ORIGIN = {
        "origin", "header:X-Api-Key", "rule.a.match", "/a", "rule.a.limit", "5/1m"
    };

    private static String[] withHeaderOrigin(String... keyValues) {
        String[] all = new String[HEADER_ORIGIN.length + keyValues.length];
        System.arraycopy(HEADER_ORIGIN, 0, all, 0, HEADER_ORIGIN.length);
        System.arraycopy(keyValues, 0, all, HEADER_ORIGIN.length, keyValues.length);
        return all;
    }

    @Test
    void aCommentAfterAnExemptIdentifier_isRefused_ratherThanExemptingAClientThatSendsOneOfItsWords() {
        assertThat(problems(withHeaderOrigin("exempt", "monitoring-key # health checks")))
                .containsExactly("leapgate.exempt: '" + Origin.secret("monitoring-key")
                        + " # health checks' holds what looks like a"
                        + " comment, but here a comment after a value is read into it, and its words would be"
                        + " identifiers that exempt a client sending one; put the comment on a line of its own (an"
                        + " identifier that starts with '#' follows a comma without a blank, e.g. a,#b)");
        // Only the comment is refused: no second problem for its words.
        assertThat(ConfigProblems.of(() -> ConfigParser.parse(
                        map("rule.a.match", "/a", "rule.a.limit", "5/1m", "deny", "203.0.113.7 # abuse"), "web.xml")))
                .containsExactly("deny: '203.0.113.7 # abuse' holds what looks like a comment, but here a comment"
                        + " after a value is read into it, and its words would be identifiers that deny a client"
                        + " sending one; put the comment on a line of its own (an identifier that starts with '#'"
                        + " follows a comma without a blank, e.g. a,#b)");
    }

    @Test
    void aCommentAfterADenyIdentifier_orABangComment_orACommentAlone_isRefused() {
        assertThat(problems(withHeaderOrigin("deny", "mallory ! abuse, 2026-11")))
                .singleElement()
                .asString()
                .startsWith("leapgate.deny: '" + Origin.secret("mallory")
                        + " ! abuse, 2026-11' holds what looks like a comment");
        assertThat(problems(withHeaderOrigin("exempt", "# none yet")))
                .singleElement()
                .asString()
                .startsWith("leapgate.exempt: '# none yet' holds what looks like a comment");
        assertThat(problems(withHeaderOrigin("exempt", "k1,# k2")))
                .singleElement()
                .asString()
                .startsWith("leapgate.exempt: '" + Origin.secret("k1") + ",# k2' holds what looks like a comment");
    }

    @Test
    void aCommentAfterARulesOriginIdentifier_isRefused_ratherThanNamingAnOriginNoRequestHas() {
        assertThat(problems(withHeaderOrigin(
                        "rule.batch.match",
                        "/b",
                        "rule.batch.limit",
                        "9/1m",
                        "rule.batch.scope",
                        "origin:batch-job # nightly")))
                .singleElement()
                .asString()
                .startsWith("leapgate.rule.batch.scope: 'origin:" + Origin.secret("batch-job")
                        + " # nightly' holds what looks like a comment");
    }

    @Test
    void aHashThatIsNoComment_isTheIdentifiersOwn_asARulesFileEscapeGivesIt() {
        LeapgateConfig config = ConfigParser.parse(
                map(withHeaderOrigin("exempt", "key-one,#key-two", "deny", "a#b")), "application.properties");
        assertThat(config.rules().exempt().contains(Origin.id("#key-two"))).isTrue();
        assertThat(config.rules().deny().contains(Origin.id("a#b"))).isTrue();
        // A rules file's \# arrives as '#' after a blank: it is the value's own, not a comment.
        assertThat(ConfigParser.parseProperties(
                                String.join(
                                        "\n",
                                        "origin=header:X-Api-Key",
                                        "rule.a.match=/a",
                                        "rule.a.limit=5/1m",
                                        "rule.b.match=/b",
                                        "rule.b.limit=5/1m",
                                        "rule.b.scope=origin:x \\#y",
                                        "exempt=key-one \\#key-two",
                                        "deny=k \\!l"),
                                "leapgate.properties")
                        .rules()
                        .exempt()
                        .contains(Origin.id("#key-two")))
                .isTrue();
        assertThat(ConfigParser.parseRules(
                                "rules = none\nexempt = key-one \\#key-two",
                                "rules.properties",
                                OriginSource.header("X-Api-Key"))
                        .exempt()
                        .contains(Origin.id("#key-two")))
                .isTrue();
    }

    @Test
    void aCommentAfterAnAddressOrAHost_isRefusedAsAComment_andAfterANumberAsNoNumber() {
        assertThat(problems(withHeaderOrigin(
                        "status-path", "/leapgate/status",
                        "trusted-proxies", "10.0.0.0/8 # office",
                        "status-allow", "127.0.0.1 ! local",
                        "status-hosts", "status.example.com # monitor",
                        "status", "429 # too many")))
                .containsExactly(
                        "leapgate.trusted-proxies: '10.0.0.0/8 # office' holds what looks like a comment, but here"
                                + " a comment after a value is read into it; put the comment on a line of its own",
                        "leapgate.status-allow: '127.0.0.1 ! local' holds what looks like a comment, but here"
                                + " a comment after a value is read into it; put the comment on a line of its own",
                        "leapgate.status-hosts: 'status.example.com # monitor' holds what looks like a comment, but"
                                + " here a comment after a value is read into it; put the comment on a line of its"
                                + " own",
                        "leapgate.status: '429 # too many' is not a whole number; expected 400 to 599");
    }
}
