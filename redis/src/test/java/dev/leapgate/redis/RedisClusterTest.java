package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Redis Cluster of three masters (made with CLUSTER ADDSLOTS and CLUSTER MEET, no redis-cli
 * needed) behind a {@code redis-cluster://} store: decisions are routed to the slot of each key, one
 * client's windows share a slot, and the limits hold as on one server.
 */
class RedisClusterTest {

    private static final List<RedisProcess> NODES = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception {
        for (int i = 0; i < 3; i++) {
            NODES.add(RedisProcess.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"));
        }
        for (int i = 0; i < 3; i++) {
            int from = i * 16384 / 3;
            int to = (i + 1) * 16384 / 3;
            int[] slots = IntStream.range(from, to).toArray();
            NODES.get(i).call(c -> c.clusterAddSlots(slots));
        }
        for (int i = 1; i < 3; i++) {
            int port = NODES.get(i).port();
            NODES.get(0).call(c -> c.clusterMeet("127.0.0.1", port));
        }
        for (RedisProcess node : NODES) {
            Polling.eventually(
                    "the cluster formed",
                    Duration.ofSeconds(30),
                    () -> node.call(c -> c.clusterInfo()).contains("cluster_state:ok"));
        }
    }

    @AfterAll
    static void stopCluster() throws Exception {
        for (RedisProcess node : NODES) {
            node.close();
        }
    }

    /**
     * A replica that is down does not keep the store from the masters, which serve every slot:
     * the store used to connect to every node the cluster lists, and gave up (for good, and
     * leaking the connection each time it tried again) when one of them could not be reached.
     */
    @Test
    void aReplicaThatIsDown_doesNotKeepTheStoreFromTheMasters() throws Exception {
        String masterId = NODES.get(0).call(c -> c.clusterMyId());
        RedisProcess replica = RedisProcess.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf");
        try {
            NODES.get(0).call(c -> c.clusterMeet("127.0.0.1", replica.port()));
            Polling.eventually(
                    "the replica met the cluster",
                    Duration.ofSeconds(30),
                    () -> replica.call(c -> c.clusterNodes()).contains(masterId));
            replica.call(c -> c.clusterReplicate(masterId));
            Polling.eventually(
                    "the cluster lists the replica",
                    Duration.ofSeconds(30),
                    () -> NODES.get(0)
                            .call(c -> c.clusterNodes())
                            .lines()
                            .anyMatch(line -> line.contains(":" + replica.port()) && line.contains("slave")));
        } finally {
            replica.close(); // stopped: from now on the cluster lists a replica nobody can reach
        }
        // The replica is gone; the masters still serve every slot.
        assertThat(NODES.get(0).<String>call(c -> c.clusterInfo())).contains("cluster_state:ok");

        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", "redis-cluster://127.0.0.1:" + NODES.get(0).port());
        settings.put("store-timeout", "2s");
        settings.put("store-on-failure", "closed");
        settings.put("rule.api.match", "/**");
        settings.put("rule.api.limit", "4/1m");
        settings.put("rule.api.scope", "per-origin");
        Origin client = Origin.ip(IpAddress.parse("198.51.100.200"), 64);
        int admitted = 0;
        try (HttpGate gate =
                HttpGate.builder(ConfigParser.parse(settings, "test")).build()) {
            for (int i = 0; i < 6; i++) {
                if (gate.enter("GET", "/x", client) instanceof Entry entry) {
                    admitted++;
                    entry.close();
                }
            }
            assertThat(gate.store("api").orElseThrow().decidedWithoutStore()).isZero();
        }
        assertThat(admitted).isEqualTo(4);
    }

    @Test
    void decisionsAreRoutedBySlot_oneClientsWindowsShareASlot_andTheLimitsHold() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(
                "store",
                "redis-cluster://127.0.0.1:" + NODES.get(0).port() + ",127.0.0.1:"
                        + NODES.get(1).port());
        settings.put("store-timeout", "2s");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "3/1m");
        settings.put("rule.login.scope", "per-origin");
        settings.put("rule.api.match", "/**");
        settings.put("rule.api.limit", "20/1m");
        settings.put("rule.api.scope", "per-origin");
        List<Origin> clients = IntStream.range(0, 12)
                .mapToObj(i -> Origin.ip(IpAddress.parse("198.51.100." + i), 64))
                .toList();
        int admitted = 0;
        try (HttpGate gate =
                HttpGate.builder(ConfigParser.parse(settings, "test")).build()) {
            for (Origin client : clients) {
                for (int i = 0; i < 5; i++) {
                    if (gate.enter("POST", "/login", client) instanceof Entry entry) {
                        admitted++;
                        entry.close();
                    }
                }
            }
            assertThat(gate.store("login").orElseThrow().decidedWithoutStore()).isZero();
        }
        assertThat(admitted).isEqualTo(3 * clients.size());
        List<String> keys = new ArrayList<>();
        for (RedisProcess node : NODES) {
            keys.addAll(node.call(c -> c.keys("leapgate:*")).stream()
                    .filter(k -> !k.endsWith("instances"))
                    .toList());
        }
        assertThat(keys).hasSize(2 * clients.size());
        List<Long> sizes =
                NODES.stream().map(node -> node.<Long>call(c -> c.dbsize())).toList();
        assertThat(sizes)
                .as("keys on each master")
                .allSatisfy(size -> assertThat(size).isPositive());
        for (Origin client : clients) {
            List<Long> slots = keys.stream()
                    .filter(k -> k.contains("{o:" + client.id() + "}"))
                    .map(k -> NODES.get(0).call(c -> c.clusterKeyslot(k)))
                    .distinct()
                    .toList();
            assertThat(slots).as(client.id()).hasSize(1);
        }
    }
}
