package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.leapgate.Origin;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading {@code .properties} text: syntax, order, line numbers, rules files. */
class PropertiesSyntaxTest {

    private static RuleSet rules(String... lines) {
        return ConfigParser.parseRules(String.join("\n", lines), "rules.properties");
    }

    @Test
    void commentsBlankLinesAndEverySeparator_areRead() {
        RuleSet rules = rules(
                "# hash comment",
                "! bang comment",
                "",
                "   ",
                "rule.a.match=/a",
                "rule.a.limit: 10/s",
                "rule.b.match /b",
                "  rule.b.limit  =  20/m  ",
                "rule.c.match:/c",
                "rule.c.in-flight\t3");

        assertThat(rules.rules()).extracting(FlowRule::name).containsExactly("a", "b", "c");
        assertThat(rules.rules().get(0).limit()).isEqualTo(10);
        assertThat(rules.rules().get(1).limit()).isEqualTo(20);
        assertThat(rules.rules().get(1).window().length()).isEqualTo(Duration.ofMinutes(1));
        assertThat(rules.rules().get(2).limit()).isEqualTo(3);
    }

    @Test
    void methodAndPath_inAMatch_stayOneValue() {
        // The first blank ends the key, later ones belong to the value.
        assertThat(rules("rule.a.match = POST /login", "rule.a.limit = 5/1m")
                        .rules()
                        .get(0)
                        .resource())
                .isEqualTo("POST /login");
    }

    @Test
    void continuationLines_joinWithoutTheirLeadingBlanks() {
        RuleSet rules = ConfigParser.parseRules(
                String.join(
                        "\n",
                        "rules = none",
                        "exempt = 10.0.0.0/8, \\",
                        "         192.168.0.0/16, \\",
                        "         health-check",
                        "deny=bad-bot"),
                "rules.properties",
                OriginSource.header("X-Api-Key"));

        assertThat(rules.exempt().toString()).isEqualTo("10.0.0.0/8, 192.168.0.0/16, health-check");
        assertThat(rules.deny().contains(Origin.id("bad-bot"))).isTrue();
    }

    @Test
    void aCommentEndingInABackslash_doesNotSwallowTheNextLine() {
        RuleSet rules = rules("# limits for login \\", "rule.a.match=/a", "rule.a.limit=1/s");

        assertThat(rules.rules()).extracting(FlowRule::name).containsExactly("a");
    }

    @Test
    void lineNumbers_countContinuationLines_andAnEscapedBackslashDoesNotContinue() {
        List<String> problems = ConfigProblems.ofRules(
                "exempt = 10.0.0.0/8, \\", // 1
                "   192.168.0.0/16", // 2
                "deny = 10.0.0.1\\\\", // 3: ends in an escaped backslash, so no continuation
                "rule.a.match=/a", // 4
                "rule.a.limit=5/1x"); // 5

        assertThat(problems)
                .containsExactly(
                        "line 3: deny: '10.0.0.1\\' is not an IP address or block, and with origin = ip every client"
                                + " is an address, so it can never match; names are not resolved: write an address,"
                                + " e.g. 127.0.0.1 or ::1 (identifiers apply with origin = header:<Name> or principal)",
                        "line 5: rule.a.limit: '5/1x' is not a limit (window '1x': unknown unit 'x'); expected"
                                + " N/window, e.g. 100/10s, 5/1m, 1000/1h, 10/s (window units ms, s, m, h)");
    }

    @Test
    void unicodeEscapes_areDecoded_andAMalformedOne_isAProblemOfItsLine() {
        assertThat(rules("rule.a.match=/caf\\u00e9", "rule.a.limit=1/s")
                        .rules()
                        .get(0)
                        .resource())
                .isEqualTo("/caf%C3%A9");
        assertThat(ConfigProblems.ofRules("rule.a.match=/a", "rule.a.limit=1/s", "deny=x\\u12"))
                .containsExactly("line 3: malformed escape '\\u12'; expected \\u and four hex digits, e.g. \\u00e9");
    }

    @Test
    void windowsAndOldMacLineEndings_countAsLines() {
        assertThat(ConfigProblems.of(() -> ConfigParser.parseRules("rule.a.match=/a\r\n\r\nrule.a.limit=0/s\r", "r")))
                .singleElement(STRING)
                .startsWith("line 3: rule.a.limit: limit must be between 1 and");
    }

