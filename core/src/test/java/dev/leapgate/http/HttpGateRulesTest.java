package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.Rejection;
import dev.leapgate.Sleeper;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.OriginList;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.testing.Configs;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The HTTP rule engine of {@link HttpGate}: which rules apply to a request, how several rules
 * combine, what a rejection gives back, the controllers, exemptions and denials, reloads, and
 * exact totals under contention.
 */
class HttpGateRulesTest {

    private static final Duration MS = Duration.ofMillis(1);

    private final ManualClock clock = new ManualClock();
    /** Sleeps by advancing the fake clock, as if the thread had waited. */
    private final Sleeper sleeper = nanos -> clock.advanceNanos(nanos);

    private HttpGate gate(FlowRule... rules) {
        return HttpGate.builder(Configs.withRules(RuleSet.of(rules)))
                .clock(clock)
                .sleeper(sleeper)
                .build();
    }

    private static Origin ip(String address) {
        return Origin.ip(IpAddress.parse(address), 64);
    }

    private static FlowRule.Builder rule(String name, String match) {
        return FlowRule.builder(name).match(match);
    }

    private static WindowSpec seconds(int seconds) {
        return WindowSpec.of(Duration.ofSeconds(seconds), 10);
    }

    @Test
    void requestMatchingNoRule_isAdmittedWithoutQuotas_andRecordsNothing() {
        HttpGate gate = gate(rule("api", "/api/**").limit(1, seconds(1)).build());

        Decision d = gate.enter("GET", "/health", ip("203.0.113.1"));

        assertThat(d).isInstanceOf(Entry.class);
        assertThat(d.quotas()).isEmpty();
        ((Entry) d).close();
        assertThat(gate.stats("/api/**").orElseThrow().lastMinute().admitted()).isZero();
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.1")).admitted()).isTrue();
    }

    @Test
    void perOriginRule_limitsEachClientSeparately() {
        HttpGate gate = gate(rule("per-ip", "/api/**")
                .limit(2, seconds(10))
                .scope(Scope.perOrigin())
                .build());
        Origin a = ip("203.0.113.1");
        Origin b = ip("203.0.113.2");

        gate.enter("GET", "/api/x", a);
        gate.enter("GET", "/api/x", a);

        assertThat(gate.enter("GET", "/api/x", a).admitted()).isFalse();
        assertThat(gate.enter("GET", "/api/x", b).admitted()).isTrue();
    }

    @Test
    void complete_countsNoResponseAnd5xxAsFailures_everythingElseAsSuccess_andClosesOnce() {
        HttpGate gate = gate(rule("slots", "/x").inFlight(10).build());
        int[] statuses = {200, 204, 302, 404, 429, 499, 500, 503, HttpGate.NO_RESPONSE};
        List<Entry> entries = new ArrayList<>();
        for (int status : statuses) {
            Entry entry = (Entry) gate.enter("GET", "/x", ip("203.0.113.1"));
            HttpGate.complete(entry, status);
            HttpGate.complete(entry, 500); // a second completion changes nothing
            entries.add(entry);
        }
        HttpGate.complete(gate.enter("GET", "/nothing-limits-this", ip("203.0.113.1")), 500); // no entry: nothing to do

        assertThat(entries).allSatisfy(e -> assertThat(e.isClosed()).isTrue());
        assertThat(entries)
                .extracting(Entry::isFailed)
                .containsExactly(false, false, false, false, false, false, true, true, true);
        StatsSnapshot stats = gate.stats("/x").orElseThrow().lastMinute();
        assertThat(stats.succeeded()).isEqualTo(6);
        assertThat(stats.failed()).isEqualTo(3);
        assertThat(stats.inFlight()).isZero();
    }

    @Test
    void requestIsAdmittedOnlyIfEveryMatchingRuleAdmits_andTheRejectionNamesTheRule() {
        HttpGate gate = gate(
                rule("per-ip", "/api/**")
                        .limit(2, seconds(10))
                        .scope(Scope.perOrigin())
                        .build(),
                rule("global", "/api/**").limit(3, seconds(10)).build());

        gate.enter("GET", "/api/x", ip("203.0.113.1"));
        gate.enter("GET", "/api/x", ip("203.0.113.1"));
        Rejection byIp = (Rejection) gate.enter("GET", "/api/x", ip("203.0.113.1"));
        gate.enter("GET", "/api/x", ip("203.0.113.2"));
        Rejection byGlobal = (Rejection) gate.enter("GET", "/api/x", ip("203.0.113.3"));

        assertThat(byIp.rule()).isEqualTo("per-ip");
        assertThat(byIp.reason()).isEqualTo("limit exceeded");
        assertThat(byIp.quota().limit()).isEqualTo(2);
        assertThat(byGlobal.rule()).isEqualTo("global");
        assertThat(byGlobal.quota().remaining()).isZero();
        assertThat(gate.rejections("per-ip").orElseThrow().limitExceeded())
                .as("each rejection is the rejecting rule's")
                .isEqualTo(1);
        assertThat(gate.rejections("global").orElseThrow().limitExceeded()).isEqualTo(1);
        assertThat(gate.rejections("no-such-rule")).isEmpty();
    }

