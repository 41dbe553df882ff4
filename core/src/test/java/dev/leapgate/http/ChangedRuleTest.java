package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Clock;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Configs;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A rule whose limit changes on a reload goes on from what its previous version counted: lowering
 * a limit takes effect at once, raising one gives only the difference, and requests in flight keep
 * their slots. A reload is never a fresh allowance. The clock is fake and only moves when a test
 * moves it, so every admission stays in the window.
 */
class ChangedRuleTest {

    private static final WindowSpec TEN_SECONDS = WindowSpec.of(Duration.ofSeconds(10), 10);

    private final ManualClock clock = new ManualClock();

    private HttpGate gate(FlowRule... rules) {
        return HttpGate.builder(Configs.withRules(RuleSet.of(rules)))
                .clock(clock)
                .build();
    }

    private static Origin ip(String address) {
        return Origin.ip(IpAddress.parse(address), 64);
    }

    private static FlowRule window(long limit, Scope scope) {
        return FlowRule.builder("hello")
                .match("/hello")
                .limit(limit, TEN_SECONDS)
                .scope(scope)
                .build();
    }

    /**
     * A rule whose match alone changes (its name, limit and scope the same) went on counting afresh
     * from its new resource: a client at its limit got a fresh allowance from the reload.
     */
    @Test
    void aChangedMatch_goesOnFromWhatThePreviousVersionCounted() {
        HttpGate gate = gate(FlowRule.builder("login")
                .match("POST /login")
                .limit(3, TEN_SECONDS)
                .scope(Scope.perOrigin())
                .build());
        Origin client = ip("203.0.113.7");
        for (int i = 0; i < 3; i++) {
            ((Entry) gate.enter("POST", "/login", client)).close();
        }
        assertThat(gate.enter("POST", "/login", client).admitted()).isFalse();

        gate.update(RuleSet.of(FlowRule.builder("login")
                .match("/login")
                .limit(3, TEN_SECONDS)
                .scope(Scope.perOrigin())
                .build()));

        assertThat(gate.enter("POST", "/login", client).admitted())
                .as("no fresh allowance")
                .isFalse();
        assertThat(gate.enter("GET", "/login", client).admitted()).isFalse();
        assertThat(gate.enter("GET", "/login", ip("203.0.113.8")).admitted())
                .as("another client")
                .isTrue();
    }

    /** Admissions until the first rejection, each closed at once. */
    private static int admitAll(HttpGate gate, Origin origin) {
        int admitted = 0;
        while (gate.enter("GET", "/hello", origin) instanceof Entry entry) {
            entry.close();
            admitted++;
        }
        return admitted;
    }