    @Test
    void aKeySetTwice_isRejected_namingTheFirstLine() {
        assertThat(ConfigProblems.ofRules("rule.a.match=/a", "rule.a.limit=5/s", "", "rule.a.limit=50/s"))
                .containsExactly("line 4: rule.a.limit: is set twice; first on line 2");
    }

    @Test
    void aCommentAfterAValue_isRefusedAsOne_notReadAsPartOfTheValue() {
        // Properties reads a comment only as a line of its own: the text after a value belongs to it.
        assertThat(ConfigProblems.ofRules("rule.a.match=/a", "rule.a.limit = 5/1m   # five a minute"))
                .containsExactly("line 2: rule.a.limit: '5/1m   # five a minute' ends in what looks like a comment,"
                        + " but a properties file has comments only on lines of their own (starting with # or !):"
                        + " the text after a value is part of it; put the comment on the line above (a value that"
                        + " really holds ' #' writes it ' \\#')");
        assertThat(ConfigProblems.ofRules("rule.a.match=/a", "rule.a.limit=5/1m", "deny = 203.0.113.7 ! abuse"))
                .singleElement()
                .asString()
                .startsWith("line 3: deny: '203.0.113.7 ! abuse' ends in what looks like a comment");
    }

    /**
     * A comment written where the value goes is the value to Properties: with a header origin,
     * "exempt = # monitoring" would exempt any client sending "#" or "monitoring", and "deny = #
     * none for now" deny those sending "none", "for" or "now". Refused, as in a map's values; a
     * value that starts with a '#' and goes on ("#ops") is the value's own.
     */
    @Test
    void aCommentWhereTheValueGoes_isRefused_notReadAsTheValue() {
        String[][] lines = {
            {"exempt = # monitoring", "exempt"},
            {"deny = # none for now", "deny"},
            {"deny = !", "deny"},
            {"exempt=#", "exempt"}
        };
        for (String[] line : lines) {
            assertThat(ConfigProblems.of(() -> ConfigParser.parseRules(
                            "rule.a.match=/a\nrule.a.limit=5/1m\n" + line[0],
                            "rules.properties",
                            OriginSource.header("X-Api-Key"))))
                    .as(line[0])
                    .singleElement()
                    .asString()
                    .startsWith("line 3: " + line[1] + ": '")
                    .contains("' is what looks like a comment");
        }
        assertThat(ConfigParser.parseRules(
                                "rule.a.match=/a\nrule.a.limit=5/1m\nexempt = #ops",
                                "rules.properties",
                                OriginSource.header("X-Api-Key"))
                        .exempt()
                        .contains(Origin.id("#ops")))
                .isTrue();
    }

    @Test
    void aCommentStartingWithAnExclamationMark_isRefused_withTheEscapeOfThatCharacter() {
        // The hint names the character found: a value that really holds ' !' escapes the '!'.
        assertThat(ConfigProblems.ofRules("rule.a.match=/a", "rule.a.limit=5/1m", "deny = 203.0.113.7 ! abuse"))
                .containsExactly("line 3: deny: '203.0.113.7 ! abuse' ends in what looks like a comment, but a"
                        + " properties file has comments only on lines of their own (starting with # or !): the"
                        + " text after a value is part of it; put the comment on the line above (a value that"
                        + " really holds ' !' writes it ' \\!')");
        // And so escaped, it is the value's own.
        assertThat(ConfigParser.parseProperties(
                                String.join(
                                        "\n",
                                        "origin=header:X-Api-Key",
                                        "rule.a.match=/a",
                                        "rule.a.limit=5/1m",
                                        "exempt=key-one \\!key-two"),
                                "leapgate.properties")
                        .rules()
                        .exempt()
                        .contains(dev.leapgate.Origin.id("!key-two")))
                .isTrue();
    }