    @Test
    void rejectionByALaterRule_givesBackThePermitsOfEarlierOnes() {
        HttpGate gate = gate(
                rule("global", "/api/**").limit(3, seconds(10)).build(),
                rule("per-ip", "/api/**")
                        .limit(1, seconds(10))
                        .scope(Scope.perOrigin())
                        .build());
        Origin greedy = ip("203.0.113.1");
        gate.enter("GET", "/api/x", greedy);

        for (int i = 0; i < 10; i++) {
            assertThat(gate.enter("GET", "/api/x", greedy).admitted()).isFalse();
        }

        // The ten rejections took nothing from the global limit: two more clients fit.
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.2")).admitted()).isTrue();
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.3")).admitted()).isTrue();
        assertThat(((Rejection) gate.enter("GET", "/api/x", ip("203.0.113.4"))).rule())
                .isEqualTo("global");
    }

    @Test
    void rejectionByARateRule_releasesAnEarlierInFlightSlot() {
        HttpGate gate = gate(
                rule("slots", "/export").inFlight(1).build(),
                rule("rate", "/export").limit(1, seconds(10)).build());
        Entry first = (Entry) gate.enter("POST", "/export", ip("203.0.113.1"));
        first.close();

        assertThat(gate.enter("POST", "/export", ip("203.0.113.1")).admitted()).isFalse();

        // Had the rejected request kept its slot, the in-flight rule would reject here.
        clock.advance(Duration.ofSeconds(12));
        assertThat(gate.enter("POST", "/export", ip("203.0.113.1")).admitted()).isTrue();
    }

    @Test
    void inFlightRule_releasesItsSlotWhenTheEntryCloses_onlyOnce() {
        HttpGate gate = gate(rule("slots", "/export").inFlight(1).build());
        Entry entry = (Entry) gate.enter("POST", "/export", ip("203.0.113.1"));
        Rejection full = (Rejection) gate.enter("POST", "/export", ip("203.0.113.2"));

        entry.close();
        Entry next = (Entry) gate.enter("POST", "/export", ip("203.0.113.2"));
        entry.close();

        assertThat(full.quota().isInFlight()).isTrue();
        assertThat(full.retryAfter()).isZero();
        assertThat(gate.enter("POST", "/export", ip("203.0.113.3")).admitted()).isFalse();
        next.close();
    }

    @Test
    void pacedRule_spacesAdmissionsExactlyWOverNApart() {
        HttpGate gate = gate(rule("paced", "/submit")
                .limit(10, seconds(1))
                .onExcess(OnExcess.pace(Duration.ofMillis(250)))
                .build());
        List<Long> starts = new ArrayList<>();

        for (int i = 0; i < 4; i++) {
            starts.add(((Entry) gate.enter("POST", "/submit", ip("203.0.113.1"))).startNanos());
        }

        assertThat(starts).containsExactly(0L, 100_000_000L, 200_000_000L, 300_000_000L);
    }

