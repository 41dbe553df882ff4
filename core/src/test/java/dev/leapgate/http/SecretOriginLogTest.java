package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.OriginSource;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With {@code origin = header:<Name>} shown by fingerprint, the line logged when rules are
 * replaced names the API keys that exempt and deny list by their fingerprints, as the status does.
 */
class SecretOriginLogTest {

    private static String updateLogged(Map<String, String> settings, String rules, OriginSource origin) {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test")).build();
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            gate.update(ConfigParser.parseRules(rules, "rules.properties", origin));
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(line -> line.contains("Leapgate rules updated"))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void rulesUpdated_namesExemptAndDeniedKeysByTheirFingerprints() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("origin", "header:X-Api-Key");
        settings.put("rules", "none");
        String rules = "rule.a.match=/a\nrule.a.limit=5/1m\nexempt=10.0.0.0/8, sk_live_4f8a9b\ndeny=sk_live_leaked";

        assertThat(updateLogged(settings, rules, OriginSource.header("X-Api-Key")))
                .doesNotContain("sk_live")
                .contains("exempt [10.0.0.0/8, sha256:5a373c7149fd], deny [" + Origin.secret("sk_live_leaked") + "]");

        settings.put("header-origin-shown", "as-sent");
        assertThat(updateLogged(
                        settings, rules, OriginSource.header("X-Api-Key").valuesShownAsSent()))
                .contains("exempt [10.0.0.0/8, sk_live_4f8a9b], deny [sk_live_leaked]");
    }
}
