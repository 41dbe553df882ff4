package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.store.FailurePolicy;
import dev.leapgate.store.SharedWindow;
import dev.leapgate.store.StoreSettings;
import dev.leapgate.store.Verdict;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Several gates, each with its own connection as separate instances would have, sharing one real
 * Redis under concurrent load: one limit for all of them, exact.
 */
class SharedLimitTest {

    private static RedisProcess redis;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (redis != null) { // not started: no Redis 7 for the Redis 7 run, which skips
            redis.close();
        }
    }

    @BeforeEach
    void empty() {
        redis.call(c -> c.flushall());
    }

    private HttpGate gate(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", redis.uri());
        settings.put("store-timeout", "2s"); // a loaded CI machine must not turn this test into a failure-policy test
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        return HttpGate.builder(ConfigParser.parse(settings, "test")).build(); // the provider found by ServiceLoader
    }

    @Test
    void threeInstances_eightThreads_admitExactlyTheLimit_perClient_andForEveryone() throws Exception {
        String[] rules = {
            "rule.login.match",
            "POST /login",
            "rule.login.limit",
            "40/1m",
            "rule.login.scope",
            "per-origin",
            "rule.all.match",
            "/**",
            "rule.all.limit",
            "100/1m"
        };
        List<HttpGate> gates = List.of(gate(rules), gate(rules), gate(rules));
        Origin[] clients = {
            Origin.ip(IpAddress.parse("203.0.113.1"), 64),
            Origin.ip(IpAddress.parse("203.0.113.2"), 64),
            Origin.ip(IpAddress.parse("2001:db8::1"), 64)
        };
        int threads = 8;
        int perThread = 75; // 600 attempts: 120 per client would pass the per-client limits, the global stops at 100
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong[] admittedBy = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        AtomicLong rejected = new AtomicLong();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        int c = (thread + i) % clients.length;
                        Decision d = gates.get((thread * 7 + i) % gates.size()).enter("POST", "/login", clients[c]);
                        if (d instanceof Entry entry) {
                            admittedBy[c].incrementAndGet();
                            entry.close();
                        } else {
                            rejected.incrementAndGet();
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            gates.forEach(HttpGate::close);
        }
        long admitted = Arrays.stream(admittedBy).mapToLong(AtomicLong::get).sum();
        assertThat(admitted).isEqualTo(100);
        assertThat(admitted + rejected.get()).isEqualTo(threads * perThread);
        assertThat(admittedBy).allSatisfy(n -> assertThat(n.get()).isLessThanOrEqualTo(40));
        // a rejection by the per-client rule gives back the global permit, and the other way round
        long counted = redis.call(c -> c.keys("leapgate:*").stream()
                .filter(k -> !k.endsWith("instances"))
                .mapToLong(k -> SharedLimitTest.counted(c.get(k)))
                .sum());
        assertThat(counted).isEqualTo(2 * admitted);
    }

    /**
     * A request that one shared rule rejects drops the decision of the other shared rule that
     * started with it (its caller stops waiting, well within the budget). That says nothing about
     * Redis: it must not count as a failure of Redis, or one client over its limit opens the circuit
     * breaker, and every rule of every client goes to the failure policy while Redis is well.
     */
    /**
     * A reload that changes a shared rule's window gives its keys another shape; a client's new key
     * starts from what its key of the previous shape counts: the change is no fresh allowance.
     */
    @Test
    void aSharedRuleWhoseWindowChanges_goesOnFromWhatEachClientSent() {
        HttpGate gate =
                gate("rule.login.match", "POST /login", "rule.login.limit", "3/10s", "rule.login.scope", "per-origin");
        try {
            Origin client = Origin.ip(IpAddress.parse("203.0.113.70"), 64);
            Origin other = Origin.ip(IpAddress.parse("203.0.113.71"), 64);
            assertThat(admitted(gate, client, 5)).isEqualTo(3);
            assertThat(admitted(gate, other, 1)).isEqualTo(1);

            gate.update(RuleSet.of(FlowRule.builder("login")
                    .match("POST /login")
                    .limit(5, WindowSpec.of(Duration.ofMinutes(1), 6))
                    .scope(Scope.perOrigin())
                    .build()));

            assertThat(admitted(gate, client, 5)).as("3 counted, limit 5").isEqualTo(2);
            assertThat(admitted(gate, other, 5)).as("1 counted, limit 5").isEqualTo(4);
        } finally {
            gate.close();
        }
    }

    private static int admitted(HttpGate gate, Origin origin, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            if (gate.enter("POST", "/login", origin) instanceof Entry entry) {
                entry.close();
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void oneClientOverItsLimit_doesNotTurnTheStoreUnavailable_forEveryoneElse() throws Exception {
        HttpGate gate = gate(
                "store-on-failure",
                "closed",
                "rule.login.match",
                "POST /login",
                "rule.login.limit",
                "2/1m",
                "rule.login.scope",
                "per-origin",
                "rule.all.match",
                "/**",
                "rule.all.limit",
                "1000/1m");
        try {
            Origin abuser = Origin.ip(IpAddress.parse("203.0.113.66"), 64);
            int rejected = 0;
            for (int i = 0; i < 40; i++) {
                Decision d = gate.enter("POST", "/login", abuser);
                if (d instanceof Entry entry) {
                    entry.close();
                } else {
                    assertThat(((dev.leapgate.Rejection) d).reason()).isEqualTo("limit exceeded");
                    rejected++;
                }
            }
            assertThat(rejected).isEqualTo(38);

            Origin other = Origin.ip(IpAddress.parse("203.0.113.67"), 64);
            Decision d = gate.enter("POST", "/login", other);
            assertThat(d)
                    .as("another client, under both limits, with Redis well: %s", d)
                    .isInstanceOf(Entry.class);
            ((Entry) d).close();
            assertThat(gate.store("all").orElseThrow().decidedWithoutStore()).isZero();
            assertThat(gate.store("login").orElseThrow().decidedWithoutStore()).isZero();
        } finally {
            gate.close();
        }
    }

    @Test
    void noSpanOfTheWindow_holdsMoreThanTheLimit_acrossStores_onRedisTime() throws Exception {
        SharedWindow window = SharedWindow.of("span", new WindowSpec(Duration.ofMillis(500), 5, WindowMode.STRICT), 30);
        List<RedisWindowStore> stores = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            stores.add(RedisWindowStore.open(new StoreSettings(
                    URI.create(redis.uri()), "leapgate", Duration.ofSeconds(2), FailurePolicy.CLOSED, 3)));
        }
        int threads = 6;
        List<Long> admittedAt = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong attempts = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                RedisWindowStore store = stores.get(t % stores.size());
                done.add(pool.submit(() -> {
                    while (System.nanoTime() < end) {
                        attempts.incrementAndGet();
                        Verdict v = store.tryAcquire(window, "{r:span}", 1)
                                .toCompletableFuture()
                                .get(5, TimeUnit.SECONDS);
                        if (v.admitted()) {
                            admittedAt.add(v.nowMicros());
                        } else {
                            rejected.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            stores.forEach(RedisWindowStore::close);
        }
        long[] times = admittedAt.stream().mapToLong(Long::longValue).sorted().toArray();
        assertThat(times.length).as("admissions over 5 windows").isGreaterThanOrEqualTo(90);
        assertThat(times.length + rejected.get()).isEqualTo(attempts.get());
        long w = 500_000; // the window, in microseconds
        for (int i = 0; i + 30 < times.length; i++) {
            assertThat(times[i + 30] - times[i])
                    .as("31 admissions from %d us", times[i])
                    .isGreaterThanOrEqualTo(w);
        }
    }

    @Test
    void oneRoundTrip_oneEvalsha_perDecision_andEveryKeyExpires_withinTheMemoryTarget() {
        HttpGate gate = gate("rule.api.match", "/api/**", "rule.api.limit", "100/1m", "rule.api.scope", "per-origin");
        redis.call(c -> c.configResetstat());
        int clients = 500;
        for (int i = 0; i < clients; i++) {
            Origin origin = Origin.ip(IpAddress.parse("10.0." + (i / 250) + "." + (i % 250)), 64);
            ((Entry) gate.enter("GET", "/api/items", origin)).close();
        }
        gate.close();
        String stats = redis.call(c -> c.info("commandstats"));
        assertThat(calls(stats, "evalsha")).isEqualTo(clients);
        // Every EVAL is a heartbeat (one ZADD each, every 2 s: a slow machine sees one or two).
        assertThat(calls(stats, "eval")).isEqualTo(calls(stats, "zadd"));
        List<String> keys = redis.call(c -> c.keys("leapgate:{o:*"));
        assertThat(keys).hasSize(clients);
        // the window (1 min) and the straddling bucket it counts, and one bucket more: 12 buckets of 6 s
        List<Long> ttls = redis.call(c -> keys.stream().map(c::pttl).toList());
        assertThat(ttls).allSatisfy(ttl -> assertThat(ttl).isBetween(60_000L, 72_000L));
        long memory = redis.<Long>call(c -> c.memoryUsage(keys.get(0)));
        assertThat(memory).as("MEMORY USAGE of one client's window").isLessThanOrEqualTo(150);
    }

    /**
     * Every bucket of the default window counting, at a per-client limit of 1,000 per minute (90
     * in each of the 11 buckets it counts). A window's size grows with the digits of its counts:
     * with three-digit counts in all 11 buckets (a limit above 11,000 per client and minute) it
     * is 152 B (BENCHMARKS.md). This one is 44 characters, the most Redis keeps in one allocation
     * with its object: 134 B on Redis 6.2 and 136 B on 7.0, where one character more (a head in
     * decimal) took 152 B.
     */
    @Test
    void aFullWindowOfTheDefaultTenBuckets_takesAtMost150Bytes_inRedis() throws Exception {
        SharedWindow window = SharedWindow.of("login", WindowSpec.of(Duration.ofMinutes(1)), 1_000);
        String key = "{o:203.0.113.77}:login:6000x10";
        try (RedisWindowStore store = RedisWindowStore.open(new StoreSettings(
                URI.create(redis.uri()), "leapgate", Duration.ofSeconds(5), FailurePolicy.CLOSED, 1))) {
            long now = 59_901_904L * window.bucketMicros();
            for (int bucket = 0; bucket <= window.span(); bucket++) { // every bucket the window counts
                assertThat(store.decide(window, key, 90, now + bucket * window.bucketMicros())
                                .toCompletableFuture()
                                .get(5, TimeUnit.SECONDS)
                                .admitted())
                        .isTrue();
            }
        }
        String value = redis.call(c -> c.get("leapgate:" + key));
        assertThat(value).isEqualTo("39207da;90,90,90,90,90,90,90,90,90,90,90|900"); // 59901914 in hexadecimal
        long memory = redis.<Long>call(c -> c.memoryUsage("leapgate:" + key));
        assertThat(memory).as("MEMORY USAGE of one client's full window").isLessThanOrEqualTo(150);
    }

    /**
     * Each window's arguments for the script are made once and kept; a limit changed by code again
     * and again (every second, say) makes a window each time, and the store kept every one of them.
     */
    @Test
    void windowsChangedAgainAndAgain_areNotKeptForGood_andEachStillDecides() throws Exception {
        try (RedisWindowStore store = RedisWindowStore.open(
                new StoreSettings(URI.create(redis.uri()), "shapes", Duration.ofSeconds(5), FailurePolicy.CLOSED, 1))) {
            for (int limit = 1; limit <= RedisWindowStore.MAX_SHAPES + 10; limit++) {
                SharedWindow window = SharedWindow.of("adaptive", WindowSpec.of(Duration.ofMinutes(1)), limit);
                assertThat(store.tryAcquire(window, "{r:adaptive" + limit + "}" + window.keySuffix(), limit)
                                .toCompletableFuture()
                                .get(5, TimeUnit.SECONDS)
                                .admitted())
                        .as("limit %d, all of it", limit)
                        .isTrue();
                assertThat(store.shapesKept()).isBetween(1, RedisWindowStore.MAX_SHAPES);
            }
        }
    }

    /**
     * Opening a store waits (a bounded time) for the connection and the script load: a store used
     * right after it is opened decides by Redis, not by its failure policy while it connects (1 to
     * 4 of a gate's first 8 decisions were, with the default 50 ms budget).
     */
    @Test
    void openingAStore_connectsLoadsTheScriptAndMakesADecisionThatWritesNothing_beforeItReturns() {
        RedisClient checker = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connected = checker.connect()) { // asks at once
            RedisCommands<String, String> sync = connected.sync();
            sync.scriptFlush();
            sync.configResetstat();
            sync.configSet("slowlog-log-slower-than", "0"); // every command, with its arguments
            sync.slowlogReset();
            String sha = sync.digest(RedisWindowStore.SCRIPT);
            try (RedisWindowStore store = RedisWindowStore.open(new StoreSettings(
                    URI.create(redis.uri()), "opening", Duration.ofMillis(50), FailurePolicy.CLOSED, 1))) {
                assertThat(sync.scriptExists(sha))
                        .as("the script loaded when open returns")
                        .containsExactly(true);
                // The decisions' code loaded before the first decision (the first took 23-38 ms
                // without it, BENCHMARKS.md): one decision, rejected, so nothing written.
                String stats = sync.info("commandstats");
                assertThat(calls(stats, "evalsha")).as("the start's decision").isEqualTo(1);
                assertThat(calls(stats, "eval")).as("EVALs after a NOSCRIPT").isZero();
                assertThat(sync.keys("opening:*")).as("keys written").isEmpty();
                List<String> evalsha = sync.slowlogGet().stream()
                        .map(entry -> (List<?>) ((List<?>) entry).get(3))
                        .filter(command -> "EVALSHA".equalsIgnoreCase(String.valueOf(command.get(0))))
                        .map(command -> command.subList(3, command.size()).toString())
                        .toList();
                assertThat(evalsha)
                        .as("the start's call: a decision of 2 permits against a limit of 1 (key, then ARGV)")
                        .containsExactly("[opening:start, a, 2, 1, 1000000, 1, 3000]");
            } finally {
                sync.configSet("slowlog-log-slower-than", "10000");
            }
        } finally {
            checker.shutdown();
        }
    }

    /** Redis down at a start: the refused connection ends the wait of {@code open}, not its time limit. */
    @Test
    void openingAStore_whereNothingListens_returnsWithItsStartSettled() throws Exception {
        URI nothing = URI.create("redis://127.0.0.1:" + RedisProcess.freePort());
        try (RedisWindowStore store = RedisWindowStore.open(
                new StoreSettings(nothing, "leapgate", Duration.ofMillis(50), FailurePolicy.CLOSED, 1))) {
            assertThat(store.startSettled()).isTrue();
        }
    }

    /**
     * A decision asked for while the store still connects (Redis did not answer within the time
     * {@code open} waits) must not find Redis without the script (an EVALSHA answered NOSCRIPT,
     * then an EVAL: two round trips where the budget counts one): the script load is sent on the
     * connection before any decision that waited for it.
     */
    @Test
    void aDecisionWaitingForTheConnection_findsTheScriptLoaded() throws Exception {
        SharedWindow window = SharedWindow.of("first", WindowSpec.of(Duration.ofMinutes(1)), 10);
        redis.call(c -> c.scriptFlush());
        redis.call(c -> c.configResetstat());
        CompletableFuture<Verdict> first;
        redis.pause(); // the decision asked for while the store still connects
        try (RedisWindowStore store = RedisWindowStore.open(new StoreSettings(
                URI.create(redis.uri()), "leapgate", Duration.ofSeconds(5), FailurePolicy.CLOSED, 1))) {
            try {
                first = store.tryAcquire(window, "{o:first}", 1).toCompletableFuture();
            } finally {
                redis.resume();
            }
            assertThat(first.get(5, TimeUnit.SECONDS).admitted()).isTrue();
        }
        String stats = redis.call(c -> c.info("commandstats"));
        assertThat(calls(stats, "eval")).as("EVALs after a NOSCRIPT").isZero();
        assertThat(calls(stats, "evalsha"))
                .as("the decision (no start decision: open waited its 2 s for a paused Redis)")
                .isEqualTo(1);
        assertThat(calls(stats, "script")).as("SCRIPT LOAD at connect").isEqualTo(1);
    }

    /**
     * A decision whose caller stopped waiting while the store still connected (its budget ran out
     * and the failure policy decided, or another rule rejected the request) is not sent once the
     * connection is made: Redis would count its permits for no request, and until they came back
     * other instances' requests would be refused for them.
     */
    @Test
    void aDecisionGivenUpWhileTheStoreConnects_isNotMadeInRedis() throws Exception {
        SharedWindow window = SharedWindow.of("given-up", WindowSpec.of(Duration.ofMinutes(1)), 1);
        redis.call(c -> c.configResetstat());
        redis.pause(); // open returns after its 2 s, still connecting
        try (RedisWindowStore store = RedisWindowStore.open(new StoreSettings(
                URI.create(redis.uri()), "leapgate", Duration.ofMillis(50), FailurePolicy.CLOSED, 1))) {
            try {
                CompletableFuture<Verdict> givenUp =
                        store.tryAcquire(window, "{o:given-up}", 1).toCompletableFuture();
                assertThat(givenUp.cancel(false)).as("the caller stops waiting").isTrue();
            } finally {
                redis.resume();
            }
            // Connected, the script loaded: what was to be sent on connecting has been sent, and
            // Redis runs a connection's commands in order, so it ran that before this decision.
            Polling.eventually("connected", Duration.ofSeconds(10), store::startSettled);
            assertThat(store.tryAcquire(window, "{o:other}", 1)
                            .toCompletableFuture()
                            .get(5, TimeUnit.SECONDS)
                            .admitted())
                    .isTrue();
        }
        List<String> written = redis.call(c -> c.keys("leapgate:{o:given-up}*"));
        assertThat(written).as("keys the decision given up wrote").isEmpty();
        assertThat(calls(redis.call(c -> c.info("commandstats")), "evalsha"))
                .as("the decision on {o:other} alone")
                .isEqualTo(1);
    }

    @Test
    void sixteenThreadsOnOneHotKey_areCoalescedIntoFewerCalls_andStayExact() throws Exception {
        SharedWindow window = SharedWindow.of("hot", WindowSpec.of(Duration.ofMinutes(1)), 500);
        int threads = 16;
        int perThread = 100;
        AtomicLong admitted = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        redis.call(c -> c.configResetstat());
        try (RedisWindowStore store = RedisWindowStore.open(new StoreSettings(
                URI.create(redis.uri()), "leapgate", Duration.ofSeconds(5), FailurePolicy.CLOSED, 1))) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < perThread; i++) {
                            Verdict v = store.tryAcquire(window, "{r:hot}", 1)
                                    .toCompletableFuture()
                                    .get(5, TimeUnit.SECONDS);
                            (v.admitted() ? admitted : rejected).incrementAndGet();
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(admitted.get()).isEqualTo(500);
        assertThat(admitted.get() + rejected.get()).isEqualTo(threads * perThread);
        assertThat(counted(redis.call(c -> c.get("leapgate:{r:hot}")))).isEqualTo(500);
        long calls = calls(redis.call(c -> c.info("commandstats")), "evalsha");
        assertThat(calls).as("calls for %d decisions", threads * perThread).isLessThan(threads * perThread);
    }

    @Test
    void decisionsForOneKey_goAtOnceWhileFewCallsAreInFlight_thenTogether() throws Exception {
        SharedWindow window = SharedWindow.of("depth", WindowSpec.of(Duration.ofMinutes(1)), 100);
        int decisions = RedisWindowStore.CALLS_PER_KEY + 3;
        try (RedisWindowStore store = RedisWindowStore.open(new StoreSettings(
                URI.create(redis.uri()), "leapgate", Duration.ofSeconds(5), FailurePolicy.CLOSED, 1))) {
            // The script loaded and the connection made, so that every call below is one EVALSHA.
            store.tryAcquire(window, "{o:warm}", 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
            redis.call(c -> c.configResetstat());
            List<CompletableFuture<Verdict>> verdicts = new ArrayList<>();
            redis.pause(); // no reply comes back while the decisions are made
            try {
                for (int i = 0; i < decisions; i++) {
                    verdicts.add(store.tryAcquire(window, "{o:depth}", 1).toCompletableFuture());
                }
            } finally {
                redis.resume();
            }
            for (CompletableFuture<Verdict> verdict : verdicts) {
                assertThat(verdict.get(5, TimeUnit.SECONDS).admitted()).isTrue();
            }
        }
        assertThat(counted(redis.call(c -> c.get("leapgate:{o:depth}")))).isEqualTo(decisions);
        // CALLS_PER_KEY calls at once, then the three that waited for one of them, together.
        assertThat(calls(redis.call(c -> c.info("commandstats")), "evalsha"))
                .isEqualTo(RedisWindowStore.CALLS_PER_KEY + 1);
    }

    @Test
    void instancesCountThemselvesInTheStore_forTheLocalShare() throws Exception {
        StoreSettings auto = new StoreSettings(
                URI.create(redis.uri()), "count", Duration.ofSeconds(1), FailurePolicy.LOCAL_SHARE, 0);
        try (RedisWindowStore first = RedisWindowStore.open(auto);
                RedisWindowStore second = RedisWindowStore.open(auto);
                RedisWindowStore third = RedisWindowStore.open(auto)) {
            // The heartbeats come every 2 s.
            Polling.eventually(
                    "three instances seen",
                    Duration.ofSeconds(15),
                    () -> first.instances() == 3 && third.instances() == 3);
            assertThat(second.instances()).isBetween(2, 3);
            long ttl = redis.call(c -> c.pttl("count:instances"));
            assertThat(ttl).isPositive().isLessThanOrEqualTo(10_000);
        }
        StoreSettings fixed = new StoreSettings(
                URI.create(redis.uri()), "count", Duration.ofSeconds(1), FailurePolicy.LOCAL_SHARE, 4);
        try (RedisWindowStore configured = RedisWindowStore.open(fixed)) {
            assertThat(configured.instances()).isEqualTo(4);
        }
    }

    @Test
    void heartbeat_isOneScript_onRedisClock() throws Exception {
        List<String> time = redis.call(c -> c.time());
        long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        // Two other instances by Redis's clock: one silent for 11 s (gone), one beat 4 s ago.
        redis.call(c -> c.zadd("beat:instances", nowMillis - 11_000, "gone"));
        redis.call(c -> c.zadd("beat:instances", nowMillis - 4_000, "alive"));
        redis.call(c -> c.configResetstat());
        StoreSettings auto =
                new StoreSettings(URI.create(redis.uri()), "beat", Duration.ofSeconds(1), FailurePolicy.LOCAL_SHARE, 0);
        try (RedisWindowStore store = RedisWindowStore.open(auto)) {
            Polling.eventually("the first heartbeat", Duration.ofSeconds(5), () -> store.instances() == 2);
            List<String> members = redis.call(c -> c.zrange("beat:instances", 0, -1));
            assertThat(members).hasSize(2).contains("alive").doesNotContain("gone");
            // Counting in, dropping the silent and counting is one round trip: one script, which
            // reads the time in Redis (no instance's clock is compared with another's).
            String stats = redis.call(c -> c.info("commandstats"));
            assertThat(calls(stats, "eval")).isPositive();
            assertThat(calls(stats, "zadd")).isEqualTo(calls(stats, "eval"));
        }
    }

    /** The permits a window's value counts: {@code "<head>:<c0>,<c1>,...|<older>"}. */
    static long counted(String window) {
        long sum = 0;
        int end = window.indexOf('|');
        for (String count : window.substring(window.indexOf(';') + 1, end < 0 ? window.length() : end)
                .split(",")) {
            sum += Long.parseLong(count);
        }
        return sum;
    }

    /**
     * The calls of {@code command} in an {@code INFO commandstats} reply, with its subcommands
     * (Redis 7 counts {@code SCRIPT LOAD} as {@code script|load}, 6.2 as {@code script}); 0 if
     * never called.
     */
    static long calls(String commandStats, String command) {
        long sum = 0;
        for (String line : commandStats.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":") || line.startsWith("cmdstat_" + command + "|")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                sum += Long.parseLong(calls.substring(0, calls.indexOf(',')));
            }
        }
        return sum;
    }
}