    @Test
    void aCommentAfterAnIdentifier_isNoIdentifier_soItCannotExemptAClientThatSendsIt() {
        // With a header origin, "# health checks" would otherwise exempt any client sending the key
        // "#", "health" or "checks".
        assertThat(ConfigProblems.of(() -> ConfigParser.parseProperties(
                        String.join(
                                "\n",
                                "origin=header:X-Api-Key",
                                "rule.a.match=/a",
                                "rule.a.limit=5/1m",
                                "exempt=monitoring-key # health checks"),
                        "leapgate.properties")))
                .singleElement()
                .asString()
                .startsWith("line 4: exempt: '" + dev.leapgate.Origin.secret("monitoring-key")
                        + " # health checks' ends in what looks like a comment");
        // Escaped, a '#' after a blank is the value's own.
        assertThat(ConfigParser.parseProperties(
                                String.join(
                                        "\n",
                                        "origin=header:X-Api-Key",
                                        "rule.a.match=/a",
                                        "rule.a.limit=5/1m",
                                        "exempt=key-one \\#key-two"),
                                "leapgate.properties")
                        .rules()
                        .exempt()
                        .contains(dev.leapgate.Origin.id("#key-two")))
                .isTrue();
        // So is one that starts the value: the escape is read there too.
        assertThat(ConfigParser.parseProperties(
                                String.join(
                                        "\n",
                                        "origin=header:X-Api-Key",
                                        "rule.a.match=/a",
                                        "rule.a.limit=5/1m",
                                        "exempt=\\#ops"),
                                "leapgate.properties")
                        .rules()
                        .exempt()
                        .contains(dev.leapgate.Origin.id("#ops")))
                .isTrue();
    }

    @Test
    void aLineWithoutKey_isRejected() {
        assertThat(ConfigProblems.ofRules("rule.a.match=/a", "=5/s", "rule.a.limit=1/s"))
                .containsExactly("line 2: no key before '='; expected key=value");
    }

    @Test
    void threeMistakes_giveThreeProblems_withTheirLineNumbers_inOneException() {
        ConfigException e = ConfigProblems.catchConfigException(() -> ConfigParser.parseRules(
                String.join(
                        "\n",
                        "# login: 5 per minute per IP",
                        "rule.login.match=POST /login",
                        "rule.login.limit=5/1min",
                        "rule.login.scope=per-origin",
                        "",
                        "rule.api.match=/api/**",
                        "rule.api.limit=100/10s",
                        "rule.api.bucket=5",
                        "",
                        "exempt=10.0.0.0/33"),
                "rules.properties"));

        assertThat(e.problems())
                .containsExactly(
                        "line 3: rule.login.limit: '5/1min' is not a limit (window '1min': unknown unit 'min'; write"
                                + " m for minutes); expected N/window, e.g. 100/10s, 5/1m, 1000/1h, 10/s (window units"
                                + " ms, s, m, h)",
                        "line 8: rule.api.bucket: unknown rule setting 'bucket'; did you mean rule.api.buckets?",
                        "line 10: exempt: invalid CIDR '10.0.0.0/33': prefix length must be between 0 and 32 for"
                                + " IPv4");
        assertThat(e.getMessage()).startsWith("3 problems in rules.properties:\n  - line 3: rule.login.limit:");
    }

    @Test
    void rulesFile_holdsOnlyRulesExemptAndDeny() {
        assertThat(ConfigProblems.ofRules("rule.a.match=/a", "rule.a.limit=1/s", "status=503", "exmept=10.0.0.1"))
                .containsExactly(
                        "line 3: status: belongs in the main configuration, not in a rules file, which holds only"
                                + " rule.<name>.<setting>, exempt, allow-wide-exempt, deny and rules = none",
                        "line 4: exmept: unknown key; did you mean exempt?");
    }

    @Test
    void rulesFileWithoutRules_isRefused_unlessItSaysRulesNone() {
        String refusal = "the file holds no rule: an empty or half-written file must not lift every limit. If it is"
                + " meant to hold none, say so with rules = none. (Write rules files atomically: to a new file,"
                + " then rename it over the old one.)";
        assertThat(ConfigProblems.ofRules("")).containsExactly(refusal);
        assertThat(ConfigProblems.ofRules("# nothing yet")).containsExactly(refusal);
        assertThat(ConfigProblems.ofRules("exempt = 10.0.0.0/8")).containsExactly(refusal);

        assertThat(rules("# nothing yet", "rules = none")).isEqualTo(RuleSet.empty());
        assertThat(rules("rules = none", "deny = 192.0.2.0/24").deny().toString())
                .isEqualTo("192.0.2.0/24");
        assertThat(ConfigProblems.ofRules("rules = none", "rule.a.match=/a", "rule.a.limit=1/s"))
                .containsExactly("line 1: rules: says the file holds no rule, but it holds rule.* settings; remove"
                        + " one or the other");
        assertThat(ConfigProblems.ofRules("rules = all", "rule.a.match=/a", "rule.a.limit=1/s"))
                .containsExactly("line 1: rules: 'all' is not allowed; rules = none says that the file holds no rule"
                        + " on purpose, and rules go in rule.<name>.<setting>");
    }

