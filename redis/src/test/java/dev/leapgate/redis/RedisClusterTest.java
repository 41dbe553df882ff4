package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
            // On IPv6's loopback too, for the seeds written as IPv6 literals.
            NODES.add(RedisProcess.start(
                    "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--bind", "127.0.0.1", "::1"));
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
        assertThat(loginsAdmitted(settings, clients)).isEqualTo(3 * clients.size());
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

    /** Five logins of each client, on a gate of {@code settings}: how many were admitted, all decided by the store. */
    private static int loginsAdmitted(Map<String, String> settings, List<Origin> clients) {
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
        return admitted;
    }

    /**
     * Seeds written as IPv6 literals ({@code redis-cluster://[::1]:7000,[::1]:7001}) reach the
     * cluster, which decides: the start failed with "is not a URI: Illegal character in port
     * number", which spoke of a password's reserved characters.
     */
    @Test
    void ipv6LiteralSeeds_reachTheCluster_andTheLimitsHold() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(
                "store",
                "redis-cluster://[::1]:" + NODES.get(0).port() + ",[::1]:"
                        + NODES.get(1).port());
        settings.put("store-key-prefix", "ipv6seeds");
        settings.put("store-timeout", "2s");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "3/1m");
        settings.put("rule.login.scope", "per-origin");
        List<Origin> clients = IntStream.range(0, 6)
                .mapToObj(i -> Origin.ip(IpAddress.parse("203.0.113." + i), 64))
                .toList();
        assertThat(loginsAdmitted(settings, clients)).isEqualTo(3 * clients.size());
        long keys = NODES.stream()
                .mapToLong(node -> node.call(c -> c.keys("ipv6seeds:*")).stream()
                        .filter(k -> !k.endsWith("instances"))
                        .count())
                .sum();
        assertThat(keys).as("the clients' windows in the cluster").isEqualTo(clients.size());
    }

    /**
     * A {@code redis://} URI naming one node of the cluster: the node decides the clients whose keys
     * it serves, and the others' decisions fail with MOVED, a configuration error logged once at
     * ERROR naming the setting and {@code redis-cluster://}, not an outage: the circuit breaker stays
     * closed, so the node's own keys are still decided by it.
     */
    @Test
    void aRedisUriNamingOneNode_isAConfigurationError_andTheNodesOwnKeysAreStillDecided() {
        String store = "redis://127.0.0.1:" + NODES.get(0).port();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", store);
        settings.put("store-timeout", "2s");
        settings.put("store-on-failure", "open");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "3/1m");
        settings.put("rule.login.scope", "per-origin");
        List<Origin> clients = IntStream.range(0, 30)
                .mapToObj(i -> Origin.ip(IpAddress.parse("198.51.100." + (100 + i)), 64))
                .toList();

        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        int limited = 0;
        long withoutStore;
        try (HttpGate gate =
                HttpGate.builder(ConfigParser.parse(settings, "test")).build()) {
            for (Origin client : clients) {
                for (int i = 0; i < 5; i++) {
                    if (gate.enter("POST", "/login", client) instanceof Entry entry) {
                        entry.close();
                    } else {
                        limited++;
                    }
                }
            }
            withoutStore = gate.store("login").orElseThrow().decidedWithoutStore();
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        err.print(log);

        long served =
                clients.stream().filter(RedisClusterTest::servedByFirstNode).count();
        assertThat(served).as("clients whose keys the named node serves").isBetween(1L, 29L);
        assertThat(limited).as("those the node decided: 2 of 5 each rejected").isEqualTo(2 * (int) served);
        assertThat(withoutStore).as("the others, by store-on-failure open").isEqualTo(5 * (clients.size() - served));
        assertThat(log.lines().filter(line -> line.contains("ERROR") && line.contains(" dev.leapgate.")))
                .singleElement()
                .asString()
                .contains("store = " + store + ":")
                .contains("redis-cluster://host:port")
                .contains("configuration error");
        assertThat(log).as("no outage").doesNotContain("circuit breaker opened");
    }

    /** Whether the client's key of rule login's window is in a slot of the first node. */
    private static boolean servedByFirstNode(Origin client) {
        long slot = NODES.get(0).call(c -> c.clusterKeyslot("{o:" + client.id() + "}"));
        return slot < 16384 / 3;
    }
}
