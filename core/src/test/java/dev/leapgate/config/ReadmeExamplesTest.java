package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The examples of the design brief and CONFIGURATION.md, each read both as a properties file and
 * as init-params, which must give the same rules.
 */
class ReadmeExamplesTest {

    /**
     * Reads {@code lines} as a properties file and as a map (split at '=', unstripped, as a sloppy
     * web.xml would give them), checks both agree, returns the rules.
     */
    private static List<FlowRule> bothWays(String... lines) {
        List<FlowRule> fromFile = ConfigParser.parseProperties(String.join("\n", lines), "leapgate.properties")
                .rules()
                .rules();
        Map<String, String> initParams = new LinkedHashMap<>();
        for (String line : lines) {
            int eq = line.indexOf('=');
            initParams.put(line.substring(0, eq), line.substring(eq + 1));
        }
        List<FlowRule> fromMap =
                ConfigParser.parse(initParams, "web.xml").rules().rules();
        assertThat(fromMap).isEqualTo(fromFile);
        return fromFile;
    }

    @Test
    void fiveLoginsPerMinutePerIp() {
        List<FlowRule> rules =
                bothWays("rule.login.match = POST /login", "rule.login.limit = 5/1m", "rule.login.scope = per-origin");

        assertThat(rules).singleElement().satisfies(login -> {
            assertThat(login.name()).isEqualTo("login");
            assertThat(login.resource()).isEqualTo("POST /login");
            assertThat(login.limit()).isEqualTo(5);
            assertThat(login.window().length()).isEqualTo(Duration.ofMinutes(1));
            assertThat(login.window().mode()).isEqualTo(WindowMode.STRICT);
            assertThat(login.scope()).isEqualTo(Scope.perOrigin());
            assertThat(login.onExcess()).isEqualTo(OnExcess.reject());
            assertThat(login.maxOrigins()).isEqualTo(FlowRule.DEFAULT_MAX_ORIGINS);
        });
    }

    @Test
    void hundredPerTenSecondsPerIp_and2000PerSecondOverall() {
        List<FlowRule> rules = bothWays(
                "rule.api-per-ip.match = /api/**",
                "rule.api-per-ip.limit = 100/10s",
                "rule.api-per-ip.scope = per-origin",
                "rule.api-total.match = /api/**",
                "rule.api-total.limit = 2000/s");

        assertThat(rules).extracting(FlowRule::name).containsExactly("api-per-ip", "api-total");
        FlowRule perIp = rules.get(0);
        assertThat(perIp.limit()).isEqualTo(100);
        assertThat(perIp.window().length()).isEqualTo(Duration.ofSeconds(10));
        assertThat(perIp.scope()).isEqualTo(Scope.perOrigin());
        FlowRule total = rules.get(1);
        assertThat(total.limit()).isEqualTo(2000);
        assertThat(total.window().length()).isEqualTo(Duration.ofSeconds(1));
        assertThat(total.scope()).isEqualTo(Scope.all());
        assertThat(total.match()).isEqualTo(perIp.match());
    }

    @Test
    void twentyExportsInFlight() {
        List<FlowRule> rules = bothWays("rule.exports.match = POST /reports/*/export", "rule.exports.in-flight = 20");

        assertThat(rules).singleElement().satisfies(exports -> {
            assertThat(exports.isInFlight()).isTrue();
            assertThat(exports.limit()).isEqualTo(20);
            assertThat(exports.match().matches("POST", "/reports/42/export")).isTrue();
            assertThat(exports.match().matches("GET", "/reports/42/export")).isFalse();
            assertThat(exports.scope()).isEqualTo(Scope.all());
        });
    }
}