    @Test
    void aByteOrderMarkAtTheStart_isSkipped_oneElsewhereIsShownEscaped() {
        assertThat(rules("\uFEFFrule.a.match=/a", "rule.a.limit=1/s").rules())
                .extracting(FlowRule::name)
                .containsExactly("a");
        assertThat(ConfigProblems.ofRules("rule.a.match=/a", "rule.a.limit=\uFEFF1/s", "rule.b\u0000.match=/b"))
                .containsExactly(
                        "line 2: rule.a.limit: '\\uFEFF1/s' is not a limit (N must be a positive whole number);"
                                + " expected N/window, e.g. 100/10s, 5/1m, 1000/1h, 10/s (window units ms, s, m, h)",
                        "line 3: rule.b\\u0000.match: rule name 'b\\u0000' must be 1 to 64 letters, digits, '-' or"
                                + " '_'");
    }

    @Test
    void mainConfiguration_asAPropertiesText_namesLines() {
        LeapgateConfig config = ConfigParser.parseProperties(
                "trusted-proxies = 10.0.0.0/8\nstatus = 503\nrule.a.match = /a\nrule.a.limit = 1/s\n",
                "leapgate.properties");
        assertThat(config.response().status()).isEqualTo(503);
        assertThat(config.rules().rules()).hasSize(1);

        assertThat(ConfigProblems.of(() -> ConfigParser.parseProperties("\n\nstatus = 200\n", "leapgate.properties")))
                .containsExactly("line 3: status: must be between 400 and 599, was 200");
    }

    @Test
    void readRulesFile_readsUtf8(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("rules.properties");
        Files.writeString(
                file, "rule.café.match=/x\nrule.b.match=/caf\u00e9\nrule.b.in-flight=2\n", StandardCharsets.UTF_8);

        List<String> problems = ConfigProblems.of(() -> ConfigParser.readRulesFile(file));
        assertThat(problems)
                .containsExactly(
                        "line 1: rule.café.match: rule name 'café' must be 1 to 64 letters, digits, '-' or '_'");

        Files.writeString(file, "rule.b.match=/caf\u00e9\nrule.b.in-flight=2\n", StandardCharsets.UTF_8);
        assertThat(ConfigParser.readRulesFile(file).rules().get(0).resource()).isEqualTo("/caf%C3%A9");
    }

    @Test
    void readRulesFile_problems_nameTheFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("rules.properties");
        Files.writeString(file, "rule.a.match=/a\n");

        ConfigException e = ConfigProblems.catchConfigException(() -> ConfigParser.readRulesFile(file));
        assertThat(e.source()).isEqualTo(file.toString());
        assertThat(e.getMessage()).startsWith("1 problem in " + file + ":\n  - line 1: rule.a: needs a limit");
    }

    @Test
    void readRulesFile_missingOrNotUtf8_isAConfigExceptionNamingTheFile(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("missing.properties");
        assertThat(ConfigProblems.of(() -> ConfigParser.readRulesFile(missing)))
                .containsExactly("cannot read rules file " + missing + ": no such file");

        Path latin1 = dir.resolve("latin1.properties");
        Files.write(latin1, "# cafe\r\ndeny=caf\u00e9".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(ConfigProblems.of(() -> ConfigParser.readRulesFile(latin1)))
                .as("the first byte that is not UTF-8, where the operator looks for it")
                .containsExactly("cannot read rules file " + latin1 + ": not valid UTF-8 (line 2, byte 0xE9); save it"
                        + " as UTF-8, or write the character as \\uXXXX");
    }

    @Test
    void aTextEndingInAContinuedLine_isReportedAsCutShort_aLoneContinuationOntoABlankLineIsBlank() {
        assertThat(ConfigProblems.ofRules("rule.a.match = /x", "rule.a.limit = 1/s", "\\"))
                .containsExactly("line 3: the text ends in a line continued with '\\', as if it had been cut"
                        + " short; remove the last '\\' (or write it as '\\\\')");
        assertThat(ConfigProblems.ofRules("rule.a.match = /x", "rule.a.limit = 1/\\"))
                .contains("line 2: the text ends in a line continued with '\\', as if it had been cut"
                        + " short; remove the last '\\' (or write it as '\\\\')");
        assertThat(ConfigParser.parseRules("\\\n\r\nrule.a.match = /x\nrule.a.limit = 1/s", "rules.properties")
                        .rules())
                .as("a line continued onto a blank one is a blank line")
                .hasSize(1);
    }
}
