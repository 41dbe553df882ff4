package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.store.FailurePolicy;
import dev.leapgate.store.StoreSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A gate whose store cannot be reached at its start says so once, at the start, before any
 * request: a gate that serves none yet would otherwise say nothing (each rule logs its switch to
 * its failure policy at its first decision).
 */
class StoreStartTest {

    /** The log lines the building of a gate with a store at {@code uri} writes. */
    private static List<String> startLog(String uri) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", uri);
        settings.put("rule.api.match", "/api/**");
        settings.put("rule.api.limit", "100/1m");
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (HttpGate gate =
                HttpGate.builder(ConfigParser.parse(settings, "test")).build()) {
            // As the README says: a rule's store status is its last decision's, and there is none yet.
            assertThat(gate.store("api").orElseThrow().available()).isTrue();
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        err.print(log);
        return log.lines().filter(line -> line.contains("WARN")).toList();
    }

    /**
     * Said once, with the cause: for a Redis Cluster each seed node's, which Lettuce writes on lines
     * of their own (and which masking the password as in one URI cut out of the message).
     */
    @ParameterizedTest
    @ValueSource(strings = {"redis", "redis-cluster"})
    void aRedisNobodyListensFor_isSaidOnceAtTheStart_onOneLine_withEachNodesCause(String scheme) throws Exception {
        List<Integer> ports = scheme.equals("redis")
                ? List.of(RedisProcess.freePort())
                : List.of(RedisProcess.freePort(), RedisProcess.freePort());
        String uri = scheme + "://:secret-pw@"
                + String.join(",", ports.stream().map(p -> "127.0.0.1:" + p).toList());

        assertThat(startLog(uri))
                .singleElement()
                .asString()
                .contains("Leapgate Redis store " + uri.replace(":secret-pw@", ":***@") + ": cannot connect (")
                .satisfies(line -> assertThat(line.split("Connection refused", -1))
                        .as("a cause for each node")
                        .hasSize(ports.size() + 1))
                .satisfies(line -> ports.forEach(port -> assertThat(line.substring(line.indexOf("cannot connect (")))
                        .contains(":" + port)))
                .contains("at the start; until Redis answers, each shared rule is decided by its store-on-failure")
                .doesNotContain("secret-pw");
    }

    /**
     * Lettuce reconnects a connection it lost by itself, its waits between attempts doubling: to 30
     * s by default, so that after a long outage (45 s) the store went on with its failure policy
     * for 19 s after Redis answered again. The store's client waits at most half a second.
     */
    @Test
    void aLostConnection_isTriedAgainAtLeastEveryHalfSecond_howeverLongRedisWasDown() throws Exception {
        for (String uri : List.of(
                "redis://127.0.0.1:" + RedisProcess.freePort(),
                "redis-cluster://127.0.0.1:" + RedisProcess.freePort())) {
            try (RedisWindowStore store = RedisWindowStore.open(
                    new StoreSettings(URI.create(uri), "p", Duration.ofMillis(50), FailurePolicy.OPEN, 1))) {
                assertThat(store.reconnectDelay(1)).as(uri).isLessThan(Duration.ofMillis(10));
                for (long attempt = 1; attempt <= 1_000; attempt++) {
                    assertThat(store.reconnectDelay(attempt))
                            .as("%s, attempt %d", uri, attempt)
                            .isPositive()
                            .isLessThanOrEqualTo(Duration.ofMillis(500));
                }
                assertThat(store.reconnectDelay(1_000)).as(uri).isEqualTo(Duration.ofMillis(500));
            }
        }
    }

    @Test
    void aFailuresText_isShownOnOneLine_withEveryUrisUserInformationMasked() {
        assertThat(RedisWindowStore.oneLine("Cannot retrieve cluster partitions from [redis://user:p@ss@127.0.0.1:1,"
                        + " rediss://*****@[::1]:2]\n\nDetails:\n\t[redis://:pw@127.0.0.1:1]: Connection refused\n"))
                .isEqualTo("Cannot retrieve cluster partitions from [redis://***@127.0.0.1:1, rediss://***@[::1]:2]"
                        + " Details: [redis://***@127.0.0.1:1]: Connection refused");
        assertThat(RedisWindowStore.oneLine("Unable to connect to 127.0.0.1/<unresolved>:6379"))
                .isEqualTo("Unable to connect to 127.0.0.1/<unresolved>:6379");
    }

    @Test
    void aRedisThatNeverAnswers_isSaidOnceAtTheStart() throws Exception {
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // and never a byte back
                    }
                } catch (Exception closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();

            assertThat(startLog("redis://127.0.0.1:" + silent.getLocalPort()))
                    .singleElement()
                    .asString()
                    .contains("Leapgate Redis store redis://127.0.0.1:" + silent.getLocalPort()
                            + ": no answer within 2 s at the start; until Redis answers");
        } finally {
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }
}