    private static int admit(HttpGate gate, Origin origin, int times) {
        int admitted = 0;
        for (int i = 0; i < times; i++) {
            if (gate.enter("GET", "/hello", origin) instanceof Entry entry) {
                entry.close();
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void globalWindow_lowered_appliesToWhatItCounts_raised_givesTheDifference() {
        Origin client = ip("203.0.113.1");
        HttpGate gate = gate(window(10, Scope.all()));
        assertThat(admit(gate, client, 8)).isEqualTo(8);

        gate.update(RuleSet.of(window(5, Scope.all())));
        assertThat(admitAll(gate, client)).as("8 counted, limit 5").isZero();

        gate.update(RuleSet.of(window(12, Scope.all())));
        assertThat(admitAll(gate, client)).as("8 counted, limit 12").isEqualTo(4);

        clock.advance(Duration.ofSeconds(11));
        assertThat(admitAll(gate, client)).as("the window has passed").isEqualTo(12);
    }

    @Test
    void globalWindow_changedToBorrowing_startsFromAllItCounted() {
        Origin client = ip("203.0.113.1");
        HttpGate gate = gate(window(10, Scope.all()));
        assertThat(admit(gate, client, 7)).isEqualTo(7);

        gate.update(RuleSet.of(FlowRule.builder("hello")
                .match("/hello")
                .limit(10, TEN_SECONDS)
                .onExcess(OnExcess.borrow(Duration.ZERO))
                .build()));

        assertThat(admitAll(gate, client)).as("7 counted, limit 10").isEqualTo(3);
    }

    @Test
    void pacedRule_changed_queuesBehindWhatItsPreviousVersionScheduled() {
        AtomicLong slept = new AtomicLong();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(paced(10))))
                .clock(clock)
                .sleeper(slept::addAndGet) // time does not move: requests pile up
                .build();
        Origin client = ip("203.0.113.1");
        assertThat(admit(gate, client, 6)).isEqualTo(6); // proceed at 0, 100, ..., 500 ms
        assertThat(slept.get()).isEqualTo(1_500_000_000L);

        gate.update(RuleSet.of(paced(5)));

        Decision next = gate.enter("GET", "/hello", client);
        assertThat(next.admitted())
                .as("the next slot, 600 ms, is beyond max-queue")
                .isFalse();
        assertThat(((Rejection) next).retryAfter()).isEqualTo(Duration.ofMillis(100));
        clock.advance(Duration.ofMillis(100));
        assertThat(admit(gate, client, 1)).isEqualTo(1);
        assertThat(slept.get()).as("waited 500 ms more").isEqualTo(2_000_000_000L);
    }

    private static FlowRule paced(long perSecond) {
        return FlowRule.builder("hello")
                .match("/hello")
                .limit(perSecond, WindowSpec.of(Duration.ofSeconds(1), 10))
                .onExcess(OnExcess.pace(Duration.ofMillis(500)))
                .build();
    }

    @Test
    void perClientWindow_sameBucketWidth_goesOnFromEachClientsCount() {
        Origin heavy = ip("203.0.113.1");
        Origin light = ip("203.0.113.2");
        HttpGate gate = gate(window(10, Scope.perOrigin()));
        assertThat(admitAll(gate, heavy)).isEqualTo(10);
        assertThat(admit(gate, light, 3)).isEqualTo(3);

        gate.update(RuleSet.of(window(6, Scope.perOrigin())));
        assertThat(admitAll(gate, heavy)).isZero();
        assertThat(admitAll(gate, light)).isEqualTo(3);

        gate.update(RuleSet.of(window(20, Scope.perOrigin())));
        assertThat(admitAll(gate, heavy)).isEqualTo(10);
        assertThat(admitAll(gate, light)).isEqualTo(14);
        assertThat(admitAll(gate, ip("203.0.113.3"))).as("a new client").isEqualTo(20);

        clock.advance(Duration.ofSeconds(11));
        assertThat(admitAll(gate, heavy)).isEqualTo(20);
    }

    @Test
    void perClientWindow_widerBuckets_startsEachClientFromAllItCounted_forOneWindow() {
        Origin heavy = ip("203.0.113.1");
        Origin light = ip("203.0.113.2");
        HttpGate gate = gate(window(100, Scope.perOrigin())); // 8-bit buckets
        assertThat(admitAll(gate, heavy)).isEqualTo(100);
        clock.advance(Duration.ofSeconds(5));
        assertThat(admit(gate, light, 40)).isEqualTo(40);

        gate.update(RuleSet.of(window(300, Scope.perOrigin()))); // 16-bit buckets: a new table
        assertThat(admitAll(gate, heavy)).isEqualTo(200);
        assertThat(admitAll(gate, light)).isEqualTo(260);
        assertThat(admitAll(gate, ip("203.0.113.3"))).as("a new client").isEqualTo(300);

        // What the old table counted is placed in the reload's bucket: it leaves the window then.
        clock.advance(Duration.ofSeconds(11));
        assertThat(admitAll(gate, light)).isEqualTo(300);
    }

    @Test
    void perClientWindow_moreOriginsTracked_startsEachClientFromAllItCounted() {
        Origin heavy = ip("203.0.113.1");
        HttpGate gate = gate(window(10, Scope.perOrigin()));
        assertThat(admitAll(gate, heavy)).isEqualTo(10);

        gate.update(RuleSet.of(FlowRule.builder("hello")
                .match("/hello")
                .limit(10, TEN_SECONDS)
                .scope(Scope.perOrigin())
                .maxOrigins(500)
                .build()));

        assertThat(admitAll(gate, heavy)).isZero();
        assertThat(admitAll(gate, ip("203.0.113.2"))).isEqualTo(10);
    }

    @Test
    void perClientWindow_newTable_clientSeenLateInTheWindow_isFreeOnceTheReloadsWindowHasPassed() {
        Origin heavy = ip("203.0.113.1");
        HttpGate gate = gate(window(100, Scope.perOrigin()));
        assertThat(admitAll(gate, heavy)).isEqualTo(100);
        clock.advance(Duration.ofSeconds(1));

        gate.update(RuleSet.of(FlowRule.builder("hello")
                .match("/hello")
                .limit(100, TEN_SECONDS)
                .scope(Scope.perOrigin())
                .maxOrigins(500)
                .build())); // another table: the client is handed over when next seen
        clock.advance(Duration.ofMillis(8_500));
        assertThat(admitAll(gate, heavy))
                .as("9.5 s: still within the window of its 100")
                .isZero();

        // The README: as if counted at the reload (bucket 1), so the 100 leave the window at 12 s,
        // not a whole window after the client was next seen (19 s).
        clock.advance(Duration.ofSeconds(3));
        assertThat(admitAll(gate, heavy)).as("12.5 s").isEqualTo(100);
    }

    @Test
    void twoUpdatesAtOnce_theLaterIsInForce_andNoClientIsHandedOverTwice() throws Exception {
        Origin heavy = ip("203.0.113.1");
        // The first update's compilation stops at its clock reading until it is let go.
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicReference<Thread> holding = new AtomicReference<>();
        Clock stopping = () -> {
            if (Thread.currentThread() == holding.get()) {
                holding.set(null);
                held.countDown();
                try {
                    letGo.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return clock.nanoTime();
        };
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(window(10, Scope.perOrigin()))))
                .clock(stopping)
                .build();
        assertThat(admitAll(gate, heavy)).isEqualTo(10);
        RuleSet first = RuleSet.of(FlowRule.builder("hello")
                .match("/hello")
                .limit(10, TEN_SECONDS)
                .scope(Scope.perOrigin())
                .maxOrigins(500)
                .build());
        RuleSet second = RuleSet.of(FlowRule.builder("hello")
                .match("/hello")
                .limit(10, TEN_SECONDS)
                .scope(Scope.perOrigin())
                .maxOrigins(600)
                .build());

        Thread one = new Thread(() -> gate.update(first));
        holding.set(one);
        one.start();
        assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
        Thread two = new Thread(() -> gate.update(second));
        two.start();
        two.join(300); // finishes at once unless updates wait for each other
        assertThat(admitAll(gate, heavy)).as("10 counted, limit 10").isZero();
        letGo.countDown();
        one.join();
        two.join();

        assertThat(admitAll(gate, heavy)).as("10 counted, limit 10").isZero();
        assertThat(gate.rules()).as("the update called last").isEqualTo(second);
    }

    @Test
    void aChangedRule_keepsItsRejectionCounts_andTheClientsItRejectedMost_unlessItsModeChanges() {
        Origin heavy = ip("203.0.113.1");
        HttpGate gate = gate(window(2, Scope.perOrigin()));
        assertThat(admit(gate, heavy, 5)).isEqualTo(2);

        gate.update(RuleSet.of(FlowRule.builder("hello")
                .match("/hello")
                .limit(1, WindowSpec.of(Duration.ofSeconds(20), 10)) // even another window
                .scope(Scope.perOrigin())
                .build()));
        assertThat(admit(gate, heavy, 2)).as("2 counted, limit 1").isZero();

        assertThat(gate.rejections("hello").orElseThrow().total()).isEqualTo(5);
        assertThat(gate.statusJson()).contains("\"rejectedMost\":[{\"client\":\"203.0.113.1\",\"about\":5}]");

        gate.update(RuleSet.of(FlowRule.builder("hello")
                .match("/hello")
                .limit(1, WindowSpec.of(Duration.ofSeconds(20), 10))
                .scope(Scope.perOrigin())
                .shadow(true)
                .build()));
        assertThat(gate.rejections("hello").orElseThrow().total())
                .as("a shadow rule counts what it would have rejected, apart")
                .isZero();
    }

    @Test
    void otherScope_countsAfresh_anotherWindow_goesOnFromWhatWasCounted() {
        Origin client = ip("203.0.113.1");
        HttpGate gate = gate(window(10, Scope.all()));
        assertThat(admitAll(gate, client)).isEqualTo(10);

        gate.update(RuleSet.of(window(10, Scope.perOrigin())));
        assertThat(admitAll(gate, client)).as("another question: per client").isEqualTo(10);

        for (Scope scope : List.of(Scope.perOrigin(), Scope.all())) {
            gate.update(RuleSet.of(FlowRule.builder("hello")
                    .match("/hello")
                    .limit(12, WindowSpec.of(Duration.ofSeconds(20), 10))
                    .scope(scope)
                    .build()));
            assertThat(admitAll(gate, client))
                    .as("another window, %s: 10 counted, limit 12", scope)
                    .isEqualTo(scope.equals(Scope.all()) ? 12 : 2);
        }
    }

    @Test
    void inFlight_lowered_keepsTheRequestsInFlight_andTheirReleasesReachTheNewLimit() {
        for (Scope scope : List.of(Scope.all(), Scope.perOrigin())) {
            Origin client = ip("203.0.113.1");
            FlowRule five = FlowRule.builder("slots")
                    .match("/hello")
                    .inFlight(5)
                    .scope(scope)
                    .build();
            HttpGate gate = gate(five);
            List<Entry> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add((Entry) gate.enter("GET", "/hello", client));
            }

            gate.update(RuleSet.of(FlowRule.builder("slots")
                    .match("/hello")
                    .inFlight(4)
                    .scope(scope)
                    .build()));
            Decision fourth = gate.enter("GET", "/hello", client);
            assertThat(fourth.admitted()).as(scope + ": 3 in flight, limit 4").isTrue();
            assertThat(gate.enter("GET", "/hello", client).admitted()).isFalse();

            held.forEach(Entry::close);
            for (int i = 0; i < 3; i++) {
                assertThat(gate.enter("GET", "/hello", client).admitted())
                        .as(scope + ": the old entries' slots came back to the new limit")
                        .isTrue();
            }
            assertThat(gate.enter("GET", "/hello", client).admitted()).isFalse();
        }
    }

