package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Clock;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.Rejection;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Configs;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The retry time and {@code RateLimit} reset of a rejection when a reload changes the rule's window
 * and lowers its limit: always the true time until the window in force admits again (bounded by a
 * window and a bucket), or no wait when no wait can admit the request, never "never".
 *
 * <p>A rejection's retry and quota are computed when asked, from the counters of the rule's version
 * that decided it. Once the new version has taken the old one's counts over (its first use), the
 * old version's window hands every read on to it: a rejection decided on the old version, or
 * answered after the new one took over, reads the new window, with the new limit. The race of a
 * request that read the rules before the reload and is decided after the new version's first use is
 * made exact with a clock that runs the reload and that first use at the request's clock reading,
 * after it read the rules and before its decision.
 *
 * <p>A per-client rule whose new version has a table of its own (another window, or a limit that
 * needs wider buckets) takes each client over when it first sees it; from then on the old table hands
 * a decision or a read for that client on to the new one, as the counter of a rule of everyone does
 * once taken over. So the same answers hold for both scopes, and a request decided on the old
 * version is never refused as untracked because its client moved.
 *
 * <p>Every window is strict with 10 buckets. Eight requests are admitted one second apart from 0 s,
 * and the clock then reads 7.5 s.
 */
class RetryAcrossReloadTest {

    private static final long MS = 1_000_000L;

    private final ManualClock time = new ManualClock();
    /** Run at the clock's next reading, once. */
    private final AtomicReference<Runnable> atNextReading = new AtomicReference<>();

    private final Clock clock = () -> {
        Runnable step = atNextReading.getAndSet(null);
        if (step != null) {
            step.run();
        }
        return time.nanoTime();
    };

    private final Origin client = Origin.ip(IpAddress.parse("203.0.113.1"), 64);

    private static FlowRule window(long limit, int seconds, Scope scope) {
        return FlowRule.builder("hello")
                .match("/hello")
                .limit(limit, WindowSpec.of(Duration.ofSeconds(seconds), 10))
                .scope(scope)
                .build();
    }

