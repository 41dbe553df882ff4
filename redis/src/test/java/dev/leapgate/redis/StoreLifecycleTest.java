package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What a closed gate leaves behind: no thread of its store, no connection to Redis. */
class StoreLifecycleTest {

    private static RedisProcess redis;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    private static HttpGate gate(String instances) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", redis.uri());
        settings.put("store-timeout", "2s");
        settings.put("store-instances", instances);
        settings.put("rule.api.match", "/api/**");
        settings.put("rule.api.limit", "100/1m");
        return HttpGate.builder(ConfigParser.parse(settings, "test")).build();
    }

    private static Set<Thread> threads() {
        return Thread.getAllStackTraces().keySet();
    }

    private static List<String> started(Set<Thread> before) {
        return threads().stream()
                .filter(t -> !before.contains(t) && t.isAlive())
                .map(Thread::getName)
                .collect(Collectors.toList());
    }

    private static long clients() {
        return redis.call(c -> c.clientList()).lines().count();
    }

    @Test
    void aClosedGate_ofAStoreNeverReached_leavesNoThread() throws Exception {
        Set<Thread> before = threads();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", "redis://127.0.0.1:" + RedisProcess.freePort());
        settings.put("store-instances", "auto");
        settings.put("rule.api.match", "/api/**");
        settings.put("rule.api.limit", "100/1m");
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test")).build();
        for (int i = 0; i < 3; i++) {
            Decision d = gate.enter("GET", "/api/x", Origin.ip("10.0.0.1"));
            if (d instanceof Entry e) {
                e.close();
            }
        }
        gate.close();
        Polling.eventually(
                "the closed gate's threads ending",
                Duration.ofSeconds(10),
                () -> started(before).isEmpty());
        assertThat(started(before)).as("threads left running by a closed gate").isEmpty();
    }

    @Test
    void aClosedGate_leavesNoThreadAndNoConnection() throws Exception {
        for (String instances : List.of("auto", "2")) {
            Set<Thread> before = threads();
            long clientsBefore = clients();
            HttpGate gate = gate(instances);
            Decision d = gate.enter("GET", "/api/x", Origin.ip("10.0.0.1"));
            ((Entry) d).close();
            assertThat(clients()).isGreaterThan(clientsBefore);
            gate.close();
            gate.close(); // twice
            Decision after = gate.enter("GET", "/api/x", Origin.ip("10.0.0.1"));
            if (after instanceof Entry e) {
                e.close();
            }
            Polling.eventually(
                    "the closed gate's threads ending",
                    Duration.ofSeconds(10),
                    () -> started(before).isEmpty());
            assertThat(started(before))
                    .as("threads left running by a closed gate")
                    .isEmpty();
            Polling.eventually(
                    "the store's connections to close", Duration.ofSeconds(10), () -> clients() == clientsBefore);
        }
    }
}
