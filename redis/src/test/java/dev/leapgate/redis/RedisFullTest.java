package dev.leapgate.redis;

import static dev.leapgate.redis.Polling.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.stats.StoreStats;
import dev.leapgate.store.FailurePolicy;
import dev.leapgate.store.SharedWindow;
import dev.leapgate.store.StoreSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Redis that is full: {@code maxmemory} just above what it holds, the default {@code
 * maxmemory-policy noeviction}, and a flood of clients, each a new key, until Redis refuses the
 * script's writes ({@code OOM command not allowed when used memory > 'maxmemory'}: Redis 6.2
 * refuses a script at its first write, so a decision that admits fails, a new key or not, while
 * one that rejects, which writes nothing, is still answered). No decision fails or waits past its
 * budget, new clients get the failure policy, a client over its limit in Redis is still rejected
 * by Redis, the statistics show the outage, and shared deciding resumes by itself when keys
 * expire or maxmemory is raised.
 */
class RedisFullTest {

    private static final Duration BUDGET = Duration.ofMillis(300);
    /** What "no longer than the budget" may take on a loaded 2-core CI machine; only proves that nothing hangs. */
    private static final Duration BOUND = Duration.ofSeconds(2);
    /**
     * Room left above what Redis holds: a few thousand clients' windows. More than Redis 7 keeps
     * after the keys that filled it are gone (100-170 KB; 6.2 gives all of it back), so that the
     * flood's keys expiring leaves room again.
     */
    private static final long ROOM = 512 * 1024;

    private RedisProcess redis;
    private HttpGate gate;
    private int flooded;
    /** What Redis held before the flood, in bytes. */
    private long held;

