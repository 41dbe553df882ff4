package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.net.IpAddress;
import dev.leapgate.testing.FakeWindowStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Review: a store that blipped twice (both switches logged) and then goes down for good. The third
 * switch falls under the cap of two messages a minute; the outage then lasts ten minutes, and the
 * log must say so at some point while it lasts: the last WARN line must not be "decides again".
 */
class StoreSwitchLogTest {

    private final ManualClock clock = new ManualClock();
    private final FakeWindowStore store = new FakeWindowStore(clock);

    @Test
    void anOutageThatBeginsAfterTwoSwitchesInAMinute_isLoggedWhileItLasts() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", "fake://store.example");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "5/10s");
        settings.put("rule.login.scope", "per-origin");
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .windowStore(store)
                .build();
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            int client = 0;
            // a blip: down, then back (both switches logged)
            store.down = true;
            enter(gate, ++client);
            clock.advance(Duration.ofSeconds(1));
            store.down = false;
            enter(gate, ++client);
            // 10 s later the store goes down, and stays down for ten minutes of steady traffic
            clock.advance(Duration.ofSeconds(10));
            store.down = true;
            for (int i = 0; i < 600; i++) {
                enter(gate, ++client % 200 + 1);
                clock.advance(Duration.ofSeconds(1));
            }
        } finally {
            System.setErr(err);
        }
        assertThat(gate.store("login").orElseThrow().available()).isFalse();
        assertThat(gate.store("login").orElseThrow().outages()).isEqualTo(2);
        List<String> warnings = captured.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(line -> line.contains("Leapgate rule 'login': the shared store"))
                .toList();
        assertThat(warnings.get(warnings.size() - 1))
                .as("the last WARN after ten minutes of outage, of %s", warnings)
                .contains("the shared store did not decide");
    }

    private static void enter(HttpGate gate, int client) {
        Decision d = gate.enter("POST", "/login", Origin.ip(IpAddress.parse("203.0.113." + client), 64));
        if (d instanceof Entry entry) {
            entry.close();
        }
    }
}
