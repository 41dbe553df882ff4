package dev.leapgate.redis;

import static dev.leapgate.redis.Polling.eventually;
import static dev.leapgate.redis.SharedLimitTest.counted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.stats.StoreStats;
import io.lettuce.core.AclSetuserArgs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Redis answers a decision with something other than the script's reply: an error no retry mends
 * (a key of another application under the key prefix, a read-only replica), a reply of another
 * shape (a "Redis-compatible" server), or {@code NOSCRIPT} under concurrent callers. No decision
 * throws or waits past its budget (nor the budget itself, for an answer that came at once), the
 * failure policy decides, the cause is logged once naming what to fix, the statistics show the
 * store unavailable, and shared deciding resumes by itself when the cause goes away.
 */
class RedisRepliesTest {

    /** Long, so that a decision that waited for it is told from one the failure policy made at once. */
    private static final Duration BUDGET = Duration.ofSeconds(3);
    /** What "at once" may take on a loaded 2-core CI machine. */
    private static final Duration AT_ONCE = Duration.ofMillis(1500);

    private final Origin client = Origin.ip(IpAddress.parse("203.0.113.9"), 64);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private HttpGate gate;
    private PrintStream err;
    private ByteArrayOutputStream captured;

    @AfterEach
    void stop() throws Exception {
        if (err != null) {
            System.setErr(err);
            err.print(captured.toString(StandardCharsets.UTF_8));
        }
        if (gate != null) {
            gate.close();
        }
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T started(Callable<T> start) throws Exception {
        T resource = start.call();
        resources.add(resource);
        return resource;
    }

    private HttpGate gate(String store, String onFailure) {
        return LoginGate.of(store, BUDGET, onFailure);
    }

    private void captureLog() {
        err = System.err;
        captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    private List<String> logged(String level) {
        return captured.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(line -> line.contains(level))
                .toList();
    }

    /** Decides once for {@code origin}, failing the test if it took more than {@link #AT_ONCE}. */
    private Decision atOnce(Origin origin) {
        long start = System.nanoTime();
        Decision d = gate.enter("POST", "/login", origin);
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("a decision that Redis answered at once")
                .isLessThan(AT_ONCE);
        if (d instanceof Entry entry) {
            entry.close();
        }
        return d;
    }

    private StoreStats stats() {
        return gate.store("login").orElseThrow();
    }

    /**
     * Another application wrote a hash under the store's key prefix, at a client's key: the script
     * fails with WRONGTYPE. That client's decisions go to the failure policy, and the cause is
     * logged once at ERROR, naming the key and the key prefix to change; deleting the key mends it.
     */
    @Test
    void aKeyOfAnotherType_underTheKeyPrefix_isReportedOnceNamingTheKeyAndThePrefix_andMendsWhenDeleted()
            throws Exception {
        RedisProcess redis = started(RedisProcess::start);
        String key = "leapgate:{o:203.0.113.9}:login:6000x10";
        redis.call(c -> c.hset(key, "owner", "another application"));
        captureLog();
        gate = gate(redis.uri(), "closed");
        for (int i = 0; i < 15; i++) {
            Decision d = atOnce(client);
            assertThat(d).isInstanceOf(Rejection.class);
            assertThat(((Rejection) d).reason()).isEqualTo("shared store unavailable");
        }
        assertThat(stats().available()).isFalse();
        assertThat(stats().decidedWithoutStore()).isEqualTo(15);
        assertThat(logged("ERROR"))
                .as("logged once at ERROR, naming the key, the prefix setting and its value")
                .singleElement()
                .asString()
                .contains(key)
                .contains("store-key-prefix")
                .contains("'leapgate'")
                .contains("WRONGTYPE");

        redis.call(c -> c.del(key));
        eventually(() -> atOnce(client) instanceof Entry && stats().available());
        assertThat(logged("ERROR")).hasSize(1);
    }

    /**
     * A rule that counts everyone together, whose one key another application holds (WRONGTYPE),
     * and most of the decisions are that rule's: its decisions go by its failure policy, and the
     * other shared rules, whose keys Redis answers, stay shared. The circuit breaker used to count
     * the WRONGTYPE answers as failures of Redis, open, and send every shared rule to its failure
     * policy for as long as the key was there.
     */
    @Test
    void oneRulesKeyOfAnotherType_leavesTheOtherRulesShared() throws Exception {
        RedisProcess redis = started(RedisProcess::start);
        redis.call(c -> c.hset("leapgate:{r:search}:search:6000x10", "owner", "another application"));
        searchOnlyByItsFailurePolicy(redis.uri());
    }

    /**
     * A gate on {@code store} with a rule that counts everyone together ({@code GET /search}) and a
     * per-client one ({@code POST /login}), both shared, {@code store-on-failure = open}; 40 rounds
     * of three searches and a login, for a store that fails the search rule's key alone. Checks that
     * every search was decided by the failure policy, and every login by Redis, at once, the store
     * still available.
     */
    private void searchOnlyByItsFailurePolicy(String store) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", store);
        settings.put("store-timeout", BUDGET.toMillis() + "ms");
        settings.put("store-on-failure", "open");
        settings.put("store-instances", "2");
        settings.put("rule.search.match", "GET /search");
        settings.put("rule.search.limit", "1000/1m");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "1000/1m");
        settings.put("rule.login.scope", "per-origin");
        gate = HttpGate.builder(ConfigParser.parse(settings, "test")).build();
        for (int i = 0; i < 40; i++) {
            for (int j = 0; j < 3; j++) {
                Decision d = gate.enter("GET", "/search", client);
                if (d instanceof Entry entry) {
                    entry.close();
                }
            }
            assertThat(atOnce(client)).isInstanceOf(Entry.class);
        }
        assertThat(gate.store("search").orElseThrow().decidedWithoutStore()).isEqualTo(120);
        assertThat(stats().decidedWithoutStore())
                .as("the login rule's decisions made without the store")
                .isZero();
        assertThat(stats().available()).isTrue();
    }