    @BeforeEach
    void start() throws Exception {
        redis = RedisProcess.start();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (gate != null) {
                gate.close();
            }
        } finally {
            if (redis != null) { // not started: no Redis 7 for the Redis 7 run, which skips
                redis.close();
            }
        }
    }

    /** {@link LoginGate}: 10 per minute per client, shared; two instances, so a local share of 5. */
    private HttpGate gate(String onFailure) {
        return LoginGate.of(redis.uri(), BUDGET, onFailure);
    }

    private static Origin client(String ip) {
        return Origin.ip(IpAddress.parse(ip), 64);
    }

    /** Decides once, within {@link #BOUND}, and closes what it admitted. Never throws. */
    private Decision timed(Origin origin) {
        long start = System.nanoTime();
        Decision d = gate.enter("POST", "/login", origin);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND);
        if (d instanceof Entry entry) {
            entry.close();
        }
        return d;
    }

    private int admitted(Origin origin, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += timed(origin) instanceof Entry ? 1 : 0;
        }
        return admitted;
    }

    private static long usedMemory(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).strip());
            }
        }
        throw new AssertionError("no used_memory in " + info);
    }

    /** Leaves Redis {@link #ROOM} bytes above what it holds (noeviction, the default). */
    private void almostFull() {
        held = usedMemory(redis.call(c -> c.info("memory")));
        redis.call(c -> c.configSet("maxmemory", Long.toString(held + ROOM)));
        assertThat(redis.<Map<String, String>>call(c -> c.configGet("maxmemory-policy")))
                .containsEntry("maxmemory-policy", "noeviction");
    }

    /** A client of the flood never seen before. */
    private Origin newClient() {
        int n = flooded++;
        return client("10." + (n >> 16 & 255) + "." + (n >> 8 & 255) + "." + (n & 255));
    }

    /**
     * New clients, one key each, until Redis refuses a write and the failure policy decides; then
     * {@code more}, which fail the same way (enough to open a circuit breaker that counted them).
     */
    private void floodUntilFull(int more) {
        while (gate.store("login").orElseThrow().decidedWithoutStore() == 0) {
            assertThat(flooded).as("clients before Redis was full").isLessThan(50_000);
            timed(newClient());
        }
        // The flood goes on: Redis stays full. (At the edge, the memory of Redis's connections
        // moves by some kilobytes, and a decision now and then finds room: here, half the room
        // the flood took, not a fresh allowance; its keys' expiry gives it back.)
        redis.call(c -> c.configSet("maxmemory", Long.toString(held + ROOM / 2)));
        for (int i = 0; i < more; i++) {
            timed(newClient());
        }
    }

    @ParameterizedTest(name = "store-on-failure = {0}")
    @ValueSource(strings = {"local-share", "open", "closed"})
    void full_newClientsGetTheFailurePolicy_aClientOverItsLimitIsStillRejectedByRedis_andSharingResumes(String policy)
            throws Exception {
        gate = gate(policy);
        Origin heavy = client("203.0.113.10");
        assertThat(admitted(heavy, 10)).as("its whole limit, counted in Redis").isEqualTo(10);
        almostFull();
        floodUntilFull(40);

        StoreStats during = gate.store("login").orElseThrow();
        assertThat(during.available()).isFalse();
        assertThat(during.decidedWithoutStore()).isGreaterThan(40);
        assertThat(during.outages()).isPositive();

        // A new client: the rule's failure policy.
        Origin fresh = newClient();
        int admitted = 0;
        for (int i = 0; i < 20; i++) {
            Decision d = timed(fresh);
            if (d instanceof Entry) {
                admitted++;
            } else if (policy.equals("closed")) {
                assertThat(((Rejection) d).reason()).isEqualTo("shared store unavailable");
            }
        }
        assertThat(admitted)
                .as("a new client while Redis is full, %s", policy)
                .isEqualTo(
                        switch (policy) {
                            case "local-share" -> 5; // 10 / 2 instances
                            case "open" -> 20;
                            default -> 0;
                        });

        // A client Redis counts at its limit: Redis still decides its rejections (they write
        // nothing), whatever the policy; a breaker opened by the flood would hand it to the
        // failure policy, and a fresh local share (or everything, with open).
        for (int i = 0; i < 10; i++) {
            Decision d = timed(heavy);
            assertThat(d).as("the heavy client, decision %d", i).isInstanceOf(Rejection.class);
            assertThat(((Rejection) d).reason()).isEqualTo("limit exceeded");
        }

        // maxmemory raised: the shared window decides again, by itself.
        redis.call(c -> c.configSet("maxmemory", "0"));
        Origin after = sharedAgain();
        assertThat(SharedLimitTest.counted(redis.call(c -> c.get(key(after)))))
                .as("counted in Redis")
                .isPositive();
    }

    /** A new client, once a decision for it is shared again (admitted, the store available). */
    private Origin sharedAgain() throws InterruptedException {
        Origin after = newClient();
        eventually(
                "a decision shared again",
                Duration.ofSeconds(10),
                () -> timed(after) instanceof Entry
                        && gate.store("login").orElseThrow().available());
        return after;
    }

    /** The Redis key of the client's window of the rule login (1 min in 10 buckets). */
    private static String key(Origin origin) {
        return "leapgate:{o:" + origin.ip() + "}:login:6000x10";
    }

    @Test
    void full_keysExpire_andSharingResumes() throws Exception {
        gate = gate("local-share");
        almostFull();
        floodUntilFull(40);
        assertThat(gate.store("login").orElseThrow().available()).isFalse();
        // The flood's windows expire (as their TTL would, a minute later): Redis has room again.
        redis.call(c -> {
            for (String key : c.keys("leapgate:{o:10.*")) {
                c.pexpire(key, 1);
            }
            return null;
        });
        eventually(
                "the flood's keys gone",
                Duration.ofSeconds(10),
                () -> redis.call(c -> c.keys("leapgate:{o:10.*")).isEmpty());
        Origin after = sharedAgain();
        assertThat(redis.<Long>call(c -> c.exists(key(after)))).isEqualTo(1L);
    }

    /**
     * The switch to the failure policy is logged (WARN) once, saying that Redis is full and naming
     * the store, not as a generic script error; the circuit breaker stays closed (Redis answers at
     * once, and still decides what writes nothing), so it logs nothing.
     */
    @Test
    void full_theSwitchIsLoggedOnce_sayingRedisIsFull_andTheBreakerStaysClosed() throws Exception {
        gate = gate("local-share");
        assertThat(timed(client("203.0.113.20"))).isInstanceOf(Entry.class); // connected, script loaded
        almostFull();
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            floodUntilFull(40);
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        err.print(log);
        List<String> warnings =
                log.lines().filter(line -> line.contains("WARN")).toList();
        assertThat(warnings)
                .singleElement()
                .asString()
                .contains("Leapgate rule 'login': the shared store did not decide (store = " + redis.uri()
                        + ": Redis is full (maxmemory")
                .contains("raise maxmemory")
                .doesNotContain("Error running script");
        assertThat(log).doesNotContain("circuit breaker");
    }

    /**
     * A client Redis counts, under its limit: its admissions need a write, which a full Redis
     * refuses, so the failure policy decides them; this instance's share counts from zero (it
     * does not know what Redis counted), as in any outage: in the window in which Redis filled up,
     * such a client may be admitted what Redis counted plus its shares (README).
     */
    @Test
    void full_aClientUnderItsLimitInRedis_getsTheLocalShare_countedFromZero() throws Exception {
        gate = gate("local-share");
        Origin tracked = client("203.0.113.30");
        assertThat(admitted(tracked, 3)).isEqualTo(3);
        almostFull();
        floodUntilFull(40);
        assertThat(admitted(tracked, 20)).as("this instance's share, 10 / 2").isEqualTo(5);
        assertThat(SharedLimitTest.counted(redis.call(c -> c.get("leapgate:{o:203.0.113.30}:login:6000x10"))))
                .as("what Redis counted before it was full")
                .isEqualTo(3);
    }

    /**
     * With an eviction policy Redis makes room instead: the flood evicts clients' windows (the
     * nearest to expiry first, with volatile-ttl), and a client whose window was evicted starts
     * again from an empty one (README).
     */
    @Test
    void evictionPolicy_theFloodEvictsAWindow_whichStartsAgainEmpty() throws Exception {
        gate = gate("closed");
        Origin heavy = client("203.0.113.50");
        assertThat(admitted(heavy, 10)).isEqualTo(10);
        String key = "leapgate:{o:203.0.113.50}:login:6000x10";
        redis.call(c -> c.configSet("maxmemory-policy", "volatile-ttl"));
        held = usedMemory(redis.call(c -> c.info("memory")));
        redis.call(c -> c.configSet("maxmemory", Long.toString(held + ROOM)));
        while (redis.<Long>call(c -> c.exists(key)) == 1) {
            assertThat(flooded)
                    .as("clients before the heavy client's window was evicted")
                    .isLessThan(50_000);
            for (int i = 0; i < 200; i++) {
                timed(newClient());
            }
        }
        assertThat(gate.store("login").orElseThrow().decidedWithoutStore())
                .as("Redis made room: it decided every request")
                .isZero();
        assertThat(admitted(heavy, 12)).as("a fresh window").isEqualTo(10);
    }

    /**
     * A refund is a write too: a full Redis refuses it, and the permits stay counted (the strict
     * side); nothing fails.
     */
    @Test
    void full_aRefundIsRefused_andThePermitsStayCounted() throws Exception {
        SharedWindow window = SharedWindow.of("login", WindowSpec.of(Duration.ofMinutes(1)), 10);
        String key = "{o:203.0.113.40}:login:6000x10";
        try (RedisWindowStore store = RedisWindowStore.open(new StoreSettings(
                URI.create(redis.uri()), "leapgate", Duration.ofSeconds(2), FailurePolicy.LOCAL_SHARE, 1))) {
            var verdict = store.tryAcquire(window, key, 2).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(verdict.admitted()).isTrue();
            almostFull();
            for (int i = 0; ; i++) { // new clients' windows until Redis is full
                assertThat(i).as("clients before Redis was full").isLessThan(50_000);
                Throwable failure = store.tryAcquire(window, "{o:f" + i + "}:login:6000x10", 1)
                        .toCompletableFuture()
                        .handle((v, f) -> f)
                        .get(5, TimeUnit.SECONDS);
                if (failure != null) {
                    assertThat(failure.toString()).contains("OOM command not allowed");
                    break;
                }
            }
            store.refund(window, key, verdict.bucket(), 2);
            // The refund's reply: once an admission of another key is answered (one connection, in order).
            assertThat(store.tryAcquire(window, "{o:203.0.113.41}:login:6000x10", 1)
                            .toCompletableFuture()
                            .handle((v, failure) -> failure)
                            .get(5, TimeUnit.SECONDS))
                    .hasMessageContaining("Redis is full");
        }
        assertThat(SharedLimitTest.counted(redis.call(c -> c.get("leapgate:" + key))))
                .as("the refund refused: still counted")
                .isEqualTo(2);
    }
}