    /** A gate of {@code rule} that admitted 8 requests, at 0, 1, ..., 7 s; the clock reads 7.5 s. */
    private HttpGate gateThatAdmittedEight(FlowRule rule) {
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(rule)))
                .clock(clock)
                .build();
        for (int i = 0; i < 8; i++) {
            time.advanceNanos(i == 0 ? 0 : 1000 * MS);
            ((Entry) gate.enter("GET", "/hello", client)).close();
        }
        time.advanceNanos(500 * MS);
        return gate;
    }

    private Decision enter(HttpGate gate, int permits) {
        return gate.enter("GET", "/hello", client, permits);
    }

    private static Scope scope(String name) {
        return name.equals("all") ? Scope.all() : Scope.perOrigin();
    }

    /**
     * 10 per 10 s lowered to 3 per 20 s: the new window takes the 8 over as counted in its bucket
     * where the old one's at 7 s ends ([6 s, 8 s)), which leaves it at 28 s: 20.5 s from now.
     */
    @ParameterizedTest
    @ValueSource(strings = {"all", "per-origin"})
    void decidedOnTheOldVersion_afterTheNewOneTookItsCountsOver_forMoreThanTheNewLimit_noWaitNot292Years(
            String scopeName) {
        Scope scope = scope(scopeName);
        HttpGate gate = gateThatAdmittedEight(window(10, 10, scope));

        // The request reads the rules; then, before it decides, the reload and the new version's first use.
        atNextReading.set(() -> {
            gate.update(RuleSet.of(window(3, 20, scope)));
            assertThat(enter(gate, 1).admitted()).as("8 counted, limit 3").isFalse();
        });
        Decision decision = enter(gate, 5);

        Rejection rejection = (Rejection) decision;
        assertThat(rejection.rule()).isEqualTo("hello");
        assertThat(rejection.reason())
                .as("decided by the new version, not refused as untracked by the old table")
                .isEqualTo("limit exceeded");
        assertThat(rejection.retryAfter())
                .as("5 permits never fit the limit of 3 in force: no wait admits them")
                .isZero();
        assertThat(rejection.quota().reset())
                .as("until the new window counts nothing")
                .isEqualTo(Duration.ofMillis(20_500));
        Map<String, String> headers = gate.rejection(rejection).headers();
        assertThat(headers).containsEntry("Retry-After", "1").containsEntry("RateLimit", "\"hello\";r=2;t=21");
    }

    @ParameterizedTest
    @ValueSource(strings = {"all", "per-origin"})
    void decidedOnTheOldVersion_afterTheNewOneTookItsCountsOver_onePermit_retryAndResetAreTheNewWindows(
            String scopeName) {
        Scope scope = scope(scopeName);
        HttpGate gate = gateThatAdmittedEight(window(10, 10, scope));

        atNextReading.set(() -> {
            gate.update(RuleSet.of(window(3, 20, scope)));
            assertThat(enter(gate, 1).admitted()).isFalse();
        });
        Rejection rejection = (Rejection) enter(gate, 1);

        assertThat(rejection.reason()).isEqualTo("limit exceeded");

        assertThat(rejection.retryAfter()).isEqualTo(Duration.ofMillis(20_500));
        assertThat(rejection.quota().reset()).isEqualTo(Duration.ofMillis(20_500));
        assertThat(gate.rejection(rejection).headers())
                .containsEntry("Retry-After", "21")
                .containsEntry("RateLimit", "\"hello\";r=2;t=21");
    }

    /**
     * No race: a rejection by the old version whose response is written after a reload and one
     * request under the new version (a rejection is computed when asked) reads the new window.
     */
    @ParameterizedTest
    @ValueSource(strings = {"all", "per-origin"})
    void rejectedBeforeAReload_answeredAfterTheNewVersionsFirstUse_retryAndResetAreTheNewWindows(String scopeName) {
        Scope scope = scope(scopeName);
        HttpGate gate = gateThatAdmittedEight(window(8, 10, scope));
        Rejection single = (Rejection) enter(gate, 1);
        Rejection triple = (Rejection) enter(gate, 3);

        gate.update(RuleSet.of(window(3, 20, scope)));
        assertThat(enter(gate, 1).admitted()).isFalse();

        for (Rejection rejection : new Rejection[] {single, triple}) {
            assertThat(rejection.retryAfter()).isEqualTo(Duration.ofMillis(20_500));
            assertThat(rejection.quota().reset()).isEqualTo(Duration.ofMillis(20_500));
            assertThat(gate.rejection(rejection).headers())
                    .containsEntry("Retry-After", "21")
                    .containsEntry("RateLimit", "\"hello\";r=0;t=21");
        }
        Rejection four = (Rejection) enter(gate, 4);
        assertThat(four.retryAfter())
                .as("more than the limit: no wait admits it")
                .isZero();
    }

    /**
     * Another rule rejects the request; the changed rule, which applied too, would never admit it
     * now (more than its new limit): it holds the retry back by nothing, and is not listed.
     */
    @Test
    void anotherRuleRejects_theChangedRuleCanNeverAdmitTheRequestNow_holdsTheRetryBackByNothing() {
        FlowRule other = FlowRule.builder("other")
                .match("/hello")
                .limit(10, WindowSpec.of(Duration.ofSeconds(1), 10))
                .build();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(other, window(20, 10, Scope.all()))))
                .clock(clock)
                .build();
        for (int i = 0; i < 8; i++) {
            ((Entry) enter(gate, 1)).close();
        }
        atNextReading.set(() -> {
            gate.update(RuleSet.of(other, window(3, 20, Scope.all())));
            assertThat(((Rejection) enter(gate, 1)).rule()).isEqualTo("hello");
        });
        Rejection rejection = (Rejection) enter(gate, 5); // 8 + 5 > 10

        assertThat(rejection.rule()).isEqualTo("other");
        assertThat(rejection.retryAfter())
                .as("the other rule's: its 100-ms bucket at 0 s leaves its window at 1.1 s")
                .isEqualTo(Duration.ofMillis(1100));
        assertThat(gate.rejection(rejection).headers())
                .containsEntry("Retry-After", "2")
                .containsEntry("RateLimit", "\"other\";r=2;t=2");
    }

    /**
     * A raised limit: a request that read the rules before the reload, decided after its client
     * moved to the new version's table, is the new version's to admit (9 of 20 counted), not
     * refused as untracked by the old table; and the new table counts it once.
     */
    @Test
    void perClient_decidedOnTheOldVersion_afterTheClientMoved_isAdmittedByTheNewVersion_countedOnce() {
        HttpGate gate = gateThatAdmittedEight(window(10, 10, Scope.perOrigin()));

        atNextReading.set(() -> {
            gate.update(RuleSet.of(window(20, 20, Scope.perOrigin())));
            ((Entry) enter(gate, 1)).close(); // the client moves: 9 counted
        });
        Decision decision = enter(gate, 1);

        assertThat(decision)
                .as("%s", decision instanceof Rejection r ? r.reason() : "")
                .isInstanceOf(Entry.class);
        ((Entry) decision).close();
        int more = 0;
        while (enter(gate, 1) instanceof Entry entry) {
            entry.close();
            more++;
        }
        assertThat(more).as("20 - 8 - 1 - 1").isEqualTo(10);
    }

    /**
     * Once the new version took one client over, the old table takes no client in: a request of
     * another client, never seen, that read the rules before the reload is the new version's to
     * decide, and counts there.
     */
    @Test
    void perClient_aNewClientDecidedOnTheOldVersion_afterTheNewTableTookAnotherOneOver_isDecidedByTheNewVersion() {
        HttpGate gate = gateThatAdmittedEight(window(10, 10, Scope.perOrigin()));
        Origin newcomer = Origin.ip(IpAddress.parse("198.51.100.7"), 64);

        atNextReading.set(() -> {
            gate.update(RuleSet.of(window(3, 20, Scope.perOrigin())));
            assertThat(enter(gate, 1).admitted()).isFalse(); // the client moves: 8 counted
        });
        Decision decision = gate.enter("GET", "/hello", newcomer, 1);

        assertThat(decision)
                .as("%s", decision instanceof Rejection r ? r.reason() : "")
                .isInstanceOf(Entry.class);
        ((Entry) decision).close();
        assertThat(gate.enter("GET", "/hello", newcomer, 2).admitted())
                .as("1 of 3 counted")
                .isTrue();
        assertThat(gate.enter("GET", "/hello", newcomer, 1).admitted()).isFalse();
    }

    /**
     * Another rule rejects the request before the changed per-client rule is tried, and the new
     * version's table has not taken the client over yet (the 8 are in the old table only): the
     * changed rule still holds the retry back until the 8 leave its new window, as it will once it
     * takes the client over. Reading does not take the client over, nor lose it.
     */
    @Test
    void perClient_anotherRuleRejects_clientOnlyInTheOldTable_theChangedRuleHoldsTheRetryBackByItsNewWindow() {
        FlowRule other = FlowRule.builder("other")
                .match("/hello")
                .limit(9, WindowSpec.of(Duration.ofSeconds(10), 10))
                .build();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(other, window(8, 10, Scope.perOrigin()))))
                .clock(clock)
                .build();
        for (int i = 0; i < 8; i++) {
            time.advanceNanos(i == 0 ? 0 : 1000 * MS);
            ((Entry) enter(gate, 1)).close();
        }
        time.advanceNanos(500 * MS);
        gate.update(RuleSet.of(other, window(8, 20, Scope.perOrigin())));

        Rejection rejection = (Rejection) enter(gate, 2); // 8 + 2 > 9

        assertThat(rejection.rule()).isEqualTo("other");
        // The other rule's 1-s bucket at 0 s leaves its window at 11 s; the 8, taken over into the
        // new window's 2-s bucket [6 s, 8 s), leave it at 28 s.
        assertThat(rejection.retryAfter()).isEqualTo(Duration.ofMillis(20_500));
        assertThat(gate.rejection(rejection).headers()).containsEntry("Retry-After", "21");
        assertThat(rejection.quotas()).extracting(Quota::rule).containsExactly("other", "hello");

        Rejection byHello = (Rejection) enter(gate, 1);
        assertThat(byHello.rule()).as("the 8 taken over after the read").isEqualTo("hello");
        assertThat(byHello.retryAfter()).isEqualTo(Duration.ofMillis(20_500));
    }

    /**
     * Without a race, right after a reload that lowers the limit below what the window holds (8): a
     * rejection by the new version says when enough of the 8 has left the window for one more, and
     * when all of it has; both within a window and a bucket of the new version.
     */
    @ParameterizedTest(name = "{0}: {1} per {2} s -> {3} per {4} s")
    @CsvSource({
        // Same window: the 8 stay in their buckets, one each at 0..7 s; the one at 5 s leaves at 16 s.
        "all,        10, 10, 3, 10,  8500, 10500",
        "per-origin, 10, 10, 3, 10,  8500, 10500",
        // Longer window: all 8 in the 2-s bucket where the old one at 7 s ends, [6 s, 8 s): out at 28 s.
        "all,        10, 10, 3, 20, 20500, 20500",
        "per-origin, 10, 10, 3, 20, 20500, 20500",
        // Shorter window: all 8 in the 1-s bucket where the old 2-s one at [6 s, 8 s) ends: out at 18 s.
        "all,        10, 20, 3, 10, 10500, 10500",
        "per-origin, 10, 20, 3, 10, 10500, 10500",
    })
    void reloadLowersTheLimitBelowWhatTheWindowHolds_retryAndResetAreExact(
            String scopeName,
            long oldLimit,
            int oldSeconds,
            long newLimit,
            int newSeconds,
            long retryMillis,
            long resetMillis) {
        Scope scope = scope(scopeName);
        HttpGate gate = gateThatAdmittedEight(window(oldLimit, oldSeconds, scope));

        gate.update(RuleSet.of(window(newLimit, newSeconds, scope)));
        Rejection rejection = (Rejection) enter(gate, 1);

        assertThat(rejection.retryAfter()).isEqualTo(Duration.ofMillis(retryMillis));
        assertThat(rejection.quota().reset()).isEqualTo(Duration.ofMillis(resetMillis));
        time.advanceNanos(retryMillis * MS - 1);
        assertThat(enter(gate, 1).admitted()).as("1 ns before the retry time").isFalse();
        time.advanceNanos(1);
        assertThat(enter(gate, 1).admitted()).as("at the retry time").isTrue();
    }
}