    @Test
    void manyThreads_whileTheLimitChanges_neverAFreshAllowance_exactlyTheLastLimitAtTheEnd() throws Exception {
        for (Scope scope : List.of(Scope.all(), Scope.perOrigin())) {
            // 200 and 250 fit 8-bit buckets per client, 300 needs 16: the reloads alternate
            // between keeping the table and handing clients over to a table of wider buckets.
            List<FlowRule> versions = new ArrayList<>();
            for (long limit : new long[] {200, 300, 250, 300, 200, 300}) {
                versions.add(window(limit, scope));
            }
            assertThat(admittedWhileReloading(versions, new long[] {0, 150, 260, 240, 280, 200}))
                    .as(scope + ": every admission counted across the reloads; the last limit is reached")
                    .isEqualTo(300);
        }
    }

    /**
     * As above, while each reload also changes the window or switches between reject and borrow:
     * the new window takes the old one over at its first decision, while threads still decide on
     * the old one.
     */
    @Test
    void manyThreads_whileTheWindowOrBorrowingChanges_neverAFreshAllowance_exactlyTheLastLimitAtTheEnd()
            throws Exception {
        WindowSpec twentySeconds = WindowSpec.of(Duration.ofSeconds(20), 10);
        for (Scope scope : List.of(Scope.all(), Scope.perOrigin())) {
            List<FlowRule> versions = List.of(
                    versioned(200, TEN_SECONDS, false, scope),
                    versioned(300, twentySeconds, false, scope),
                    versioned(250, twentySeconds, true, scope),
                    versioned(300, TEN_SECONDS, true, scope),
                    versioned(280, TEN_SECONDS, false, scope),
                    versioned(300, twentySeconds, true, scope));
            assertThat(admittedWhileReloading(versions, new long[] {0, 150, 260, 240, 270, 200}))
                    .as(scope + ": every admission counted across the reloads; the last limit is reached")
                    .isEqualTo(300);
        }
    }

