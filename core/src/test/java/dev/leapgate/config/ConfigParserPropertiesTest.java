package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.leapgate.testing.Samples;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Properties of the configuration parser, the code that reads what an operator writes: texts and
 * settings assembled from real keys and values, near misses and broken syntax either give a
 * configuration or one {@link ConfigException} whose every problem is named, never another
 * exception; and what is accepted once is accepted again, to an equal result.
 */
class ConfigParserPropertiesTest {

    private static final List<String> KEYS = List.of(
            "rule.a.match",
            "rule.a.limit",
            "rule.a.in-flight",
            "rule.a.scope",
            "rule.a.window",
            "rule.a.buckets",
            "rule.a.on-excess",
            "rule.a.max-queue",
            "rule.a.cold-factor",
            "rule.a.warm-up",
            "rule.a.max-wait",
            "rule.a.max-origins",
            "rule.B.match",
            "rule.b.match",
            "rule.b.limit",
            "rule..limit",
            "rule.a",
            "rules",
            "exempt",
            "deny",
            "trusted-proxies",
            "forwarded-header",
            "ipv6-prefix",
            "origin",
            "status",
            "deny-status",
            "rate-limit-headers",
            "body",
            "reload-interval",
            "rejection-log",
            "status-path",
            "status-allow",
            "status-hosts",
            "rules-file",
            "allow-wide-exempt",
            "allow-wide-trusted-proxies",
            "rule.a.limit ",
            " rule.a.limit",
            "rul.a.limit",
            "\ufeffrule.a.match");

    private static final List<String> VALUES = List.of(
            "GET /x",
            "POST /login",
            "/api/**",
            "/users/{id}",
            "get /x",
            "/a//b",
            "5/1m",
            "100/10s",
            "10/s",
            "0/1s",
            "5/1min",
            "2147483648/1h",
            "3",
            "0",
            "-1",
            "1.5",
            "per-origin",
            "origin:1.2.3.4",
            "origin:",
            "all",
            "strict",
            "sliding",
            "pace",
            "warm-up",
            "borrow",
            "10s",
            "0s",
            "25h",
            "10.0.0.0/8",
            "0.0.0.0/0",
            "::/0",
            "10.0.0.0 /8",
            "localhost",
            "127.0.0.1, ::1",
            "none",
            "true",
            "yes",
            "ip",
            "header:X-Key",
            "header:",
            "principal",
            "429",
            "200",
            "problem",
            "",
            " ",
            "\u0000",
            "é",
            "\\",
            "\\u00",
            "#");

    private static final List<String> SEPARATORS = List.of(" = ", "=", ": ", " ", "\\\n  ");
    private static final List<String> NOISE = List.of("# comment", "! comment", "", "\\", "=", "   ", "\r");

    private static String propertiesText(Samples s) {
        return String.join(
                "\n",
                s.listOf(
                        12,
                        line -> line.between(0, 3) == 0
                                ? line.oneOf(NOISE)
                                : line.oneOf(KEYS) + line.oneOf(SEPARATORS) + line.oneOf(VALUES)));
    }

    @Test
    void aRulesFile_givesRulesOrOneConfigException_andParsesAgainToEqualRules() {
        Samples.check(ConfigParserPropertiesTest::propertiesText, text -> {
            Throwable thrown = catchThrowable(() -> ConfigParser.parseRules(text, "rules.properties"));
            if (thrown != null) {
                assertNamedProblems(thrown, "rules.properties");
                return;
            }
            assertThat(ConfigParser.parseRules(text, "rules.properties"))
                    .isEqualTo(ConfigParser.parseRules(text, "rules.properties"));
        });
    }

    @Test
    void aPropertiesText_givesAConfigurationOrOneConfigException() {
        Samples.check(ConfigParserPropertiesTest::propertiesText, text -> {
            Throwable thrown = catchThrowable(() -> ConfigParser.parseProperties(text, "leapgate.properties"));
            if (thrown != null) {
                assertNamedProblems(thrown, "leapgate.properties");
            }
        });
    }

    @Test
    void initParams_giveAConfigurationOrOneConfigException_namingKeysWithTheirPrefix() {
        record Params(String prefix, Map<String, String> settings) {}
        Samples.check(
                s -> {
                    String prefix = s.oneOf(List.of("", "leapgate."));
                    Map<String, String> settings = new LinkedHashMap<>();
                    for (int i = s.between(0, 10); i > 0; i--) {
                        settings.put(prefix + s.oneOf(KEYS), s.oneOf(VALUES));
                    }
                    return new Params(prefix, settings);
                },
                p -> {
                    Throwable thrown =
                            catchThrowable(() -> ConfigParser.parse(p.settings(), "init-params", p.prefix()));
                    if (thrown != null) {
                        assertNamedProblems(thrown, "init-params");
                        if (!p.prefix().isEmpty()) {
                            assertThat(((ConfigException) thrown).problems())
                                    .allSatisfy(problem -> assertThat(problem).contains(p.prefix()));
                        }
                    }
                });
    }

    private static void assertNamedProblems(Throwable thrown, String source) {
        assertThat(thrown).isInstanceOf(ConfigException.class).hasMessageContaining(source);
        List<String> problems = ((ConfigException) thrown).problems();
        assertThat(problems).isNotEmpty().allSatisfy(p -> assertThat(p).isNotBlank());
        assertThat(thrown.getMessage()).startsWith(problems.size() + " problem");
    }
}
