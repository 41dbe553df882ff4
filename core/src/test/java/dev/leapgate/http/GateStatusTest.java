package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.net.IpAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The status JSON, and which requests get it. */
class GateStatusTest {

    private final ManualClock clock = new ManualClock();

    private HttpGate gate(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        return HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .build();
    }

    private static Origin ip(String address) {
        return Origin.ip(IpAddress.parse(address), 64);
    }

    private static HttpRequestView request(String method, String path, String peer) {
        return new HttpRequestView() {
            public String method() {
                return method;
            }

            public String rawPath() {
                return path;
            }

            public String remoteAddr() {
                return peer;
            }

            public List<String> headers(String name) {
                return List.of();
            }

            public String principal() {
                return null;
            }
        };
    }

    @Test
    void theJson_describesEachRule_andWhatItHoldsNow_andWhomItRejectedMost() {
        HttpGate gate = gate(
                "rule.api.match", "/api/**",
                "rule.api.limit", "3/1m",
                "rule.api.scope", "per-origin",
                "rule.all.match", "/api/**",
                "rule.all.limit", "100/1m",
                "rule.slots.match", "/export",
                "rule.slots.in-flight", "2",
                "rule.trial.match", "/search",
                "rule.trial.limit", "1/1h",
                "rule.trial.mode", "shadow",
                "deny", "10.0.0.66");
        for (int i = 0; i < 5; i++) {
            if (gate.enter("GET", "/api/x", ip("203.0.113.7")) instanceof Entry entry) {
                entry.close();
            }
        }
        ((Entry) gate.enter("GET", "/api/x", ip("203.0.113.8"))).close();
        gate.enter("GET", "/export", ip("203.0.113.7")); // held
        gate.enter("GET", "/x", ip("10.0.0.66"));
        clock.advance(Duration.ofSeconds(1));

        String json = gate.statusJson();

        assertThat(json)
                .startsWith("{\"rules\":[{\"name\":\"api\",\"resource\":\"/api/**\",\"limit\":3,\"window\":\"1m in 10"
                        + " buckets, strict\",\"scope\":\"per-origin\",\"onExcess\":\"reject\",\"mode\":\"enforce\","
                        + "\"maxOrigins\":100000,\"trackedClients\":2,\"evictedClients\":0,\"rejectedMost\":[{\"client\":\"203.0.113.7\","
                        + "\"about\":2}]}")
                .contains("{\"name\":\"all\",\"resource\":\"/api/**\",\"limit\":100,\"window\":\"1m in 10 buckets,"
                        + " strict\",\"scope\":\"all\",\"onExcess\":\"reject\",\"mode\":\"enforce\",\"used\":4}")
                .contains("{\"name\":\"slots\",\"resource\":\"/export\",\"limit\":2,\"inFlightLimit\":true,"
                        + "\"scope\":\"all\",\"onExcess\":\"reject\",\"mode\":\"enforce\",\"inFlight\":1}")
                .contains("\"name\":\"trial\"")
                .contains("\"mode\":\"shadow\"")
                .contains("{\"resource\":\"/api/**\",\"inFlight\":0,\"lastMinute\":{\"admittedPerSecond\":")
                .contains(
                        "\"totals\":{\"admitted\":4,\"rejected\":2,\"shadowRejected\":0,\"succeeded\":4,\"failed\":0}")
                .contains("{\"resource\":\"/export\",\"inFlight\":1,")
                .endsWith("\"exemptRequests\":0,\"deniedRequests\":1}")
                .as("a client the rules never rejected is not named")
                .doesNotContain("203.0.113.8");
    }