    /**
     * What one client is admitted while four threads keep asking and a fifth puts each of {@code
     * versions} in force in turn, the next once {@code after[i]} were admitted, and then until the
     * last version rejects. The clock stands still, so nothing leaves a window.
     */
    private long admittedWhileReloading(List<FlowRule> versions, long[] after) throws InterruptedException {
        Origin client = ip("203.0.113.9");
        HttpGate gate = gate(versions.get(0));
        AtomicLong admitted = new AtomicLong();
        AtomicBoolean reloading = new AtomicBoolean(true);
        Together.run(5, id -> {
            if (id == 0) {
                for (int i = 1; i < versions.size(); i++) {
                    while (admitted.get() < after[i]) {
                        Thread.onSpinWait();
                    }
                    gate.update(RuleSet.of(versions.get(i)));
                }
                reloading.set(false);
                return;
            }
            while (reloading.get()) {
                admitted.addAndGet(admit(gate, client, 1));
            }
        });
        return admitted.get() + admitAll(gate, client);
    }

    private static FlowRule versioned(long limit, WindowSpec window, boolean borrowing, Scope scope) {
        FlowRule.Builder rule =
                FlowRule.builder("hello").match("/hello").limit(limit, window).scope(scope);
        return (borrowing ? rule.onExcess(OnExcess.borrow(Duration.ZERO)) : rule).build();
    }

