package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.stats.StoreStats;
import dev.leapgate.store.FailurePolicy;
import dev.leapgate.store.SharedWindow;
import dev.leapgate.store.Verdict;
import dev.leapgate.store.WindowStore;
import dev.leapgate.testing.FakeWindowStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Rules that share their windows through a store: what the decision layer does with the store's
 * answers, and, when the store cannot answer, with its failure policy. The store here is an
 * in-memory one on the test's clock; {@code leapgate-redis} runs the same kind of checks against a
 * real Redis.
 */
class SharedStoreTest {

    private final ManualClock clock = new ManualClock();
    private final FakeWindowStore store = new FakeWindowStore(clock);
    private final Origin client = Origin.ip(IpAddress.parse("203.0.113.7"), 64);
    /** The rejection log's lines, one per rule and 10 s (the default interval). */
    private final List<String> lines = new ArrayList<>();

    private HttpGate gate(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", "fake://store.example");
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        return HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .windowStore(store)
                .rejectionLines(lines::add)
                .build();
    }

    private static final String[] PER_CLIENT = {
        "rule.login.match", "POST /login", "rule.login.limit", "5/10s", "rule.login.scope", "per-origin"
    };

    private static String[] with(String[] base, String... more) {
        String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    /**
     * A store that fails some keys and decides others (a Redis Cluster with a master down) switches
     * a rule between the store and its failure policy on almost every request: the statistics
     * count every switch, the log says the first two of a minute and then how many it left out.
     */
    @Test
    void aStoreSwitchingOnEveryRequest_isLoggedTwiceAMinute_andCountedEveryTime() throws Exception {
        HttpGate gate = gate(PER_CLIENT);
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            for (int i = 0; i < 20; i++) {
                store.down = i % 2 == 0;
                Decision d = gate.enter("POST", "/login", Origin.ip(IpAddress.parse("203.0.113." + (i + 1)), 64));
                assertThat(d).isInstanceOf(Entry.class);
                ((Entry) d).close();
            }
        } finally {
            System.setErr(err);
        }

        String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(gate.store("login").orElseThrow().outages()).isEqualTo(10);
        assertThat(log.lines().filter(line -> line.contains("Leapgate rule 'login': the shared store")))
                .hasSize(2);
    }

    /**
     * A request that read the rules before a reload decides on the previous version of a changed
     * rule: when the store fails it then, the failure policy's decision and the outage are the
     * rule's, which the status reads from the new version. They were counted in the previous
     * version's statistics, which nothing read any more.
     */
    @Test
    void aStoreFailingARequestDecidedOnThePreviousVersion_countsInTheStatusAfterTheReload() throws Exception {
        CompletableFuture<Verdict> pending = new CompletableFuture<>();
        CountDownLatch asked = new CountDownLatch(1);
        WindowStore waiting = new WindowStore() {
            @Override
            public CompletionStage<Verdict> tryAcquire(SharedWindow window, String key, int permits) {
                asked.countDown();
                return pending;
            }

            @Override
            public void refund(SharedWindow window, String key, long bucket, int permits) {}

            @Override
            public int instances() {
                return 1;
            }

            @Override
            public void close() {}
        };
        Map<String, String> settings = new LinkedHashMap<>(Map.of(
                "store", "fake://store.example",
                "store-timeout", "10s",
                "store-on-failure", "open",
                "rule.api.match", "/api/**",
                "rule.api.limit", "100/1m"));
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .windowStore(waiting)
                .build();
        CompletableFuture<Decision> decided = CompletableFuture.supplyAsync(() -> gate.enter("GET", "/api/x", client));
        assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();

        settings.put("rule.api.limit", "200/1m"); // same name and mode: its statistics go on
        gate.update(ConfigParser.parse(settings, "test").rules());
        pending.completeExceptionally(new java.io.IOException("connection reset"));

        assertThat(decided.get(10, TimeUnit.SECONDS).admitted())
                .as("store-on-failure = open")
                .isTrue();
        assertThat(gate.store("api").orElseThrow())
                .extracting(StoreStats::available, StoreStats::decidedWithoutStore, StoreStats::outages)
                .containsExactly(false, 1L, 1L);
    }

    /**
     * A window whose buckets are no whole number of microseconds (100 ms in 64 buckets: 1562.5 us)
     * is shared in buckets of whole microseconds, rounded up (1563 us), so that it never counts a
     * permit for less long than the rule's window; and the time until an admission's quota is
     * whole again is reckoned in those buckets. It was reckoned in the rule's 1562.5 us buckets
     * from the store's bucket numbers of 1562 us: at today's store time, more than 5 hours late
     * (the RateLimit field's {@code t}).
     */
    @Test
    void aBucketOfNoWholeMicroseconds_isSharedRoundedUp_andTheQuotaIsWholeAgainWithinTheWindow() {
        ManualClock today = new ManualClock(60_000_000_000_000_000L); // ns: ~1.9 years after the store's origin
        FakeWindowStore storeOfToday = new FakeWindowStore(today);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", "fake://store.example");
        settings.put("rule.api.match", "/**");
        settings.put("rule.api.limit", "10/100ms");
        settings.put("rule.api.buckets", "64");
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(today)
                .windowStore(storeOfToday)
                .build();
        Decision d = gate.enter("GET", "/x", client);
        assertThat(d).isInstanceOf(Entry.class);
        assertThat(((Entry) d).quotas().get(0).reset())
                .isPositive()
                .isLessThanOrEqualTo(Duration.ofNanos(65 * 1_563_000L));
        assertThat(storeOfToday.keys).containsExactly("{r:api}:api:1.563x64");
        ((Entry) d).close();
    }