    /**
     * The URI's Redis user may use some of the store's keys only (an ACL key pattern narrower than
     * the key prefix: here the per-client keys alone): the rule whose key it may not use goes by its
     * failure policy, the others stay shared, and the cause is logged once at ERROR, naming a key
     * and the pattern to allow. The circuit breaker used to count the refusals (NOPERM) as failures
     * of Redis, open, and send every shared rule to its failure policy.
     */
    @Test
    void aUserAllowedSomeOfTheStoresKeysOnly_leavesTheRulesWithAllowedKeysShared() throws Exception {
        RedisProcess redis = started(RedisProcess::start);
        redis.call(c -> c.aclSetuser(
                "clients",
                AclSetuserArgs.Builder.on()
                        .addPassword("pw")
                        .keyPattern("leapgate:{o:*")
                        .allCommands()));
        captureLog();
        searchOnlyByItsFailurePolicy("redis://clients:pw@127.0.0.1:" + redis.port());
        assertThat(counted(redis.call(c -> c.get("leapgate:{o:203.0.113.9}:login:6000x10"))))
                .as("the login rule's admissions, counted in Redis")
                .isEqualTo(40);
        assertThat(logged("ERROR"))
                .as("logged once at ERROR, naming a key the user may not use and the pattern to allow")
                .singleElement()
                .asString()
                .contains("NOPERM")
                .contains("may not use the key leapgate:{r:search}:search:6000x10")
                .contains("~leapgate:*")
                .doesNotContain("leapgate:start"); // the start's own decision, refused too, is not the rules'
    }

    /**
     * The instances' heartbeat key holds another application's string: the heartbeat fails with
     * WRONGTYPE, which used to be logged at DEBUG alone while each instance counted itself alone
     * (a local share of the whole limit). Now logged once at ERROR, naming the key and the prefix;
     * a rule's key of another type later is logged too, since its harm is another.
     */
    @Test
    void theInstancesKeyOfAnotherType_isReportedOnceNamingTheKey() throws Exception {
        RedisProcess redis = started(RedisProcess::start);
        redis.call(c -> c.set("leapgate:instances", "another application's"));
        captureLog();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", redis.uri());
        settings.put("store-instances", "auto");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "10/1m");
        settings.put("rule.login.scope", "per-origin");
        gate = HttpGate.builder(ConfigParser.parse(settings, "test")).build();
        eventually(() -> !logged("ERROR").isEmpty());
        assertThat(logged("ERROR"))
                .singleElement()
                .asString()
                .contains("the key leapgate:instances")
                .contains("store-key-prefix = 'leapgate'")
                .contains("the instances are not counted");
        assertThat(atOnce(client)).isInstanceOf(Entry.class);
        assertThat(stats().available()).isTrue();