    @Test
    void onlyAGetOfTheStatusPath_fromAnAllowedPeer_getsTheStatus() {
        HttpGate gate = gate(
                "rule.api.match", "/**",
                "rule.api.limit", "3/1m",
                "status-path", "/leapgate/status",
                "status-allow", "127.0.0.1, 192.0.2.0/24");

        assertThat(gate.status(request("GET", "/leapgate/status", "127.0.0.1"))).hasValue(gate.statusJson());
        assertThat(gate.status(request("GET", "/leapgate//status?x=1", "192.0.2.9")))
                .as("the same path, spelled otherwise")
                .isPresent();
        assertThat(gate.status(request("GET", "/leapgate/status", "203.0.113.1")))
                .isEmpty();
        assertThat(gate.status(request("GET", "/leapgate/status", "::1")))
                .as("not in this allow-list")
                .isEmpty();
        assertThat(gate.status(request("POST", "/leapgate/status", "127.0.0.1")))
                .isEmpty();
        assertThat(gate.status(request("GET", "/leapgate/status/x", "127.0.0.1")))
                .isEmpty();
        assertThat(gate.status(request("GET", "/leapgate/status", "unix:/run/app.sock")))
                .isEmpty();
    }

    @Test
    void withoutAStatusPath_noRequestGetsTheStatus_andByDefaultOnlyThisMachineDoes() {
        assertThat(gate("rule.api.match", "/**", "rule.api.limit", "3/1m")
                        .status(request("GET", "/leapgate/status", "127.0.0.1")))
                .isEmpty();
        HttpGate gate = gate("rule.api.match", "/**", "rule.api.limit", "3/1m", "status-path", "/status");
        assertThat(gate.status(request("GET", "/status", "127.0.0.1"))).isPresent();
        assertThat(gate.status(request("GET", "/status", "::1"))).isPresent();
        assertThat(gate.status(request("GET", "/status", "10.0.0.1"))).isEmpty();
    }

    @Test
    void theClientsRejectedMost_areThoseOfTheLastMinuteOrTwo() {
        HttpGate gate = gate("rule.api.match", "/**", "rule.api.limit", "1/1h", "rule.api.scope", "per-origin");
        for (int i = 0; i < 4; i++) {
            gate.enter("GET", "/x", ip("203.0.113.1"));
        }
        clock.advance(Duration.ofSeconds(70)); // a new minute
        for (int i = 0; i < 6; i++) {
            gate.enter("GET", "/x", ip("203.0.113.2"));
        }
        gate.enter("GET", "/x", ip("203.0.113.1"));

        assertThat(gate.statusJson())
                .contains("\"rejectedMost\":[{\"client\":\"203.0.113.2\",\"about\":5},{\"client\":\"203.0.113.1\","
                        + "\"about\":4}]");
        clock.advance(Duration.ofSeconds(70)); // the first minute is over two minutes old
        gate.enter("GET", "/x", ip("203.0.113.2"));
        assertThat(gate.statusJson())
                .contains("\"rejectedMost\":[{\"client\":\"203.0.113.2\",\"about\":6},{\"client\":\"203.0.113.1\","
                        + "\"about\":1}]");
    }

    @Test
    void theRulesFile_saysWhenItWasLastApplied_andWhyTheLastChangeWasRejected(@TempDir Path dir) throws Exception {
        Path rules = dir.resolve("rules.properties");
        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = 2/1h\n");
        HttpGate gate = gate("rules-file", rules.toString(), "reload-interval", "0s");
        assertThat(gate.statusJson())
                .contains(",\"appliedReloads\":0,\"rejectedReloads\":0}")
                .doesNotContain("lastApplied")
                .doesNotContain("lastError");

        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = 3/1h\n");
        gate.rulesFile().orElseThrow().reload();
        assertThat(gate.statusJson())
                .containsPattern(",\"appliedReloads\":1,\"rejectedReloads\":0,\"lastApplied\":\"20\\d\\d-[^\"]+Z\"}")
                .doesNotContain("lastError");

        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = lots\n");
        assertThatThrownBy(() -> gate.rulesFile().orElseThrow().reload()).isInstanceOf(ConfigException.class);
        assertThat(gate.statusJson())
                .contains(",\"appliedReloads\":1,\"rejectedReloads\":1,\"lastApplied\":")
                .containsPattern("\"lastError\":\"1 problem in [^\"]*rules.properties:\\\\n[^\"]*lots")
                .contains("\"limit\":3");
    }
}