    /**
     * A shared limit above 2<sup>21</sup> (here 5 million in 12 hours) says what remains of it: the
     * token of a shared admission kept the remaining permits in 21 bits, so that every admission
     * said 2,097,151 remained (the RateLimit field's {@code r}, Quota.remaining), whatever the
     * window counted.
     */
    @Test
    void aSharedLimitOfMillions_saysWhatRemainsOfIt() {
        HttpGate gate = gate("rule.all.match", "/**", "rule.all.limit", "5000000/12h");
        List<Long> remaining = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Decision d = gate.enter("GET", "/x", client);
            assertThat(d).isInstanceOf(Entry.class);
            remaining.add(((Entry) d).quotas().get(0).remaining());
            ((Entry) d).close();
        }
        assertThat(remaining).containsExactly(4_999_999L, 4_999_998L, 4_999_997L);
        assertThat(store.calls).as("decided by the store").hasValue(3);
        clock.advance(Duration.ofHours(1));
        Decision d = gate.enter("GET", "/x", client);
        assertThat(((Entry) d).quotas().get(0).reset())
                .as("whole again when the admission's bucket leaves the window")
                .isEqualTo(Duration.ofMinutes(11 * 72).minus(Duration.ofHours(1)));
        ((Entry) d).close();
    }

    @Test
    void twoGatesOnOneStore_shareOneLimit_andTheStoreSaysWhatRemains() {
        HttpGate first = gate(PER_CLIENT);
        HttpGate second = gate(PER_CLIENT);
        int admitted = 0;
        List<String> remaining = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Decision d = (i % 2 == 0 ? first : second).enter("POST", "/login", client);
            if (d instanceof Entry entry) {
                admitted++;
                remaining.add(entry.quotas().get(0).remaining() + "");
                entry.close();
            }
        }
        assertThat(admitted).isEqualTo(5);
        assertThat(remaining).containsExactly("4", "3", "2", "1", "0");
        assertThat(store.keys).allMatch(k -> k.equals("{o:203.0.113.7}:login:1000x10"));
        assertThat(first.store("login")).contains(new StoreStats(true, 0, 0));
    }

    @Test
    void twoSharedRulesOnOneRequest_askTheStoreTogether_oneRoundTrip() {
        store.batch = 2; // the store answers only once both decisions have started
        HttpGate gate = gate(with(
                PER_CLIENT,
                "rule.all.match",
                "/**",
                "rule.all.limit",
                "100/1m",
                "store-timeout",
                "2s",
                "store-on-failure",
                "closed"));
        Decision d = gate.enter("POST", "/login", client);
        assertThat(d).isInstanceOf(Entry.class);
        assertThat(d.quotas()).hasSize(2);
        assertThat(store.calls.get()).isEqualTo(2);
        assertThat(gate.store("login").orElseThrow().available()).isTrue();
        assertThat(gate.store("all").orElseThrow().available()).isTrue();
    }

    @Test
    void whenOneSharedRuleRejects_whatTheOtherAdmittedIsGivenBack() {
        HttpGate gate = gate(with(PER_CLIENT, "rule.all.match", "/**", "rule.all.limit", "100/1m"));
        for (int i = 0; i < 5; i++) {
            ((Entry) gate.enter("POST", "/login", client)).close();
        }
        clock.advance(Duration.ofMillis(1)); // nothing remembered changes: login's rejection is new
        assertThat(gate.enter("POST", "/login", client)).isInstanceOf(Rejection.class);
        assertThat(store.refunds).containsExactly("{r:all}:all:6000x10 1");
    }

    /**
     * A store that answers nothing, or throws where it should fail its stage (an Error among them),
     * or throws from a refund, is the store's failure: the request gets the failure policy's
     * decision, or its own rejection, never the exception (found by a review helper: a null answer
     * threw a NullPointerException at the caller, and logged that the store decided again).
     */
    @Test
    void aStoreThatAnswersNothing_orThrows_isItsFailure_neverTheRequests() {
        HttpGate gate = gate(with(PER_CLIENT, "store-instances", "2"));
        store.answersNull = true;
        assertThat(gate.enter("POST", "/login", client)).isInstanceOf(Entry.class); // its share
        assertThat(gate.store("login")).contains(new StoreStats(false, 1, 1));
        store.answersNull = false;
        store.throwsWhenAsked = new NoClassDefFoundError("io/lettuce/core/RedisURI");
        assertThat(gate.enter("POST", "/login", client)).isInstanceOf(Entry.class);
        assertThat(gate.store("login")).contains(new StoreStats(false, 2, 1));
        store.throwsWhenAsked = null;

        HttpGate two = gate(with(PER_CLIENT, "rule.all.match", "/**", "rule.all.limit", "100/1m"));
        for (int i = 0; i < 5; i++) {
            ((Entry) two.enter("POST", "/login", client)).close();
        }
        clock.advance(Duration.ofMillis(1));
        store.refundThrows = new IllegalStateException("refund refused");
        assertThat(two.enter("POST", "/login", client))
                .as("rejected by login, the refund of what all admitted refused")
                .isInstanceOf(Rejection.class);
    }

    /**
     * A caller whose thread is interrupted while it waits for the store is decided by the failure
     * policy, but the store has not failed: no switch, no outage, nothing logged (it counted one,
     * and logged that the store did not decide).
     */
    @Test
    void anInterruptedCaller_isDecidedWithoutTheStore_butCountsNoOutage() {
        HttpGate gate = gate(with(PER_CLIENT, "store-instances", "2"));
        store.batch = 2; // the decision is held: the caller waits for it
        Thread.currentThread().interrupt();
        Decision decision;
        try {
            decision = gate.enter("POST", "/login", client);
        } finally {
            assertThat(Thread.interrupted()).as("the interruption kept").isTrue();
        }
        assertThat(decision).isInstanceOf(Entry.class); // its share
        assertThat(gate.store("login")).contains(new StoreStats(true, 1, 0));
    }

    @Test
    void aRejection_isRememberedUntilTheStoresRetryTime_withoutCallingTheStore() {
        HttpGate gate = gate(PER_CLIENT);
        for (int i = 0; i < 5; i++) {
            assertThat(gate.enter("POST", "/login", client)).isInstanceOf(Entry.class);
        }
        Decision rejected = gate.enter("POST", "/login", client);
        assertThat(rejected).isInstanceOf(Rejection.class);
        // every admission was in the first bucket: all five leave the window 11 buckets later
        assertThat(((Rejection) rejected).retryAfter()).isEqualTo(Duration.ofSeconds(11));
        int calls = store.calls.get();

        clock.advance(Duration.ofSeconds(10));
        assertThat(gate.enter("POST", "/login", client)).isInstanceOf(Rejection.class);
        assertThat(store.calls.get()).isEqualTo(calls);

        clock.advance(Duration.ofSeconds(1));
        assertThat(gate.enter("POST", "/login", client)).isInstanceOf(Entry.class);
        assertThat(store.calls.get()).isEqualTo(calls + 1);
    }

    /**
     * A rejection's retry time and quota are the store's answer to that very decision: the limit
     * remembers answers in slots by key hash, and another client's rejection in the same slot,
     * decided before the first one's headers were written, left it the fallback of one bucket (6 s
     * of a 1-minute window) and the whole quota. Found by a review helper. The two identifiers give
     * keys of one {@link String#hashCode()} ("Aa" and "BB" hash alike), so they share a slot
     * whatever the number of slots.
     */
    @Test
    void aRejection_saysTheStoresRetryTime_alsoWhenAnotherClientsRejectionTookItsSlot() {
        HttpGate gate =
                gate("rule.login.match", "POST /login", "rule.login.limit", "1/1m", "rule.login.scope", "per-origin");
        Origin first = Origin.id("user-Aa");
        Origin second = Origin.id("user-BB");
        ((Entry) gate.enter("POST", "/login", first)).close();
        ((Entry) gate.enter("POST", "/login", second)).close();
        assertThat(store.keys.get(0).hashCode()).isEqualTo(store.keys.get(1).hashCode());
        clock.advance(Duration.ofSeconds(1));

        Rejection firstRejected = (Rejection) gate.enter("POST", "/login", first);
        Rejection secondRejected = (Rejection) gate.enter("POST", "/login", second);

        // admitted in the first of ten 6 s buckets: the window is whole again 66 s after it began
        assertThat(firstRejected.retryAfter()).isEqualTo(Duration.ofSeconds(65));
        assertThat(firstRejected.quota().remaining()).isZero();
        assertThat(firstRejected.quota().reset()).isEqualTo(Duration.ofSeconds(65));
        assertThat(secondRejected.retryAfter()).isEqualTo(Duration.ofSeconds(65));
        // the second client's next request is rejected by what the slot remembers, without the
        // store; the first client's, no longer remembered there, asks the store and takes the slot
        int calls = store.calls.get();
        Rejection remembered = (Rejection) gate.enter("POST", "/login", second);
        assertThat(store.calls.get()).isEqualTo(calls);
        assertThat(gate.enter("POST", "/login", first)).isInstanceOf(Rejection.class);
        assertThat(store.calls.get()).isEqualTo(calls + 1);
        assertThat(remembered.retryAfter()).isEqualTo(Duration.ofSeconds(65));
    }

    @Test
    void rulesThatCannotBeShared_andLocalRules_stayInTheProcess() {
        HttpGate gate = gate(with(
                PER_CLIENT,
                "rule.exports.match",
                "POST /exports",
                "rule.exports.in-flight",
                "1",
                "rule.search.match",
                "GET /search",
                "rule.search.limit",
                "1/10s",
                "rule.search.store",
                "local"));
        Decision export = gate.enter("POST", "/exports", client);
        assertThat(gate.enter("POST", "/exports", client)).isInstanceOf(Rejection.class);
        ((Entry) export).close();
        assertThat(gate.enter("GET", "/search", client)).isInstanceOf(Entry.class);
        assertThat(gate.enter("GET", "/search", client)).isInstanceOf(Rejection.class);
        assertThat(store.calls.get()).isZero();
        assertThat(gate.store("exports")).isEmpty();
        assertThat(gate.store("search")).isEmpty();
    }

    @Test
    void whenTheStoreFails_eachInstanceEnforcesItsShare_andTheSharedWindowReturnsByItself() {
        HttpGate gate = gate(with(PER_CLIENT, "store-instances", "2"));
        store.down = true;
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            if (gate.enter("POST", "/login", client) instanceof Entry entry) {
                admitted++;
                entry.close();
            }
        }
        assertThat(admitted).isEqualTo(3); // ceil(5 / 2)
        assertThat(gate.store("login")).contains(new StoreStats(false, 10, 1));
        assertThat(gate.statusJson())
                .contains("\"store\":{\"available\":false,\"decidedWithoutStore\":10,\"outages\":1}");

        store.down = false;
        assertThat(gate.enter("POST", "/login", client)).isInstanceOf(Entry.class);
        assertThat(gate.store("login")).contains(new StoreStats(true, 10, 1));
        store.down = true;
        gate.enter("POST", "/login", client);
        assertThat(gate.store("login").orElseThrow().outages()).isEqualTo(2);
    }

    /**
     * While the store is down, an admission by this instance's share says when the share is whole
     * again: when the admission's bucket leaves the share's window, which for a strict window is up
     * to a bucket after the window's length (here 66 s: a 1 min window in 6 s buckets, strict). It
     * said the window's length, 60 s, and a client that waited that long came back to a share still
     * spent and was rejected.
     */
    @Test
    void whileTheStoreIsDown_theShareSaysWhenItIsWholeAgain_notTheWindowsLength() {
        HttpGate gate = gate(
                "rule.login.match", "POST /login",
                "rule.login.limit", "1/1m",
                "rule.login.scope", "per-origin",
                "store-instances", "1");
        store.down = true;
        clock.advance(Duration.ofSeconds(3));
        Decision admitted = gate.enter("POST", "/login", client);
        Map<String, String> fields = new LinkedHashMap<>();
        gate.admittedHeaders(admitted, fields::put);
        ((Entry) admitted).close();
        String told = fields.get("RateLimit");
        long t = Long.parseLong(told.substring(told.indexOf(";t=") + 3));

        clock.advance(Duration.ofSeconds(t));
        Decision again = gate.enter("POST", "/login", client);
        assertThat(again.admitted()).as("%s s after %s", t, told).isTrue();
        assertThat(told).isEqualTo("\"login\";r=0;t=66");
    }

    /**
     * While the store is down and this instance enforces its share (3 of 5 on two instances), the
     * rule's {@code RateLimit-Policy} is the same on every answer: the admissions said
     * {@code q=5;w=10} and the rejection after them {@code q=3;w=10}, so a client that keeps a
     * policy by its name saw the quota change between one response and the next.
     */
    @Test
    void whileTheStoreIsDown_aRejectionBySharesAdvertisesTheRulesPolicy_asTheAdmissionsDid() {
        HttpGate gate = gate(with(PER_CLIENT, "store-instances", "2"));
        store.down = true;
        List<String> policies = new ArrayList<>();
        List<String> rateLimits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Decision admitted = gate.enter("POST", "/login", client);
            Map<String, String> fields = new LinkedHashMap<>();
            gate.admittedHeaders(admitted, fields::put);
            ((Entry) admitted).close();
            policies.add(fields.get("RateLimit-Policy"));
            rateLimits.add(fields.get("RateLimit"));
        }
        Decision rejected = gate.enter("POST", "/login", client);
        RejectionResponse answer = gate.rejection((Rejection) rejected);
        policies.add(answer.headers().get("RateLimit-Policy"));
        rateLimits.add(answer.headers().get("RateLimit"));

        assertThat(policies).containsOnly("\"login\";q=5;w=10");
        assertThat(rateLimits)
                .containsExactly(
                        "\"login\";r=2;t=11", "\"login\";r=1;t=11", "\"login\";r=0;t=11", "\"login\";r=0;t=11");
        assertThat(answer.headers().get("Retry-After")).isEqualTo("11");
    }

    /** Login, 10 a minute per client, on two instances: while the store is down, 5 a minute here. */
    private HttpGate loginOnTwoInstances() {
        return gate(with(PER_CLIENT, "rule.login.limit", "10/1m", "store-instances", "2"));
    }

    /** The rules of {@link #loginOnTwoInstances} with the login limit lowered to 8 a minute (a share of 4). */
    private static final String LOGIN_LOWERED =
            "rule.login.match = POST /login\nrule.login.limit = 8/1m\nrule.login.scope = per-origin\n";

    private int sendLogins(HttpGate gate, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            if (gate.enter("POST", "/login", client) instanceof Entry entry) {
                admitted++;
                entry.close();
            }
        }
        return admitted;
    }

    /**
     * A reload that lowers a shared rule's limit while the store is down (during an attack) is no
     * fresh allowance, as for a rule in this process: the changed rule goes on from what this
     * instance's share counted. It started a new share from nothing, and the client that had sent
     * 5 got 4 more.
     */
    @Test
    void aSharedRuleChangedWhileTheStoreIsDown_goesOnFromWhatItsShareCounted() {
        HttpGate gate = loginOnTwoInstances();
        store.down = true;
        assertThat(sendLogins(gate, 8)).isEqualTo(5);

        clock.advance(Duration.ofSeconds(1));
        gate.update(ConfigParser.parseRules(LOGIN_LOWERED, "test"));

        assertThat(sendLogins(gate, 4))
                .as("the share is now 4, and the client sent 5 within the minute")
                .isZero();
        clock.advance(Duration.ofMinutes(2));
        assertThat(sendLogins(gate, 5))
                .as("once the window has passed, the new share")
                .isEqualTo(4);
    }

    /**
     * A shared rule changed while the store is down is still decided without it: its status and
     * the meter leapgate.store.available said the store decided again (until its next request,
     * which then counted and logged a second outage), and its counts started over.
     */
    @Test
    void aSharedRuleChangedWhileTheStoreIsDown_stillSaysTheStoreDoesNotDecide() {
        HttpGate gate = loginOnTwoInstances();
        store.down = true;
        sendLogins(gate, 8);
        assertThat(gate.store("login")).contains(new StoreStats(false, 8, 1));

        gate.update(ConfigParser.parseRules(LOGIN_LOWERED, "test"));

        assertThat(gate.store("login")).contains(new StoreStats(false, 8, 1));
        assertThat(gate.statusJson())
                .contains("\"store\":{\"available\":false,\"decidedWithoutStore\":8,\"outages\":1}");
        sendLogins(gate, 1);
        assertThat(gate.store("login")).as("one outage, not two").contains(new StoreStats(false, 9, 1));
    }

    /**
     * A rule put into shadow mode during an outage starts its statistics over, and the outage it
     * is in is one of them: they read the store unavailable with no outage, and no later request
     * of the outage counted one.
     */
    @Test
    void aSharedRuleSwitchedToShadowWhileTheStoreIsDown_countsTheOutageItIsIn() {
        HttpGate gate = loginOnTwoInstances();
        store.down = true;
        sendLogins(gate, 3);

        gate.update(ConfigParser.parseRules(LOGIN_LOWERED + "rule.login.mode = shadow\n", "test"));
        sendLogins(gate, 2);

        assertThat(gate.store("login")).contains(new StoreStats(false, 2, 1));
    }

    @Test
    void theLocalShare_dividesByTheInstancesTheStoreCounts_whenNotConfigured() {
        store.instances = 5;
        HttpGate gate = gate("rule.api.match", "/api/**", "rule.api.limit", "10/10s");
        store.down = true;
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            admitted += gate.enter("GET", "/api/x", client) instanceof Entry ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(2);
    }

    @Test
    void failOpen_admitsEveryRequest_failClosed_rejectsEveryOne_withItsOwnReason() {
        store.down = true;
        HttpGate open = gate(with(PER_CLIENT, "store-on-failure", "open"));
        for (int i = 0; i < 8; i++) {
            assertThat(open.enter("POST", "/login", client)).isInstanceOf(Entry.class);
        }
        HttpGate closed = gate(with(PER_CLIENT, "store-on-failure", "closed"));
        Decision rejected = closed.enter("POST", "/login", client);
        assertThat(rejected).isInstanceOf(Rejection.class);
        assertThat(((Rejection) rejected).reason()).isEqualTo("shared store unavailable");
        assertThat(closed.rejections("login").orElseThrow().storeUnavailable()).isEqualTo(1);
        assertThat(closed.statusJson()).contains("\"storeUnavailable\":1");
    }

    /**
     * Under {@code closed}, a request the store could not decide is answered 503 (not the
     * configured {@code status}: the client sent no more than allowed, and nothing was counted),
     * with {@code Retry-After} the time until the store is asked again (1 s, not the rule's bucket
     * of 1 min) and no rate-limit fields. It was answered 429 with {@code "login";r=0;t=60} and
     * {@code Retry-After: 60}, as if the client had spent the hour's quota.
     */
    @Test
    void failClosed_answers503_retryAfterOneSecond_andNoRateLimitFields() {
        store.down = true;
        HttpGate gate = gate(
                "rule.login.match", "POST /login",
                "rule.login.limit", "5/1h",
                "rule.login.scope", "per-origin",
                "rule.login.store-on-failure", "closed",
                "rule.api.match", "/**",
                "rule.api.limit", "100/1m",
                "rule.api.store", "local",
                "status", "429");
        Rejection rejected = (Rejection) gate.enter("POST", "/login", client);
        assertThat(rejected.reason()).isEqualTo("shared store unavailable");
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(1));

        RejectionResponse answer = gate.rejection(rejected);
        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.headers())
                .containsExactly(Map.entry("Retry-After", "1"), Map.entry("Cache-Control", "no-store"));
        assertThat(new String(answer.body(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
                        + "\"detail\":\"Rule 'login' could not decide: shared store unavailable. Retry after 1 s.\","
                        + "\"rule\":\"login\",\"retryAfter\":1}");
    }

    /**
     * The Java API says what the HTTP answer says: a rejection because the store could not decide
     * has no quota ({@code quota()} null, {@code quotas()} empty), since the store could not tell
     * what remains; it listed an invented {@code login} quota with nothing remaining. The rule
     * admitted first (a local one) gets its permit back, as for any rejection by a later rule.
     */
    @Test
    void failClosed_rejectionHasNoQuota_andTheRuleThatAdmittedFirstIsRefunded() {
        store.down = true;
        HttpGate gate = gate(
                "rule.api.match", "/**",
                "rule.api.limit", "100/1m",
                "rule.api.store", "local",
                "rule.login.match", "POST /login",
                "rule.login.limit", "5/1h",
                "rule.login.scope", "per-origin",
                "rule.login.store-on-failure", "closed");
        for (int i = 0; i < 3; i++) {
            Rejection rejected = (Rejection) gate.enter("POST", "/login", client);
            assertThat(rejected.rule()).isEqualTo("login");
            assertThat(rejected.reason()).isEqualTo("shared store unavailable");
            assertThat(rejected.quota()).isNull();
            assertThat(rejected.quotas()).isEmpty();
        }
        Entry other = (Entry) gate.enter("GET", "/other", client);
        assertThat(other.quotas())
                .singleElement()
                .satisfies(q -> assertThat(q.remaining()).isEqualTo(99));
        other.close();
    }

    /**
     * A request rejected because the store could not decide ({@code closed}) is counted in the
     * rule's rejection-log line, which says how many of its rejections were such, but names no
     * client there or in the status's {@code rejectedMost}: the client sent no more than allowed.
     * Both named the clients of an outage as the ones rejected most, above the one that did send
     * too much.
     */
    @Test
    void failClosed_namesNoClientAsRejectedMost_andTheLogLineSaysWhy() {
        HttpGate gate = gate(with(PER_CLIENT, "rule.login.store-on-failure", "closed"));
        Origin greedy = Origin.ip(IpAddress.parse("203.0.113.66"), 64);
        for (int i = 0; i < 7; i++) { // 5 admitted, 2 over the limit
            Decision decision = gate.enter("POST", "/login", greedy);
            if (decision instanceof Entry entry) {
                entry.close();
            }
        }
        store.down = true;
        for (int i = 0; i < 3; i++) {
            assertThat(((Rejection) gate.enter("POST", "/login", client)).reason())
                    .isEqualTo("shared store unavailable");
        }

        assertThat(gate.statusJson())
                .contains("\"rejectedMost\":[{\"client\":\"203.0.113.66\",\"about\":2}]")
                .doesNotContain("203.0.113.7");
        clock.advance(Duration.ofSeconds(10));
        gate.enter("POST", "/login", client); // the first rejection after the interval writes the line
        assertThat(lines)
                .containsExactly("Leapgate: rule 'login' rejected 5 requests in the last 10.0 s, 3 of them because"
                        + " its shared store could not decide; most from 203.0.113.66 (about 2)");

        clock.advance(Duration.ofSeconds(10));
        gate.enter("POST", "/login", client);
        assertThat(lines)
                .last()
                .isEqualTo("Leapgate: rule 'login' rejected 1 request in the last 10.0 s, all because its shared"
                        + " store could not decide");
    }

    /**
     * A shadow rule under {@code closed} rejects nothing while the store cannot decide: it counts
     * each request as one it would have rejected, for that reason, and shows no quota; its log line
     * says why, and names no client.
     */
    @Test
    void failClosed_inShadowMode_rejectsNothing_andCountsWhatItWouldHaveRejected() {
        store.down = true;
        HttpGate gate = gate(
                "rule.login.match", "POST /login",
                "rule.login.limit", "5/1h",
                "rule.login.scope", "per-origin",
                "rule.login.mode", "shadow",
                "rule.login.store-on-failure", "closed");
        for (int i = 0; i < 3; i++) {
            Entry entry = (Entry) gate.enter("POST", "/login", client);
            Map<String, String> fields = new LinkedHashMap<>();
            gate.admittedHeaders(entry, fields::put);
            assertThat(fields).isEmpty();
            assertThat(entry.quotas()).isEmpty();
            entry.close();
        }
        assertThat(gate.rejections("login").orElseThrow().storeUnavailable()).isEqualTo(3);
        assertThat(gate.stats("POST /login").orElseThrow().totals().shadowRejected())
                .isEqualTo(3);
        assertThat(gate.stats("POST /login").orElseThrow().totals().rejected()).isZero();
        assertThat(gate.statusJson()).contains("\"rejectedMost\":[]");
        clock.advance(Duration.ofSeconds(10));
        ((Entry) gate.enter("POST", "/login", client)).close();
        assertThat(lines)
                .containsExactly("Leapgate: shadow rule 'login' would have rejected 3 requests in the last 10.0 s, all"
                        + " because its shared store could not decide");
    }

    /**
     * Under {@code open}, an admission the store could not decide shows no quota of that rule
     * (nothing limits the request meanwhile); another rule's stays. It showed the rule's whole
     * quota, {@code "login";r=5}, request after request. Once the store decides again, the rule's
     * quota is back.
     */
    @Test
    void failOpen_showsNoQuotaOfTheRuleWhileTheStoreCannotDecide_andOtherRulesStay() {
        HttpGate gate = gate(
                "rule.login.match", "POST /login",
                "rule.login.limit", "5/10s",
                "rule.login.scope", "per-origin",
                "rule.login.store-on-failure", "open",
                "rule.api.match", "/**",
                "rule.api.limit", "100/1m",
                "rule.api.store", "local");
        HttpGate alone = gate(with(PER_CLIENT, "store-on-failure", "open"));
        store.down = true;
        for (int i = 0; i < 3; i++) {
            Entry both = (Entry) gate.enter("POST", "/login", client);
            Map<String, String> fields = new LinkedHashMap<>();
            gate.admittedHeaders(both, fields::put);
            assertThat(fields)
                    .containsEntry("RateLimit-Policy", "\"api\";q=100;w=60")
                    .hasEntrySatisfying(
                            "RateLimit",
                            v -> assertThat(v).startsWith("\"api\";r=").doesNotContain("login"));
            assertThat(both.quotas()).extracting(dev.leapgate.Quota::rule).containsExactly("api");
            both.close();

            Entry one = (Entry) alone.enter("POST", "/login", client);
            Map<String, String> none = new LinkedHashMap<>();
            alone.admittedHeaders(one, none::put);
            assertThat(none).isEmpty();
            assertThat(one.quotas()).isEmpty();
            one.close();
        }

        store.down = false;
        Entry decided = (Entry) alone.enter("POST", "/login", client);
        Map<String, String> fields = new LinkedHashMap<>();
        alone.admittedHeaders(decided, fields::put);
        assertThat(fields).containsEntry("RateLimit-Policy", "\"login\";q=5;w=10");
        decided.close();
    }

    @Test
    void aStoreThatDoesNotAnswer_isWaitedForNoLongerThanTheTimeBudget() {
        store.hangs = true;
        HttpGate gate = gate(with(PER_CLIENT, "store-timeout", "5ms", "store-on-failure", "open"));
        long start = System.nanoTime();
        assertThat(gate.enter("POST", "/login", client)).isInstanceOf(Entry.class);
        // the budget is 5 ms; the bound only proves that the decision does not hang
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(gate.store("login").orElseThrow().available()).isFalse();
    }

    @Test
    void severalSharedRulesOfOneRequest_waitForAStoreThatDoesNotAnswer_withinOneBudget() {
        String[] threeRules = {
            "rule.a.match", "/api/**", "rule.a.limit", "100/1m",
            "rule.b.match", "/api/**", "rule.b.limit", "1000/1h",
            "rule.c.match", "/api/**", "rule.c.limit", "10/1s",
            "store-on-failure", "open"
        };
        // The budget runs on the real clock (System.nanoTime). The path a decision takes when the
        // store does not answer is run once first (1 ms budget), so that class loading and the
        // first warning are not measured; and the budget is long enough that one budget (B) and
        // three (3 B) stay far apart on a loaded machine: the bound, 2 B, leaves B of slack either way.
        Duration budget = Duration.ofMillis(400);
        store.hangs = true;
        assertThat(gate(with(threeRules, "store-timeout", "1ms")).enter("GET", "/api/x", client))
                .isInstanceOf(Entry.class);
        HttpGate gate = gate(with(threeRules, "store-timeout", budget.toMillis() + "ms"));

        long start = System.nanoTime();
        assertThat(gate.enter("GET", "/api/x", client)).isInstanceOf(Entry.class);
        // One budget for the three, not one each.
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isGreaterThanOrEqualTo(budget)
                .isLessThan(budget.multipliedBy(2));
    }

    @Test
    void whileTheStoreIsDown_aRequestForMoreThanThisInstancesShare_isRejected_andHoldsNoSlot() {
        store.down = true;
        HttpGate gate = gate(
                "rule.slots.match",
                "/api/**",
                "rule.slots.in-flight",
                "5",
                "rule.api.match",
                "/api/**",
                "rule.api.limit",
                "10/10s",
                "store-instances",
                "4"); // local share: 3 per 10 s
        Decision tooMany = gate.enter("GET", "/api/x", client, 5);
        assertThat(tooMany).isInstanceOf(Rejection.class);
        assertThat(((Rejection) tooMany).rule()).isEqualTo("api");
        // The five slots the in-flight rule took for it went back: a request of one gets in.
        Decision one = gate.enter("GET", "/api/x", client, 1);
        assertThat(one).isInstanceOf(Entry.class);
        assertThat(gate.statusJson()).contains("\"inFlight\":1");
        ((Entry) one).close();
    }

    @Test
    void whileTheStoreIsDown_aRequestForMoreThanThisInstancesShare_getsNoRetryAfterOfCenturies() {
        store.down = true;
        HttpGate gate = gate("rule.api.match", "/api/**", "rule.api.limit", "10/10s", "store-instances", "4");

        Rejection tooMany = (Rejection) gate.enter("GET", "/api/x", client, 5); // the local share is 3

        assertThat(tooMany.retryAfter())
                .as("the share never holds 5; when the store decides again is not known")
                .isZero();
        assertThat(gate.rejection(tooMany).headers()).contains(Map.entry(RateLimitFields.RETRY_AFTER, "1"));
    }

    @Test
    void whileTheStoreIsDown_whatTheLocalShareAdmittedForARequestALaterRuleRejected_isGivenBack() {
        store.down = true;
        HttpGate gate = gate(
                "rule.api.match", "/api/**",
                "rule.api.limit", "4/10s", // shared; while the store is down, this instance's share: 4 per 10 s
                "rule.per-ip.match", "/api/**",
                "rule.per-ip.limit", "1/10s",
                "rule.per-ip.scope", "per-origin",
                "rule.per-ip.store", "local",
                "store-instances", "1");
        Origin greedy = Origin.ip(IpAddress.parse("203.0.113.1"), 64);
        assertThat(gate.enter("GET", "/api/x", greedy)).isInstanceOf(Entry.class);
        for (int i = 0; i < 10; i++) {
            Decision d = gate.enter("GET", "/api/x", greedy);
            assertThat(d).isInstanceOf(Rejection.class);
            assertThat(((Rejection) d).rule()).isEqualTo("per-ip");
        }

        // The ten rejections took nothing from the local share: three more clients fit, not a fourth.
        for (int c = 2; c <= 4; c++) {
            assertThat(gate.enter("GET", "/api/x", Origin.ip(IpAddress.parse("203.0.113." + c), 64)))
                    .as("client %d", c)
                    .isInstanceOf(Entry.class);
        }
        Decision fifth = gate.enter("GET", "/api/x", Origin.ip(IpAddress.parse("203.0.113.5"), 64));
        assertThat(fifth).isInstanceOf(Rejection.class);
        assertThat(((Rejection) fifth).rule()).isEqualTo("api");
    }

    /** A shared per-client window of 1 per second on /x/**, and a local pace on /x/slow. */
    private HttpGate pacedBehindSharedWindow(String pace, String maxQueue, dev.leapgate.Sleeper sleeper) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", "fake://store.example");
        settings.put("rule.x.match", "/x/**");
        settings.put("rule.x.limit", "1/1s");
        settings.put("rule.x.scope", "per-origin");
        settings.put("rule.slow.match", "/x/slow");
        settings.put("rule.slow.limit", pace);
        settings.put("rule.slow.on-excess", "pace");
        settings.put("rule.slow.max-queue", maxQueue);
        return HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .windowStore(store)
                .sleeper(sleeper)
                .build();
    }

    /**
     * The store counted a request at 0 ms, in its bucket [0, 100 ms); the request waited for its
     * paced turn until 100 ms. There it is counted again, in the store, after its first count was
     * given back (a limit of 1: asked the other way round, it would refuse itself), so that the
     * window holds it until 1.2 s, a window after it went on, not 1.1 s. The rejection of the
     * client's request meanwhile, which the limit remembers, is not believed: it counted the
     * waiting request's first count.
     */
    @Test
    void sharedWindow_countsARequestThatWaitedWhenItGoesOn_givingItsFirstCountBack() {
        HttpGate[] gates = new HttpGate[1];
        gates[0] = pacedBehindSharedWindow("10/1s", "1s", nanos -> {
            assertThat(((Rejection) gates[0].enter("GET", "/x/fast", client)).rule())
                    .isEqualTo("x");
            clock.advanceNanos(nanos);
        });
        HttpGate gate = gates[0];
        Origin other = Origin.ip(IpAddress.parse("198.51.100.1"), 64);
        ((Entry) gate.enter("GET", "/x/slow", other)).close(); // the turn of 0 ms

        Entry waited = (Entry) gate.enter("GET", "/x/slow", client);
        waited.close();

        assertThat(waited.startNanos()).isEqualTo(100_000_000L);
        assertThat(store.refunds).containsExactly("{o:203.0.113.7}:x:100x10 1");
        clock.advance(Duration.ofMillis(1_050)); // 1.15 s
        assertThat(((Rejection) gate.enter("GET", "/x/fast", client)).rule()).isEqualTo("x");
        clock.advance(Duration.ofMillis(50)); // 1.2 s
        assertThat(gate.enter("GET", "/x/fast", client)).isInstanceOf(Entry.class);
    }

    /** As above, with the store down: the request moves in this instance's share of the window. */
    @Test
    void shareOfAWindowWhileTheStoreIsDown_countsARequestThatWaitedWhenItGoesOn() {
        store.down = true;
        HttpGate gate = pacedBehindSharedWindow("10/1s", "1s", clock::advanceNanos);
        Origin other = Origin.ip(IpAddress.parse("198.51.100.1"), 64);
        ((Entry) gate.enter("GET", "/x/slow", other)).close(); // the turn of 0 ms

        Entry waited = (Entry) gate.enter("GET", "/x/slow", client);
        waited.close();

        assertThat(waited.startNanos()).isEqualTo(100_000_000L);
        clock.advance(Duration.ofMillis(1_050)); // 1.15 s
        assertThat(((Rejection) gate.enter("GET", "/x/fast", client)).rule()).isEqualTo("x");
        clock.advance(Duration.ofMillis(50)); // 1.2 s
        assertThat(gate.enter("GET", "/x/fast", client)).isInstanceOf(Entry.class);
        assertThat(store.refunds).isEmpty();
    }

    /**
     * A request counted at 0 waits until 2 s for its paced turn; at 1.2 s its count had left the
     * shared window, and the client's next request was admitted: at 2 s the window has no room for
     * the waiting one, which is rejected by it.
     */
    @Test
    void sharedWindow_rejectsARequestThatWaited_whenItHasNoRoomAsItGoesOn() {
        Origin other = Origin.ip(IpAddress.parse("198.51.100.1"), 64);
        HttpGate[] gate = new HttpGate[1];
        gate[0] = pacedBehindSharedWindow("1/2s", "3s", nanos -> {
            clock.advance(Duration.ofMillis(1_200));
            assertThat(gate[0].enter("GET", "/x/fast", client)).isInstanceOf(Entry.class);
            clock.advanceNanos(nanos - 1_200_000_000L);
        });
        ((Entry) gate[0].enter("GET", "/x/slow", other)).close(); // the turn of 0 s

        Decision waited = gate[0].enter("GET", "/x/slow", client); // the turn of 2 s

        assertThat(clock.nanoTime()).isEqualTo(2_000_000_000L);
        assertThat(((Rejection) waited).rule()).isEqualTo("x");
        assertThat(((Rejection) waited).reason()).isEqualTo("limit exceeded");
        assertThat(gate[0].rejections("x").orElseThrow().limitExceeded()).isEqualTo(1);
        assertThat(gate[0].stats("/x/slow").orElseThrow().totals().admitted()).isEqualTo(1); // the other's
        assertThat(gate[0].stats("/x/slow").orElseThrow().totals().rejected()).isEqualTo(1);
    }

    @Test
    void whatALocalShareAdmitted_isGivenBackOnlyToItsOwnWindow_notToOneOfALaterOutage() {
        store.down = true;
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", "fake://store.example");
        settings.put("store-instances", "1");
        settings.put("rule.api.match", "/api/**");
        settings.put("rule.api.limit", "4/10s");
        settings.put("rule.slow.match", "/api/slow");
        settings.put("rule.slow.limit", "1/1s");
        settings.put("rule.slow.on-excess", "pace");
        settings.put("rule.slow.max-queue", "2s");
        HttpGate[] gate = new HttpGate[1];
        gate[0] = HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .windowStore(store)
                .sleeper(nanos -> {
                    // While the request waits, the store comes back, long enough for the share's
                    // window to go unused for its window and a bucket, then fails again: a new share.
                    store.down = false;
                    clock.advance(Duration.ofSeconds(13));
                    assertThat(gate[0].enter("GET", "/api/fast", client)).isInstanceOf(Entry.class);
                    store.down = true;
                    assertThat(gate[0].enter("GET", "/api/fast", client)).isInstanceOf(Entry.class);
                    throw new InterruptedException("test");
                })
                .build();
        assertThat(gate[0].enter("GET", "/api/slow", client)).isInstanceOf(Entry.class); // takes the paced slot

        Decision interrupted = gate[0].enter("GET", "/api/slow", client); // waits for the next one
        assertThat(Thread.interrupted()).isTrue();
        assertThat(((Rejection) interrupted).reason()).isEqualTo("interrupted");

        // The new share counts the one request it admitted; the refund of the interrupted request
        // was not its own to take.
        for (int i = 0; i < 3; i++) {
            assertThat(gate[0].enter("GET", "/api/fast", client)).isInstanceOf(Entry.class);
        }
        assertThat(gate[0].enter("GET", "/api/fast", client)).isInstanceOf(Rejection.class);
    }

    @Test
    void clientsOfOneIpv6Prefix_shareOneKey_andIdentifiersAreKeyedByThemselves() {
        HttpGate gate = gate(PER_CLIENT);
        gate.enter("POST", "/login", Origin.ip(IpAddress.parse("2001:db8:1:2::1"), 64));
        gate.enter("POST", "/login", Origin.ip(IpAddress.parse("2001:db8:1:2::ffff"), 64));
        gate.enter("POST", "/login", Origin.id("api-key-1"));
        gate.enter("POST", "/login", Origin.id("k".repeat(100)));
        gate.enter("POST", "/login", Origin.secret("api-key-1"));
        gate.enter("POST", "/login", Origin.ip(IpAddress.parse("64:ff9b::203.0.113.7"), 64));
        assertThat(store.keys.get(0)).isEqualTo(store.keys.get(1)).startsWith("{o:6:");
        assertThat(store.keys.get(2)).isEqualTo("{o:i:api-key-1}:login:1000x10");
        assertThat(store.keys.get(3)).startsWith("{o:h:").hasSizeLessThan(70);
        assertThat(store.keys.get(4))
                .as("a credential is kept under its hash, never as sent")
                .isEqualTo("{o:h:" + dev.leapgate.internal.Sha256.hex("api-key-1", 32) + "}:login:1000x10");
        assertThat(store.keys.get(5))
                .as("an IPv4 client written in the NAT64 well-known prefix, keyed as the address it embeds")
                .isEqualTo("{o:203.0.113.7}:login:1000x10");
    }

    /**
     * A brace in an identifier shown as sent chose the Redis Cluster hash tag: "acme}1", "acme}2",
     * ... all in the slot of "o:i:acme", so that a flood of made-up clients loaded one node. Found by
     * a review helper.
     */
    @Test
    void anIdentifierWithABrace_isKeptUnderItsHash_soThatItCannotChooseTheHashTag() {
        HttpGate gate = gate(PER_CLIENT);
        gate.enter("POST", "/login", Origin.id("acme}1"));
        gate.enter("POST", "/login", Origin.id("acme{1"));
        gate.enter("POST", "/login", Origin.id("acme-1"));

        assertThat(store.keys.get(0))
                .isEqualTo("{o:h:" + dev.leapgate.internal.Sha256.hex("acme}1", 32) + "}:login:1000x10");
        assertThat(store.keys.get(1))
                .isEqualTo("{o:h:" + dev.leapgate.internal.Sha256.hex("acme{1", 32) + "}:login:1000x10");
        assertThat(store.keys.get(2)).isEqualTo("{o:i:acme-1}:login:1000x10");
    }

    @Test
    void storeSettings_areChecked_andNeedAStore() {
        assertThatThrownBy(() -> ConfigParser.parse(Map.of("store-timeout", "20ms"), "test"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("store-timeout: applies only with store");
        assertThatThrownBy(() -> ConfigParser.parse(Map.of("store", "localhost"), "test"))
                .hasMessageContaining("names no scheme and host");
        assertThatThrownBy(() -> ConfigParser.parse(
                        Map.of("store", "redis://h", "store-on-failure", "ignore", "store-timeout", "1m"), "test"))
                .hasMessageContaining("store-on-failure: 'ignore' is not allowed; expected local-share, open or closed")
                .hasMessageContaining("store-timeout: must be between 1ms and 10s, was '1m'");
        assertThatThrownBy(() -> ConfigParser.parse(
                        Map.of("store", "redis://h", "store-key-prefix", "a{b}", "store-instances", "0"), "test"))
                .hasMessageContaining("store-key-prefix: must be 1 to 64 letters")
                .hasMessageContaining("store-instances:")
                .hasMessageContaining("or auto");
        assertThatThrownBy(() -> ConfigParser.parse(
                        Map.of("rule.x.match", "/x", "rule.x.in-flight", "3", "rule.x.store", "shared"), "test"))
                .hasMessageContaining("rule.x.store: only a rate limit with on-excess reject can be shared");
    }

    /**
     * A rule's store-on-failure is read with the store's values, spelling checks and message, and
     * is the rule's; without it the rule has none (null: the store's setting).
     */
    @Test
    void aRulesStoreOnFailure_isRead_withTheValuesAndMessageOfTheStoresOwn() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", "redis://h");
        settings.put("store-on-failure", "local-share");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "5/1m");
        settings.put("rule.login.store-on-failure", "closed");
        settings.put("rule.browse.match", "/pages/**");
        settings.put("rule.browse.limit", "100/1s");
        settings.put("rule.browse.store-on-failure", "open");
        settings.put("rule.api.match", "/api/**");
        settings.put("rule.api.limit", "10/1s");
        settings.put("rule.api.store", "shared");
        settings.put("rule.api.store-on-failure", "local-share");
        settings.put("rule.other.match", "/other");
        settings.put("rule.other.limit", "10/1s");

        List<FlowRule> rules = ConfigParser.parse(settings, "test").rules().rules();

        assertThat(rules)
                .extracting(FlowRule::storeOnFailure)
                .containsExactly(FailurePolicy.CLOSED, FailurePolicy.OPEN, FailurePolicy.LOCAL_SHARE, null);
        assertThat(rules.get(0).toString()).endsWith(", store-on-failure closed");
        assertThat(rules.get(3).toString()).doesNotContain("store-on-failure");
        settings.put("rule.login.store-on-failure", "clsed");
        settings.put("rule.browse.store-on-failure", "Open");
        assertThatThrownBy(() -> ConfigParser.parse(settings, "test"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rule.login.store-on-failure: 'clsed' is not allowed; expected local-share, open"
                        + " or closed; did you mean 'closed'?")
                .hasMessageContaining(
                        "rule.browse.store-on-failure: 'Open' is not allowed; expected local-share, open or closed");
    }

    /**
     * store-on-failure on a rule that is never in the store (in-flight, pace, warm-up, borrow, store
     * = local) is refused, as store = shared on such a rule is, naming the rule, the setting and the
     * value; with a store or without one. On a rule that can be shared, without a store it changes
     * nothing, as store = shared does: accepted, and the rule is per instance.
     */
    @Test
    void aRulesStoreOnFailure_onARuleNeverInTheStore_isRefused_namingTheRuleTheSettingAndTheValue() {
        Map<String, String[]> perInstance = new LinkedHashMap<>();
        perInstance.put("in-flight limit is always per instance", new String[] {"rule.x.in-flight", "3"});
        perInstance.put(
                "on-excess pace is always per instance",
                new String[] {"rule.x.limit", "10/1s", "rule.x.on-excess", "pace"});
        perInstance.put(
                "on-excess warm-up is always per instance",
                new String[] {"rule.x.limit", "10/1s", "rule.x.on-excess", "warm-up"});
        perInstance.put(
                "on-excess borrow is always per instance",
                new String[] {"rule.x.limit", "10/1s", "rule.x.on-excess", "borrow"});
        perInstance.put("store is local", new String[] {"rule.x.limit", "10/1s", "rule.x.store", "local"});
        for (boolean withStore : new boolean[] {true, false}) {
            perInstance.forEach((why, rule) -> {
                Map<String, String> settings = new LinkedHashMap<>();
                if (withStore) {
                    settings.put("store", "redis://h");
                }
                settings.put("rule.x.match", "/x");
                for (int i = 0; i < rule.length; i += 2) {
                    settings.put(rule[i], rule[i + 1]);
                }
                settings.put("rule.x.store-on-failure", "closed");
                assertThatThrownBy(() -> ConfigParser.parse(settings, "test"))
                        .as(why + (withStore ? "" : ", without a store"))
                        .isInstanceOf(ConfigException.class)
                        .hasMessageContaining("rule.x.store-on-failure: 'closed' applies only to a rule in the shared"
                                + " store (a rate limit with on-excess reject); this rule's " + why
                                + " (remove store-on-failure)");
            });
        }
        assertThatThrownBy(() -> FlowRule.builder("exports")
                        .match("POST /reports/*/export")
                        .inFlight(20)
                        .storeOnFailure(FailurePolicy.OPEN)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("store-on-failure open applies only to a rule in the shared store; this rule's in-flight"
                        + " limit is always per instance (rule 'exports')");

        HttpGate withoutStore = HttpGate.builder(ConfigParser.parse(
                        Map.of(
                                "rule.login.match", "POST /login",
                                "rule.login.limit", "1/10s",
                                "rule.login.store-on-failure", "closed"),
                        "test"))
                .clock(clock)
                .build();
        assertThat(withoutStore.store("login")).as("per instance").isEmpty();
        assertThat(withoutStore.enter("POST", "/login", client)).isInstanceOf(Entry.class);
        assertThat(((Rejection) withoutStore.enter("POST", "/login", client)).reason())
                .isNotEqualTo("shared store unavailable");
    }

    /** A rule's store-on-failure makes it another rule, as its other settings do: a reload recompiles it. */
    @Test
    void aRulesStoreOnFailure_isPartOfTheRulesValue() {
        FlowRule.Builder login = FlowRule.builder("login")
                .match("POST /login")
                .limit(5, dev.leapgate.rule.WindowSpec.of(Duration.ofMinutes(1)));
        FlowRule storeSetting = login.build();
        FlowRule closed = login.storeOnFailure(FailurePolicy.CLOSED).build();

        assertThat(closed).isNotEqualTo(storeSetting);
        assertThat(closed).isEqualTo(login.build()).hasSameHashCodeAs(login.build());
        assertThat(login.storeOnFailure(null).build()).isEqualTo(storeSetting);
    }

    /**
     * While the store is down, each rule of one gate fails as it says, under a store that says
     * local-share: the login rule (closed) rejects with its reason, the browsing rule (open) admits
     * every request, and a rule without the setting enforces this instance's share (5 of 10 on two
     * instances). Each switch message says the rule's own policy.
     */
    @Test
    void whileTheStoreIsDown_eachRuleFailsByItsOwnStoreOnFailure() {
        HttpGate gate = gate(
                "store-on-failure", "local-share",
                "store-instances", "2",
                "rule.login.match", "POST /login",
                "rule.login.limit", "10/10s",
                "rule.login.scope", "per-origin",
                "rule.login.store-on-failure", "closed",
                "rule.browse.match", "/pages/**",
                "rule.browse.limit", "10/10s",
                "rule.browse.scope", "per-origin",
                "rule.browse.store-on-failure", "open",
                "rule.api.match", "/api/**",
                "rule.api.limit", "10/10s",
                "rule.api.scope", "per-origin");
        store.down = true;
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        Map<String, Integer> admitted = new LinkedHashMap<>();
        List<String> reasons = new ArrayList<>();
        try {
            for (String path : List.of("/login", "/pages/1", "/api/x")) {
                for (int i = 0; i < 12; i++) {
                    Decision d = gate.enter(path.equals("/login") ? "POST" : "GET", path, client);
                    if (d instanceof Entry entry) {
                        admitted.merge(path, 1, Integer::sum);
                        entry.close();
                    } else {
                        admitted.merge(path, 0, Integer::sum);
                        reasons.add(path + ": " + ((Rejection) d).reason());
                    }
                }
            }
        } finally {
            System.setErr(err);
        }

        assertThat(admitted).containsExactly(Map.entry("/login", 0), Map.entry("/pages/1", 12), Map.entry("/api/x", 5));
        assertThat(reasons.stream().filter(r -> r.startsWith("/login: ")))
                .hasSize(12)
                .allMatch(r -> r.equals("/login: shared store unavailable"));
        assertThat(reasons).filteredOn(r -> r.startsWith("/api/x: ")).hasSize(7).noneMatch(r -> r.contains("store"));
        assertThat(gate.rejections("login").orElseThrow().storeUnavailable()).isEqualTo(12);
        assertThat(gate.rejections("api").orElseThrow().storeUnavailable()).isZero();
        String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(log)
                .contains("rule 'login': the shared store did not decide")
                .contains("the rule rejects every request (store-on-failure = closed)")
                .contains("the rule lets every request pass (store-on-failure = open)")
                .contains("this instance enforces its share of the limit, 5 per");
        assertThat(log.lines().filter(l -> l.contains("rule 'login'")))
                .allMatch(l -> l.contains("store-on-failure = closed"));
        assertThat(log.lines().filter(l -> l.contains("rule 'browse'")))
                .allMatch(l -> l.contains("store-on-failure = open"));
        assertThat(log.lines().filter(l -> l.contains("rule 'api'")))
                .isNotEmpty()
                .allMatch(l -> l.contains("enforces its share"));
    }

    @Test
    void aStoreWithoutItsModule_failsTheStart_namingTheModule_andNoPassword() {
        assertThatThrownBy(() -> HttpGate.builder(
                                ConfigParser.parse(Map.of("store", "redis://app:secret@redis.example:6379"), "test"))
                        .build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("store = redis://app:***@redis.example:6379: no shared store for scheme 'redis'")
                .hasMessageContaining("dev.leapgate:leapgate-redis")
                .hasMessageNotContaining("secret");
    }
}
