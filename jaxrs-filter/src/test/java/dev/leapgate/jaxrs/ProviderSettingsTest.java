package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.leapgate.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider reads its settings from the application's properties, and never ignores one that
 * looks like a Leapgate setting: a near miss of the prefix, or a setting without it, is an error
 * naming the key meant, and every suggestion keeps the prefix.
 */
class ProviderSettingsTest {

    private static ConfigException problems(ResourceConfig app) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ProviderSettings.read(app, null));
        assertThat(e).as("the settings were accepted").isNotNull();
        return e;
    }

    @Test
    void applicationPropertiesTheConfigurationLacks_areNamed() {
        ResourceConfig configuration = new ResourceConfig().property("leapgate.rule.a.match", "/a");
        java.util.Map<String, Object> application = java.util.Map.of(
                "leapgate.rule.a.match", "/a",
                "leapgate.rule.a.limit", "1/1h",
                "leapgate.trusted-proxies", "10.0.0.0/8",
                "other.setting", "x");

        assertThat(ProviderSettings.unseen(application, configuration))
                .containsExactly("leapgate.rule.a.limit", "leapgate.trusted-proxies");
        assertThat(ProviderSettings.unseen(java.util.Map.of("leapgate.rule.a.match", "/a"), configuration))
                .isEmpty();
    }

    @Test
    void keysThatLookLikeLeapgates_butLackTheExactPrefix_areErrors() {
        ResourceConfig app = new ResourceConfig()
                .property("jersey.config.server.wadl.disableWadl", "true") // Jersey's own: left alone
                .property("status", "503") // a plain word: not claimed
                .property("leapgate.rule.ok.match", "/ok")
                .property("leapgate.rule.ok.limit", "1/s")
                .property("rule.c.match", "/c")
                .property("rule.c.limit", "5/1m")
                .property("leapgat.rule.d.match", "/d")
                .property("Leapgate.trusted-proxies", "10.0.0.0/8")
                .property("leapgate-status", "503")
                .property("trusted-proxies", "10.0.0.0/8");

        assertThat(problems(app).problems())
                .containsExactly(
                        "Leapgate.trusted-proxies: looks like a Leapgate setting, but its prefix is not leapgate."
                                + " exactly, so it would be ignored; write leapgate.trusted-proxies",
                        "leapgat.rule.d.match: looks like a Leapgate setting, but its prefix is not leapgate."
                                + " exactly, so it would be ignored; write leapgate.rule.d.match",
                        "leapgate-status: looks like a Leapgate setting, but its prefix is not leapgate. exactly,"
                                + " so it would be ignored; write leapgate.status",
                        "rule.c.limit: is a Leapgate setting without its prefix, so it would be ignored; write"
                                + " leapgate.rule.c.limit",
                        "rule.c.match: is a Leapgate setting without its prefix, so it would be ignored; write"
                                + " leapgate.rule.c.match",
                        "trusted-proxies: is a Leapgate setting without its prefix, so it would be ignored; write"
                                + " leapgate.trusted-proxies");
    }

    @Test
    void suggestionsKeepThePrefix() {
        ResourceConfig app = new ResourceConfig()
                .property("leapgate.rules.c.limit", "5/1m")
                .property("leapgate.rule.c.match", "/c")
                .property("leapgate.rule.c.limit", "5/1m");

        assertThat(problems(app).problems())
                .containsExactly("leapgate.rules.c.limit: unknown key; did you mean leapgate.rule.c.limit?");
    }

    @Test
    void maxRequestTime_outOfRange_namesTheRangeAsTheDurationSyntaxWritesIt() {
        ResourceConfig app = new ResourceConfig()
                .property("leapgate.rule.a.match", "/a")
                .property("leapgate.rule.a.limit", "1/s")
                .property("leapgate.max-request-time", "25h");

        // The longest is written 24h: the duration syntax has no day unit, so "1d" would be refused.
        assertThat(problems(app).problems())
                .containsExactly("leapgate.max-request-time: '25h' is out of range; from 1s to 24h (default 10m):"
                        + " the longest a request may take before its slot is released without its end being"
                        + " seen");
        assertThat(ProviderSettings.read(
                                new ResourceConfig()
                                        .property("leapgate.rule.a.match", "/a")
                                        .property("leapgate.rule.a.limit", "1/s")
                                        .property("leapgate.max-request-time", "24h"),
                                null)
                        .maxRequestTime())
                .hasHours(24);
    }

    @Test
    void badProviderKeys_andABadConfiguration_areReportedTogether() {
        ResourceConfig app = new ResourceConfig()
                .property("leapgate.rule.a.match", "/a")
                .property("leapgate.rule.a.limit", "5/1min")
                .property("leapgate.client-ip-header", "X Real IP")
                .property("leapgate.max-request-time", "0s");

        assertThat(problems(app).problems())
                .containsExactly(
                        "leapgate.rule.a.limit: '5/1min' is not a limit (window '1min': unknown unit 'min'; write m"
                                + " for minutes); expected N/window, e.g. 100/10s, 5/1m, 1000/1h, 10/s (window units"
                                + " ms, s, m, h)",
                        "leapgate.client-ip-header: 'X Real IP' is not a header name (an RFC 9110 token, e.g."
                                + " X-Real-IP)",
                        "leapgate.max-request-time: '0s' is out of range; from 1s to 24h (default 10m): the longest"
                                + " a request may take before its slot is released without its end being seen");
    }

    /**
     * A forwarding list is not a header that a proxy overwrites: its value is no one address, and a
     * client reaching the application directly writes it. It started fine, every client then one
     * origin 'unknown' behind a proxy, or choosing its own without one.
     */
    @Test
    void aForwardingListAsTheClientIpHeader_isRefused() {
        for (String header : List.of("X-Forwarded-For", "x-forwarded-for", "Forwarded")) {
            ResourceConfig app = new ResourceConfig()
                    .property("leapgate.rule.a.match", "/a")
                    .property("leapgate.rule.a.limit", "5/1m")
                    .property("leapgate.client-ip-header", header);

            assertThat(problems(app).problems())
                    .as(header)
                    .singleElement(as(InstanceOfAssertFactories.STRING))
                    .startsWith("leapgate.client-ip-header: '" + header + "' is a list that each proxy appends to")
                    .contains("X-Real-IP");
        }
    }

    @Test
    void aBadProviderKey_isReportedWithAConflict() {
        ResourceConfig app = new ResourceConfig()
                .property("leapgate.config-file", "/nonexistent/leapgate.properties")
                .property("leapgate.rule.a.match", "/a")
                .property("leapgate.max-request-time", "10");

        assertThat(problems(app).problems())
                .containsExactly(
                        "leapgate.rule.a.match: the configuration is given in leapgate.config-file"
                                + " /nonexistent/leapgate.properties; write every setting there, not as leapgate.*"
                                + " properties",
                        "leapgate.max-request-time: '10' is not a duration (no unit); expected a whole number and a"
                                + " unit ms, s, m or h, e.g. 250ms, 10s, 1m, 24h");
    }

    /** An empty value or one no path can be, named as such (an empty one was read as the working directory). */
    @Test
    void aConfigFileValueThatNamesNoFile_isAnErrorSayingSo() {
        assertThat(problems(new ResourceConfig().property("leapgate.config-file", " "))
                        .problems())
                .containsExactly("leapgate.config-file: names no file (the value is empty); give the path of a"
                        + " .properties file, or remove the property");
        assertThat(problems(new ResourceConfig().property("leapgate.config-file", "leap\u0000gate.properties"))
                        .problems())
                .singleElement()
                .asString()
                .startsWith("leapgate.config-file: names no file (")
                .doesNotContain("\u0000");
    }

    @Test
    void aRulesFileNamedInTheConfigFile_isReadFromTheConfigFilesDirectory(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("rules.properties"), "rule.a.match = /a\nrule.a.limit = 3/1m\n");
        Files.writeString(dir.resolve("leapgate.properties"), "rules-file = rules.properties\n");

        ProviderSettings settings = ProviderSettings.read(
                new ResourceConfig()
                        .property(
                                "leapgate.config-file",
                                dir.resolve("leapgate.properties").toString()),
                null);

        assertThat(settings.config().rulesFile()).hasValue(dir.resolve("rules.properties"));
    }
}