    // Reloads that change a per-client window's layout less than a window apart: each hands the
    // client's count over as one word, dated at its newest bucket with a count; dated at each
    // hand-over instead, the 8 permits of 0 ms were carried on and on, the client never admitted.

    private static FlowRule eightPerSecond(int buckets) {
        return FlowRule.builder("x")
                .match("/x")
                .limit(8, WindowSpec.of(Duration.ofSeconds(1), buckets))
                .scope(Scope.perOrigin())
                .build();
    }

    private static Origin theClient() {
        return Origin.ip(IpAddress.parse("203.0.113.1"), 64);
    }

    private static boolean admittedX(HttpGate gate) {
        Decision d = gate.enter("GET", "/x", theClient());
        if (d instanceof Entry e) {
            e.close();
            return true;
        }
        return false;
    }

    @Test
    void reloadsChangingTheLayout_lessThanAWindowApart_carryAClientsCountNoLongerThanItCounts() {
        ManualClock clock = new ManualClock();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(eightPerSecond(10))))
                .clock(clock)
                .build();
        for (int i = 0; i < 8; i++) {
            assertThat(admittedX(gate)).isTrue(); // 8 at 0 ms: the client's limit
        }
        assertThat(admittedX(gate)).isFalse();
        // Reloads every 700 ms, the window's layout changing each time (10 buckets, then 4, ...);
        // the client keeps knocking every 50 ms, and nothing else is ever admitted.
        int version = 0;
        for (long t = 50; t <= 5_000; t += 50) {
            clock.advanceNanos(50_000_000L);
            if (t % 700 == 0) {
                version++;
                gate.update(RuleSet.of(eightPerSecond(version % 2 == 0 ? 10 : 4)));
            }
            if (admittedX(gate)) {
                // The 8 admitted at 0 ms may count, by the README, for one window (1 s) and one old
                // bucket (at most 250 ms) after each reload's take-over: admitted by 2.4 s at the latest.
                assertThat(t).isLessThanOrEqualTo(2_400);
                return;
            }
        }
        throw new AssertionError("the client's 8 permits of 0 ms still count at 5 s, 5 windows later");
    }
}