    @Test
    void pacedRule_rejectsWhatWouldWaitLongerThanMaxQueue() {
        AtomicLong slept = new AtomicLong();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(rule("paced", "/submit")
                        .limit(10, seconds(1))
                        .onExcess(OnExcess.pace(Duration.ofMillis(250)))
                        .build())))
                .clock(clock)
                .sleeper(slept::addAndGet) // time does not move: requests pile up
                .build();

        for (int i = 0; i < 3; i++) {
            assertThat(gate.enter("POST", "/submit", ip("203.0.113.1")).admitted())
                    .isTrue();
        }
        Rejection r = (Rejection) gate.enter("POST", "/submit", ip("203.0.113.1"));

        assertThat(slept.get()).isEqualTo(300_000_000L); // waits of 0, 100 and 200 ms
        assertThat(r.rule()).isEqualTo("paced");
        assertThat(r.retryAfter()).isEqualTo(Duration.ofMillis(50)); // the 300 ms slot, 250 ms max queue
    }

    /**
     * A request that a slower rule makes wait longer than a global pace's queue took its turn in the
     * global schedule where it would go on: every other request of the site was rejected until then.
     */
    @Test
    void aRequestASlowRuleMakesWaitLong_doesNotBlockAGlobalPace() {
        AtomicLong slept = new AtomicLong();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(
                        rule("global", "/**")
                                .limit(100, seconds(1))
                                .onExcess(OnExcess.pace(Duration.ofMillis(500)))
                                .build(),
                        rule("report", "/report")
                                .limit(1, seconds(30))
                                .onExcess(OnExcess.pace(Duration.ofMinutes(1)))
                                .build())))
                .clock(clock)
                .sleeper(slept::addAndGet) // time moves only when the test moves it
                .build();
        assertThat(gate.enter("GET", "/report", ip("203.0.113.1")).admitted()).isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThat(gate.enter("GET", "/report", ip("203.0.113.1")).admitted()).isTrue();
        assertThat(slept.get()).as("the second report waits for its turn").isEqualTo(29_000_000_000L);

        int admitted = 0;
        for (int i = 0; i < 40; i++) { // 20 a second, for 2 s
            clock.advance(Duration.ofMillis(50));
            admitted += gate.enter("GET", "/home", ip("203.0.113.2")).admitted() ? 1 : 0;
        }

        assertThat(admitted).isEqualTo(40);
    }

    @Test
    void pacedRequestThatWaited_getsTheFieldsOfTheScheduleWhenItGoesOn() {
        HttpGate gate = gate(rule("paced", "/submit")
                .limit(10, seconds(1))
                .onExcess(OnExcess.pace(Duration.ofMillis(100)))
                .build());
        ((Entry) gate.enter("POST", "/submit", ip("203.0.113.1"))).close(); // the turn at 0

        Entry waited = (Entry) gate.enter("POST", "/submit", ip("203.0.113.1")); // the turn at 100 ms
        java.util.Map<String, String> fields = new java.util.LinkedHashMap<>();
        gate.admittedHeaders(waited, fields::put);
        waited.close();

        // At 100 ms the next turn, at 200 ms, is within max-queue: the client may send one more.
        assertThat(fields).containsEntry("RateLimit", "\"paced\";r=1;t=1");
        assertThat(gate.enter("POST", "/submit", ip("203.0.113.1")).admitted()).isTrue();
    }

    @Test
    void requestThatWaitedForAPacedTurn_isToldWhatItsWindowHoldsWhenItGoesOn() {
        java.util.concurrent.atomic.AtomicBoolean timePasses = new java.util.concurrent.atomic.AtomicBoolean(true);
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(
                        rule("window", "/submit")
                                .limit(
                                        2,
                                        new WindowSpec(Duration.ofMillis(200), 2, dev.leapgate.rule.WindowMode.SLIDING))
                                .build(),
                        rule("paced", "/submit")
                                .limit(5, seconds(1)) // a turn every 200 ms
                                .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                                .build())))
                .clock(clock)
                .sleeper(nanos -> clock.advanceNanos(timePasses.get() ? nanos : 0))
                .build();
        ((Entry) gate.enter("POST", "/submit", ip("203.0.113.1"))).close();

        // Decided at 0 in bucket [0, 100 ms), the window's second: it goes on at its turn, 200 ms.
        Entry waited = (Entry) gate.enter("POST", "/submit", ip("203.0.113.1"));
        java.util.Map<String, String> fields = new java.util.LinkedHashMap<>();
        gate.admittedHeaders(waited, fields::put);
        waited.close();

        assertThat(waited.startNanos()).isEqualTo(200_000_000L);
        // By then [0, 100 ms) has left the sliding window, which counts the request when it goes
        // on, in [200 ms, 300 ms): it holds that one alone, until 400 ms.
        assertThat(waited.quotas())
                .filteredOn(q -> q.rule().equals("window"))
                .singleElement()
                .extracting(Quota::remaining, Quota::reset)
                .containsExactly(1L, Duration.ofMillis(200));
        assertThat(fields).containsEntry("RateLimit", "\"window\";r=1;t=1, \"paced\";r=5;t=1");
        timePasses.set(false); // the next requests all come at 200 ms
        assertThat(gate.enter("POST", "/submit", ip("203.0.113.1")).admitted()).isTrue();
        assertThat(((Rejection) gate.enter("POST", "/submit", ip("203.0.113.1"))).rule())
                .isEqualTo("window");
    }

    @Test
    void borrowingRule_lendsFromTheNextBucket_andTheRequestWaitsForIt() {
        HttpGate gate = gate(rule("bursty", "/api/**")
                .limit(2, seconds(1))
                .onExcess(OnExcess.borrow(Duration.ofMillis(100)))
                .build());
        gate.enter("GET", "/api/x", ip("203.0.113.1"));
        gate.enter("GET", "/api/x", ip("203.0.113.1"));
        clock.advance(Duration.ofMillis(1050)); // the strict window still counts bucket [0, 100ms)

        Entry borrowed = (Entry) gate.enter("GET", "/api/x", ip("203.0.113.1"));

        // It borrowed from bucket [1100, 1200ms), where [0, 100ms) has left the window.
        assertThat(borrowed.startNanos()).isEqualTo(Duration.ofMillis(1100).toNanos());
        assertThat(clock.nanoTime()).isEqualTo(Duration.ofMillis(1100).toNanos());
        StatsSnapshot m = gate.stats("/api/**").orElseThrow().lastMinute();
        assertThat(m.borrowed()).isEqualTo(1);
        assertThat(m.admitted()).isEqualTo(3);
        // The loan counts in the next bucket: one more fits there, not two.
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.1")).admitted()).isTrue();
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.1")).admitted()).isFalse();
    }

    @Test
    void borrowingRule_rejectsWhenTheNextBucketIsTooFarAway() {
        HttpGate gate = gate(rule("bursty", "/api/**")
                .limit(1, seconds(1))
                .onExcess(OnExcess.borrow(Duration.ofMillis(10)))
                .build());
        gate.enter("GET", "/api/x", ip("203.0.113.1"));
        clock.advance(Duration.ofMillis(1050)); // next bucket 50 ms away, more than 10 ms

        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.1")).admitted()).isFalse();
    }

    /** One request in flight, and 10 per second paced, on /submit. */
    private static RuleSet slotAndPace() {
        return RuleSet.of(
                rule("slots", "/submit").inFlight(1).build(),
                rule("paced", "/submit")
                        .limit(10, seconds(1))
                        .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                        .build());
    }

    @Test
    void interruptedWhileWaiting_givesBackPermits_keepsTheInterrupt_andRejects() {
        HttpGate gate = HttpGate.builder(Configs.withRules(slotAndPace()))
                .clock(clock)
                .sleeper(nanos -> {
                    throw new InterruptedException("test");
                })
                .build();
        ((Entry) gate.enter("POST", "/submit", ip("203.0.113.1"))).close(); // no wait: no sleep

        Decision d = gate.enter("POST", "/submit", ip("203.0.113.1")); // must wait 100 ms

        assertThat(Thread.interrupted())
                .as("interrupt status restored (and cleared here)")
                .isTrue();
        assertThat(d).isInstanceOf(Rejection.class);
        assertThat(((Rejection) d).reason()).isEqualTo("interrupted");
        assertThat(((Rejection) d).rule()).as("the rule it waited for").isEqualTo("paced");
        assertThat(gate.rejections("paced").orElseThrow().interrupted()).isEqualTo(1);
        assertThat(gate.rejections("slots").orElseThrow().total()).isZero();
        clock.advance(Duration.ofSeconds(5));
        assertThat(gate.enter("POST", "/submit", ip("203.0.113.1")).admitted())
                .as("the in-flight slot was given back")
                .isTrue();
    }

    @Test
    void aClockThatThrowsAfterTheWait_propagates_andTheRequestHoldsNothing() {
        java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean();
        dev.leapgate.Clock failing = () -> {
            if (broken.get()) {
                throw new IllegalStateException("clock failed");
            }
            return clock.nanoTime();
        };
        HttpGate gate = HttpGate.builder(Configs.withRules(slotAndPace()))
                .clock(failing)
                .sleeper(nanos -> {
                    clock.advanceNanos(nanos);
                    broken.set(true); // the reading after the wait fails
                })
                .build();
        ((Entry) gate.enter("POST", "/submit", ip("203.0.113.1"))).close(); // no wait: no sleep

        assertThatThrownBy(() -> gate.enter("POST", "/submit", ip("203.0.113.1"))) // must wait 100 ms
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("clock failed");

        broken.set(false);
        assertThat(gate.waits("paced").orElseThrow().waitingNow())
                .as("its wait is over")
                .isZero();
        clock.advance(Duration.ofSeconds(5));
        assertThat(gate.enter("POST", "/submit", ip("203.0.113.2")).admitted())
                .as("the in-flight slot was given back")
                .isTrue();
    }

    @Test
    void aClockThatThrowsAtClose_propagates_andTheEntryStillEnds() {
        java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean();
        dev.leapgate.Clock failing = () -> {
            if (broken.get()) {
                throw new IllegalStateException("clock failed");
            }
            return clock.nanoTime();
        };
        HttpGate gate = HttpGate.builder(Configs.withRules(
                        RuleSet.of(rule("slots", "/submit").inFlight(1).build())))
                .clock(failing)
                .build();
        Entry entry = (Entry) gate.enter("POST", "/submit", ip("203.0.113.1"));

        broken.set(true);
        assertThatThrownBy(entry::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("clock failed");
        broken.set(false);

        assertThat(entry.isClosed()).isTrue();
        entry.close(); // closed once: the slot is not given back twice
        assertThat(gate.enter("POST", "/submit", ip("203.0.113.2")).admitted())
                .as("the in-flight slot was given back")
                .isTrue();
        assertThat(gate.enter("POST", "/submit", ip("203.0.113.3")).admitted())
                .as("and only once")
                .isFalse();
    }

    @Test
    void exemptOrigins_bypassEveryRule_deniedOnesAreAlwaysRejected() {
        HttpGate gate = HttpGate.builder(Configs.withRules(new RuleSet(
                        List.of(rule("tight", "/**").limit(1, seconds(10)).build()),
                        OriginList.parse("10.0.0.0/8, health-checker"),
                        OriginList.parse("198.51.100.0/24"))))
                .clock(clock)
                .build();

        for (int i = 0; i < 5; i++) {
            assertThat(gate.enter("GET", "/x", ip("10.1.2.3")).admitted()).isTrue();
            assertThat(gate.enter("GET", "/x", Origin.id("health-checker")).admitted())
                    .isTrue();
        }
        Rejection denied = (Rejection) gate.enter("GET", "/not-limited-anyway", ip("198.51.100.7"));

        assertThat(denied.rule()).isEqualTo("deny");
        assertThat(denied.reason()).isEqualTo("origin 198.51.100.7 is denied");
        assertThat(gate.enter("GET", "/x", ip("203.0.113.1")).admitted()).isTrue();
        assertThat(gate.enter("GET", "/x", ip("203.0.113.1")).admitted()).isFalse();
    }

    @Test
    void lazyOrigin_isLookedUpOnlyWhenAPatternMatches_orSomeOriginIsDenied() {
        AtomicLong lookups = new AtomicLong();
        HttpGate gate = gate(rule("api", "/api/**").limit(1, seconds(10)).build());
        class Request implements HttpRequestView {
            final String path;

            Request(String path) {
                this.path = path;
            }

            @Override
            public String method() {
                return "GET";
            }

            @Override
            public String rawPath() {
                return path;
            }

            @Override
            public String remoteAddr() {
                lookups.incrementAndGet();
                return "203.0.113.1";
            }

            @Override
            public List<String> headers(String name) {
                return List.of();
            }

            @Override
            public String principal() {
                return null;
            }
        }

        assertThat(gate.enter(new Request("/static/app.js")).admitted()).isTrue();
        assertThat(lookups.get()).as("no pattern matched").isZero();
        assertThat(gate.enter(new Request("/api/x")).admitted()).isTrue();
        assertThat(gate.enter(new Request("/api/x")).admitted()).isFalse();
        assertThat(lookups.get()).as("once per matching request").isEqualTo(2);

        gate.update(new RuleSet(gate.rules().rules(), OriginList.empty(), OriginList.parse("198.51.100.0/24")));
        gate.enter(new Request("/static/app.js"));
        assertThat(lookups.get()).as("a deny list needs every request's origin").isEqualTo(3);
    }

    @Test
    void namedOriginRule_appliesToThatOriginOnly() {
        HttpGate gate = gate(rule("partner", "/api/**")
                .limit(1, seconds(10))
                .scope(Scope.origin("203.0.113.9"))
                .build());

        gate.enter("GET", "/api/x", ip("203.0.113.9"));

        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.9")).admitted()).isFalse();
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.8")).admitted()).isTrue();
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.8")).admitted()).isTrue();
    }

    @Test
    void quotas_listEveryMatchedRule_tightestFirst_asOfTheDecision() {
        FlowRule loose = rule("loose", "/api/**").limit(100, seconds(10)).build();
        FlowRule tight = rule("tight", "/api/**").limit(3, seconds(1)).build();
        HttpGate gate = gate(loose, tight);

        Decision d = gate.enter("GET", "/api/x", ip("203.0.113.1"));
        Decision later = gate.enter("GET", "/api/x", ip("203.0.113.1"));

        // Computed when first asked for, after the second admission, yet as of the first decision.
        assertThat(d.quotas()).extracting(Quota::rule).containsExactly("tight", "loose");
        assertThat(d.quotas()).extracting(Quota::remaining).containsExactly(2L, 99L);
        assertThat(later.quotas()).extracting(Quota::remaining).containsExactly(1L, 98L);
    }

    @Test
    void quotaReset_isWhenEverythingCountedAtTheDecisionHasLeftTheWindow() {
        HttpGate gate = gate(rule("r", "/x").limit(10, seconds(10)).build()); // 10 buckets of 1 s, strict
        gate.enter("GET", "/x", ip("203.0.113.1")); // bucket [0, 1s)
        clock.advance(Duration.ofMillis(2500));

        Quota quota = gate.enter("GET", "/x", ip("203.0.113.1")).quotas().get(0); // bucket [2s, 3s)

        // [2s, 3s) leaves the strict window at 13 s: 10.5 s from now (not 8.5 s, when [0, 1s) leaves).
        assertThat(quota.reset()).isEqualTo(Duration.ofMillis(10_500));
        assertThat(quota.remaining()).isEqualTo(8);
    }

    @Test
    void reload_keepsTheCountersOfUnchangedRules_andChangedOnesGoOnFromTheirCount() {
        FlowRule kept = rule("kept", "/a").limit(1, seconds(10)).build();
        FlowRule changed = rule("changed", "/b").limit(1, seconds(10)).build();
        HttpGate gate = gate(kept, changed);
        gate.enter("GET", "/a", ip("203.0.113.1"));
        gate.enter("GET", "/b", ip("203.0.113.1"));

        gate.update(RuleSet.of(kept, rule("changed", "/b").limit(2, seconds(10)).build()));

        assertThat(gate.enter("GET", "/a", ip("203.0.113.1")).admitted())
                .as("no fresh allowance")
                .isFalse();
        assertThat(gate.enter("GET", "/b", ip("203.0.113.1")).admitted())
                .as("the raised limit's difference")
                .isTrue();
        assertThat(gate.enter("GET", "/b", ip("203.0.113.1")).admitted())
                .as("and no more: the changed rule goes on from its count")
                .isFalse();
        assertThat(gate.stats("/a").orElseThrow().lastMinute().admitted())
                .as("statistics carried over")
                .isEqualTo(1);
        assertThat(gate.rules().rules()).extracting(FlowRule::name).containsExactly("kept", "changed");
    }

    /**
     * A version of the rules that leaves a rule out (a rules file read half-written, cut after a
     * whole rule; a rule commented out), then one that has it back: the rule takes back what it
     * counted, while its window could still count it, as unchanged and changed rules do. After
     * that, nothing of it is left to take back.
     */
    @Test
    void aRuleLeftOutOfOneVersion_andWrittenBack_takesBackItsCounts_whileItsWindowCouldHoldThem() {
        FlowRule a = rule("a", "/a").limit(2, seconds(60)).build();
        FlowRule b =
                rule("b", "/b").limit(2, seconds(60)).scope(Scope.perOrigin()).build();
        HttpGate gate = gate(a, b);
        for (int i = 0; i < 2; i++) {
            assertThat(gate.enter("GET", "/b", ip("203.0.113.1")).admitted()).isTrue();
        }
        assertThat(gate.enter("GET", "/b", ip("203.0.113.1")).admitted()).isFalse();

        gate.update(RuleSet.of(a)); // b left out
        assertThat(gate.enter("GET", "/b", ip("203.0.113.1")).admitted())
                .as("no rule on /b")
                .isTrue();
        clock.advance(Duration.ofSeconds(1));
        gate.update(RuleSet.of(a, b)); // and back

        assertThat(gate.enter("GET", "/b", ip("203.0.113.1")).admitted())
                .as("no fresh allowance")
                .isFalse();
        assertThat(gate.stats("/b").orElseThrow().totals())
                .as("its resource's statistics too (the request while no rule limited /b is not in them)")
                .extracting(t -> t.admitted(), t -> t.rejected())
                .containsExactly(2L, 2L);

        gate.update(RuleSet.of(a));
        clock.advance(Duration.ofSeconds(1));
        gate.update(RuleSet.of(
                a,
                rule("b", "/b").limit(3, seconds(60)).scope(Scope.perOrigin()).build()));
        assertThat(gate.enter("GET", "/b", ip("203.0.113.1")).admitted())
                .as("changed while left out: goes on from the count, the raised limit's difference")
                .isTrue();
        assertThat(gate.enter("GET", "/b", ip("203.0.113.1")).admitted()).isFalse();

        gate.update(RuleSet.of(a));
        clock.advance(Duration.ofSeconds(67)); // the window and a bucket: every count has left it
        gate.update(RuleSet.of(a)); // a later version, which no longer keeps it
        gate.update(RuleSet.of(a, b));
        assertThat(gate.enter("GET", "/b", ip("203.0.113.1")).admitted()).isTrue();
    }

    /**
     * A paced rule's turns may be booked further ahead than its window and a bucket (a queue of
     * 10 s on a 1 s window): left out and written back after the window, it started a fresh
     * schedule beside the requests still waiting for the old one's turns, twice its rate.
     */
    @Test
    void aPacedRuleLeftOutAndWrittenBack_goesOnAfterTheTurnsItBooked_beyondItsWindow() {
        FlowRule paced = rule("paced", "/submit")
                .limit(10, seconds(1))
                .onExcess(OnExcess.pace(Duration.ofSeconds(10)))
                .build();
        AtomicLong slept = new AtomicLong();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(paced)))
                .clock(clock)
                .sleeper(slept::addAndGet) // time moves only when the test moves it
                .build();
        for (int i = 0; i < 100; i++) {
            assertThat(gate.enter("POST", "/submit", ip("203.0.113.1")).admitted())
                    .isTrue();
        }

        gate.update(RuleSet.of()); // left out: 100 requests wait for turns up to 9.9 s
        clock.advance(Duration.ofSeconds(2));
        gate.update(RuleSet.of(paced)); // and back, after the window and a bucket
        slept.set(0);

        assertThat(gate.enter("POST", "/submit", ip("203.0.113.1")).admitted()).isTrue();
        assertThat(slept.get()).as("the turn after the 100 booked, at 10 s").isEqualTo(8_000_000_000L);
        clock.advance(Duration.ofSeconds(8));
        gate.update(RuleSet.of()); // left out once its schedule is free: nothing to keep
        clock.advance(Duration.ofSeconds(2));
        gate.update(RuleSet.of());
        gate.update(RuleSet.of(paced));
        slept.set(0);
        assertThat(gate.enter("POST", "/submit", ip("203.0.113.1")).admitted()).isTrue();
        assertThat(slept.get()).isZero();
    }

    @Test
    void entryAdmittedBeforeAReload_releasesIntoTheCounterThatAdmittedIt() {
        FlowRule slots = rule("slots", "/export").inFlight(1).build();
        HttpGate gate = gate(slots);
        Entry old = (Entry) gate.enter("POST", "/export", ip("203.0.113.1"));

        gate.update(RuleSet.of(slots)); // unchanged: same counter
        assertThat(gate.enter("POST", "/export", ip("203.0.113.1")).admitted()).isFalse();
        old.close();

        assertThat(gate.enter("POST", "/export", ip("203.0.113.1")).admitted()).isTrue();
    }

    @Test
    void permitsAboveALimit_areRejectedWithoutTouchingOtherRules() {
        HttpGate gate = gate(
                rule("big", "/x").limit(100, seconds(1)).build(),
                rule("small", "/x").limit(2, seconds(1)).build());

        Rejection r = (Rejection) gate.enter("GET", "/x", ip("203.0.113.1"), 3);

        assertThat(r.rule()).isEqualTo("small");
        assertThat(r.reason()).isEqualTo("request needs more permits than the limit");
        assertThat(gate.rejections("small").orElseThrow())
                .isEqualTo(new dev.leapgate.stats.RejectionCounts(0, 0, 1, 0, 0));
        assertThat(gate.rejections("big").orElseThrow().total()).isZero();
        assertThat(gate.enter("GET", "/x", ip("203.0.113.1"), 2).quotas())
                .extracting(Quota::remaining)
                .containsExactly(0L, 98L);
        assertThatThrownBy(() -> gate.enter("GET", "/x", ip("203.0.113.1"), 0))
                .hasMessage("permits must be at least 1, was 0");
    }

    @Test
    void originTableFullOfRequestsInFlight_rejectsNewOriginsWithAReason() {
        HttpGate gate = gate(rule("per-ip", "/**")
                .inFlight(1)
                .scope(Scope.perOrigin())
                .maxOrigins(20)
                .build());
        for (int i = 0; i < 20; i++) {
            assertThat(gate.enter("GET", "/", ip("203.0.113." + i))).isInstanceOf(Entry.class); // never closed
        }

        Rejection r = (Rejection) gate.enter("GET", "/", ip("198.51.100.1"));

        assertThat(r.reason()).isEqualTo("too many origins tracked");
        assertThat(gate.rejections("per-ip").orElseThrow())
                .isEqualTo(new dev.leapgate.stats.RejectionCounts(0, 1, 0, 0, 0));
    }

    @Test
    void originTableFullOfLimitedClients_tracksNewOnes_andAnEvictedClientComesBackLimited() {
        HttpGate gate = gate(rule("per-ip", "/**")
                .limit(1, seconds(10))
                .scope(Scope.perOrigin())
                .maxOrigins(20)
                .build());
        for (int i = 0; i < 20; i++) {
            ((Entry) gate.enter("GET", "/", ip("203.0.113." + i))).close();
        }

        assertThat(gate.enter("GET", "/", ip("198.51.100.1")))
                .as("a new client takes the place of a limited one")
                .isInstanceOf(Entry.class);
        assertThat(gate.trackedOrigins("per-ip")).hasValue(20);
        for (int i = 0; i < 20; i++) {
            Rejection r = (Rejection) gate.enter("GET", "/", ip("203.0.113." + i));
            assertThat(r.reason()).as("client %d", i).isEqualTo("limit exceeded");
        }
    }

    @Test
    void trackedOrigins_countsThePerOriginTable_upToMaxOrigins_andIsEmptyForOtherRules() {
        HttpGate gate = gate(
                rule("per-ip", "/**")
                        .limit(2, seconds(10))
                        .scope(Scope.perOrigin())
                        .maxOrigins(50)
                        .build(),
                rule("all", "/**").limit(1_000, seconds(10)).build());
        assertThat(gate.trackedOrigins("per-ip")).hasValue(0);

        for (int i = 0; i < 200; i++) {
            if (gate.enter("GET", "/", ip("10.0." + (i / 250) + "." + (i % 250))) instanceof Entry entry) {
                entry.close();
            }
        }

        assertThat(gate.trackedOrigins("per-ip")).hasValue(50);
        assertThat(gate.trackedOrigins("all")).isEmpty();
        assertThat(gate.trackedOrigins("no-such-rule")).isEmpty();
    }

    /**
     * Threads mix clients against a per-origin window, a global window and a global in-flight
     * limit. No window is ever exceeded despite give-backs, and every slot comes back.
     */
    @Test
    void manyThreads_multipleRules_exactTotals_andNoLeakedSlot() throws Exception {
        int threads = 8;
        int attempts = 20_000;
        HttpGate gate = gate(
                rule("slots", "/api/**").inFlight(3).build(),
                rule("per-ip", "/api/**")
                        .limit(50, seconds(10))
                        .scope(Scope.perOrigin())
                        .build(),
                rule("global", "/api/**").limit(200, seconds(10)).build());
        AtomicLong admitted = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        Together.run(threads, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < attempts; i++) {
                Origin origin = ip("203.0.113." + random.nextInt(8));
                if (gate.enter("GET", "/api/x", origin) instanceof Entry entry) {
                    admitted.incrementAndGet();
                    entry.close();
                } else {
                    rejected.incrementAndGet();
                }
            }
        });

        assertThat(admitted.get() + rejected.get()).isEqualTo((long) threads * attempts);
        assertThat(admitted.get())
                .as("the global window, never exceeded, reached")
                .isEqualTo(200);
        StatsSnapshot m = gate.stats("/api/**").orElseThrow().lastMinute();
        assertThat(m.inFlight()).isZero();
        assertThat(m.admitted()).isEqualTo(200);
        long byRule = 0;
        for (String name : List.of("slots", "per-ip", "global")) {
            byRule += gate.rejections(name).orElseThrow().total();
        }
        assertThat(byRule)
                .as("every rejection is one rule's, counted once")
                .isEqualTo(rejected.get())
                .isEqualTo(m.rejected());
        assertThat(secondsOf(gate, "global"))
                .as("the current second is not whole yet")
                .containsOnly(0L);
        assertThat(gate.enter("GET", "/api/x", ip("198.51.100.1")).admitted())
                .as("all in-flight slots came back, the global window is full")
                .isFalse();
        clock.advance(Duration.ofSeconds(1));
        long[] bySecond = secondsOf(gate, "global");
        assertThat(bySecond[59])
                .as("the global rule's rejections, all in the second before this one")
                .isEqualTo(gate.rejections("global").orElseThrow().total())
                .isPositive();
    }

    /** A rule's rejections of the last minute, second by second, from the status JSON. */
    private static long[] secondsOf(HttpGate gate, String rule) {
        String json = gate.statusJson();
        int at = json.indexOf("\"rejectedBySecond\":[", json.indexOf("{\"name\":\"" + rule + "\""));
        String list = json.substring(json.indexOf('[', at) + 1, json.indexOf(']', at));
        return java.util.Arrays.stream(list.split(","))
                .mapToLong(Long::parseLong)
                .toArray();
    }
}