        String key = "leapgate:{o:203.0.113.9}:login:6000x10";
        redis.call(c -> c.del(key)); // the window the decision above wrote
        redis.call(c -> c.hset(key, "owner", "another application"));
        atOnce(client); // decided by the failure policy
        assertThat(logged("ERROR"))
                .as("the rule's key, whose harm is not the instances key's, is reported too")
                .hasSize(2)
                .last()
                .asString()
                .contains("the key " + key)
                .contains("every decision on such a key goes by its rule's store-on-failure");
    }

    /**
     * A server that answers the script with numbers as strings, or with nils: each decision used to
     * fail with an exception inside the store's callback (a ClassCastException; for a nil, a
     * NullPointerException while the store described the reply), which left the caller waiting out
     * its whole budget, and a direct caller of the store for ever, with nothing logged. Now the
     * failure policy decides at once, the cause is logged once at ERROR, and the store decides again
     * when the server answers as Redis does.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = RespProxy.Answer.class,
            names = {"NUMBERS_AS_STRINGS", "NILS"})
    void aReplyOfAnotherShape_failsTheDecisionAtOnce_isReportedOnce_andSharingResumes(RespProxy.Answer answer)
            throws Exception {
        RedisProcess redis = started(RedisProcess::start);
        RespProxy proxy = started(() -> new RespProxy(redis.port()));
        proxy.answer = answer;
        captureLog();
        gate = gate(proxy.uri(), "closed");
        for (int i = 0; i < 5; i++) {
            Decision d = atOnce(client);
            assertThat(d).isInstanceOf(Rejection.class);
            assertThat(((Rejection) d).reason()).isEqualTo("shared store unavailable");
        }
        assertThat(stats().available()).isFalse();
        assertThat(stats().decidedWithoutStore()).isEqualTo(5);
        assertThat(logged("ERROR"))
                .as("logged once at ERROR, saying what the server answered")
                .singleElement()
                .asString()
                .contains("store = " + proxy.uri() + ":")
                .contains("unexpected reply");

        proxy.answer = RespProxy.Answer.AS_REDIS;
        eventually(() -> atOnce(client) instanceof Entry && stats().available());
    }

    /**
     * The store's URI names a replica (READONLY at the script's first write): decisions are decided
     * by the failure policy at once, and once the replica is made a master, by the store again.
     */
    @Test
    void aReplica_madeAMaster_isUsedAgainByItself() throws Exception {
        RedisProcess replica = started(
                () -> RedisProcess.start("--replicaof", "127.0.0.1", Integer.toString(RedisProcess.freePort())));
        captureLog();
        gate = gate(replica.uri(), "closed");
        for (int i = 0; i < 15; i++) {
            assertThat(atOnce(client)).isInstanceOf(Rejection.class);
        }
        assertThat(stats().available()).isFalse();
        assertThat(logged("ERROR")).singleElement().asString().contains("read-only replica");

        replica.call(c -> c.replicaofNoOne());
        eventually(() -> atOnce(client) instanceof Entry && stats().available());
    }

    /**
     * A Redis user without EVALSHA and EVAL (ACL NOPERM): the failure policy decides at once, the
     * cause is logged once; once the user is granted them, the store decides again by itself.
     */
    @Test
    void aUserWithoutScripts_isUsedAgainOnceGrantedThem() throws Exception {
        RedisProcess redis = started(RedisProcess::start);
        redis.call(c -> c.aclSetuser(
                "leapgate",
                io.lettuce.core.AclSetuserArgs.Builder.on()
                        .addPassword("pw")
                        .allKeys()
                        .allCommands()
                        .removeCommand(io.lettuce.core.protocol.CommandType.EVALSHA)
                        .removeCommand(io.lettuce.core.protocol.CommandType.EVAL)));
        captureLog();
        gate = gate("redis://leapgate:pw@127.0.0.1:" + redis.port(), "closed");
        for (int i = 0; i < 15; i++) {
            assertThat(atOnce(client)).isInstanceOf(Rejection.class);
        }
        assertThat(stats().available()).isFalse();
        assertThat(logged("ERROR")).singleElement().asString().contains("may not do what the store needs");

        redis.call(c -> c.aclSetuser(
                "leapgate",
                io.lettuce.core.AclSetuserArgs.Builder.on()
                        .addCommand(io.lettuce.core.protocol.CommandType.EVALSHA)
                        .addCommand(io.lettuce.core.protocol.CommandType.EVAL)));
        eventually(() -> atOnce(client) instanceof Entry && stats().available());
    }

    /**
     * Redis requires a password the URI does not give (NOAUTH at connecting): the failure policy
     * decides at once, the cause is logged once; once Redis no longer requires it, the store
     * connects and decides again by itself.
     */
    @Test
    void aPasswordRequired_isConnectedAgainOnceNotRequired() throws Exception {
        RedisProcess redis = started(() -> RedisProcess.start("--requirepass", "pw"));
        captureLog();
        gate = gate(redis.uri(), "closed");
        for (int i = 0; i < 15; i++) {
            assertThat(atOnce(client)).isInstanceOf(Rejection.class);
        }
        assertThat(stats().available()).isFalse();
        assertThat(logged("ERROR")).singleElement().asString().contains("requires a password");

        io.lettuce.core.RedisClient admin = io.lettuce.core.RedisClient.create("redis://:pw@127.0.0.1:" + redis.port());
        try (var connection = admin.connect()) {
            connection.sync().configSet("requirepass", "");
        } finally {
            admin.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        eventually(() -> atOnce(client) instanceof Entry && stats().available());
    }

    /**
     * Redis starts requiring a password while the store is connected (restarted with one): the
     * store's reconnections are refused with NOAUTH. That is a configuration error, reported once
     * at ERROR as at a start, not an outage that reads "not connected"; once Redis no longer
     * requires it, the store reconnects and decides again by itself.
     */
    @Test
    void aPasswordRequiredAfterARestart_isReportedOnceAsSuch_andConnectedAgainOnceNotRequired() throws Exception {
        RedisProcess redis = started(RedisProcess::start);
        captureLog();
        gate = gate(redis.uri(), "closed");
        eventually(() -> atOnce(client) instanceof Entry && stats().available());
        redis.call(c -> c.configSet("requirepass", "pw"));
        io.lettuce.core.RedisClient admin = io.lettuce.core.RedisClient.create("redis://:pw@127.0.0.1:" + redis.port());
        try (var connection = admin.connect()) {
            connection
                    .sync()
                    .clientKill(io.lettuce.core.KillArgs.Builder.typeNormal().skipme());
            eventually(() -> {
                atOnce(client);
                return !logged("ERROR").isEmpty();
            });
            assertThat(stats().available()).isFalse();
            assertThat(logged("ERROR")).singleElement().asString().contains("requires a password");
            connection.sync().configSet("requirepass", "");
        } finally {
            admin.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        eventually(() -> atOnce(client) instanceof Entry && stats().available());
        assertThat(logged("ERROR")).hasSize(1);
    }

    /**
     * SCRIPT FLUSH, again and again, while eight threads decide on one key and on keys of their
     * own: every decision is Redis's (EVALSHA, NOSCRIPT, then EVAL), none goes to the failure
     * policy, and Redis counts exactly what was admitted.
     */
    @Test
    void scriptFlushedWhileManyDecide_everyDecisionIsStillRedis_andCountedExactly() throws Exception {
        RedisProcess redis = started(RedisProcess::start);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", redis.uri());
        settings.put("store-timeout", BUDGET.toMillis() + "ms");
        settings.put("store-on-failure", "open");
        settings.put("store-instances", "2");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "100000/1m");
        settings.put("rule.login.scope", "per-origin");
        gate = HttpGate.builder(ConfigParser.parse(settings, "test")).build();
        eventually(() -> atOnce(client) instanceof Entry && stats().available());

        int threads = 8;
        int each = 300;
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger admitted = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Origin own = Origin.ip(IpAddress.parse("198.51.100." + t), 64);
            done.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < each; i++) {
                    Decision d = gate.enter("POST", "/login", i % 2 == 0 ? client : own);
                    if (d instanceof Entry entry) {
                        admitted.incrementAndGet();
                        entry.close();
                    }
                }
                return null;
            }));
        }
        Future<Integer> flusher = pool.submit(() -> {
            int flushes = 0;
            go.await();
            while (running.get()) {
                redis.call(c -> c.scriptFlush());
                flushes++;
                Thread.sleep(5); // the fault's cadence, not a wait for a condition: nothing asserted depends on it
            }
            return flushes;
        });
        go.countDown();
        try {
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            running.set(false);
            pool.shutdown();
        }
        assertThat(flusher.get(10, TimeUnit.SECONDS)).isPositive();
        assertThat(admitted.get()).isEqualTo(threads * each);
        assertThat(stats().decidedWithoutStore()).isZero();
        String stats = redis.call(c -> c.info("commandstats"));
        assertThat(SharedLimitTest.calls(stats, "eval"))
                .as("NOSCRIPT answered by EVAL (beyond the heartbeats' EVALs, one ZADD each)")
                .isGreaterThan(SharedLimitTest.calls(stats, "zadd"));
        long counted = redis.call(c -> c.keys("leapgate:{o:*").stream()
                .mapToLong(k -> SharedLimitTest.counted(c.get(k)))
                .sum());
        assertThat(counted).isEqualTo(threads * each + 1);
    }
}
