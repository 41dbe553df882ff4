package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.testing.FakeWindowStore;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A client whose address is unknown and a client identified by the text "unknown" (a user of that
 * name with origin = principal, a header value with origin = header:<Name>) are two origins: the
 * table in the JVM keeps them apart (keys -1 and the identifier's hash). A shared store must too.
 */
class SharedUnknownOriginTest {

    private final ManualClock clock = new ManualClock();

    private HttpGate gate(boolean shared) {
        Map<String, String> settings = new LinkedHashMap<>();
        if (shared) {
            settings.put("store", "fake://store.example");
        }
        settings.put("origin", "principal");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "1/10s");
        settings.put("rule.login.scope", "per-origin");
        HttpGate.Builder builder =
                HttpGate.builder(ConfigParser.parse(settings, "test")).clock(clock);
        return shared ? builder.windowStore(new FakeWindowStore(clock)).build() : builder.build();
    }

    @Test
    void aUserNamedUnknown_andAClientOfUnknownAddress_areTwoClients_alsoInASharedStore() {
        for (boolean shared : new boolean[] {false, true}) {
            HttpGate gate = gate(shared);
            Decision user = gate.enter("POST", "/login", Origin.id("unknown"));
            assertThat(user).isInstanceOf(Entry.class);
            ((Entry) user).close();
            Decision anonymous = gate.enter("POST", "/login", Origin.unknown());
            assertThat(anonymous)
                    .as("shared store: %s; the client of unknown address has sent nothing yet", shared)
                    .isInstanceOf(Entry.class);
        }
    }
}
