package dev.leapgate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.store.FailurePolicy;
import dev.leapgate.store.StoreSettings;
import dev.leapgate.testing.FakeWindowStore;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A shared rule changed by a reload while the store cannot decide goes on from this instance's
 * share: also for the requests that read the rules before the reload and decide on the previous
 * version after it, on other threads.
 */
class SharedRuleReloadTest {

    private static final int THREADS = 16;

    private final ManualClock clock = new ManualClock(5_000_000_000L);
    private final ResourceRecorder recorder = new ResourceRecorder("login", clock);
    private final FakeWindowStore windows = new FakeWindowStore(clock);
    private final Limit.Store store = new Limit.Store(
            windows,
            new StoreSettings(
                    URI.create("redis://localhost:6379"),
                    "leapgate",
                    Duration.ofMillis(50),
                    FailurePolicy.LOCAL_SHARE,
                    2));
    private final Origin client = Origin.ip("203.0.113.7");

    /**
     * The store fails as the rule is changed (10 a minute on two instances, a share of 5, lowered
     * to 8, a share of 4): the previous version's requests in flight took the share of 5, each
     * against the limit it read; the new version's count them, and admit none within the minute.
     */
    @Test
    void theOutageBeginningAsTheRuleChanges_theVersionsInFlight_shareOneWindow() throws Exception {
        Limit previous = Limit.create(rule(10), recorder, clock.nanoTime(), store);
        windows.down = true;
        Limit changed = Limit.create(rule(8), recorder, clock.nanoTime(), store, previous);

        assertThat(admittedTogether(previous))
                .as("the requests that read the rules before")
                .isEqualTo(5);
        assertThat(admittedTogether(changed)).as("the share counted them").isZero();
    }

    /**
     * A rule that leaves the store during an outage ({@code store = local}) goes on from what this
     * instance admitted by its share (5 of 10 on two instances), against the limit it now enforces
     * alone: 5 more in the minute, not 10.
     */
    @Test
    void aSharedRuleMadeLocal_duringAnOutage_goesOnFromItsShare() {
        windows.down = true;
        Limit shared = Limit.create(rule(10), recorder, clock.nanoTime(), store);
        assertThat(admitted(shared, 8)).as("the share, 10 / 2").isEqualTo(5);
        clock.advance(Duration.ofSeconds(1));

        Limit local = Limit.create(rule(10, true), recorder, clock.nanoTime(), store, shared);

        assertThat(local.continued()).isTrue();
        assertThat(admitted(local, 10)).isEqualTo(5);
    }

    /**
     * A rule that joins the store during an outage goes on from what this instance counted alone
     * (10 of 10): over its share of 5 already, it admits nothing more in the minute.
     */
    @Test
    void aLocalRuleMadeShared_duringAnOutage_goesOnFromWhatItCounted() {
        windows.down = true;
        Limit local = Limit.create(rule(10, true), recorder, clock.nanoTime(), store);
        assertThat(admitted(local, 12)).isEqualTo(10);
        clock.advance(Duration.ofSeconds(1));

        Limit shared = Limit.create(rule(10), recorder, clock.nanoTime(), store, local);

        assertThat(admitted(shared, 10)).isZero();
        clock.advance(Duration.ofSeconds(70)); // past the strict window's 11 buckets of 6 s
        assertThat(admitted(shared, 10)).as("then its share").isEqualTo(5);
    }

    /**
     * A reload that changes only the rule's store-on-failure recompiles the rule (it is another
     * FlowRule) and goes on from the previous version: during an outage, the share of 5 taken
     * under local-share, then closed (every request rejected, the store's statistics going on),
     * then the store's setting again: the share still holds what it admitted, nothing more in
     * the minute, not a fresh 5.
     */
    @Test
    void aReloadChangingOnlyTheStoreOnFailure_keepsTheSharesCountsAndTheStatistics() {
        windows.down = true;
        RuleBook shares = RuleBook.compile(RuleSet.of(rule(10)), null, clock, store);
        assertThat(admitted(shares.limit("login").orElseThrow(), 8))
                .as("the share, 10 / 2")
                .isEqualTo(5);
        clock.advance(Duration.ofSeconds(1));

        RuleBook closed = RuleBook.compile(RuleSet.of(policy(rule(10), FailurePolicy.CLOSED)), shares, clock, store);
        Limit closedLimit = closed.limit("login").orElseThrow();
        assertThat(closed.kept()).as("recompiled").isZero();
        assertThat(closedLimit.tryAcquire(clock.nanoTime(), client, 1)).isEqualTo(Limit.STORE_UNAVAILABLE);
        assertThat(closedLimit.retryAfter(clock.nanoTime(), client, 1))
                .as("as any closed rule's: a bucket of the store's, not the kept share's minute")
                .isEqualTo(Duration.ofSeconds(6));
        assertThat(closedLimit.store().orElseThrow())
                .as("decided without the store: 8, then 1; one outage, going on")
                .isEqualTo(new dev.leapgate.stats.StoreStats(false, 9, 1));
        clock.advance(Duration.ofSeconds(1));

        RuleBook sharesAgain = RuleBook.compile(RuleSet.of(rule(10)), closed, clock, store);
        Limit again = sharesAgain.limit("login").orElseThrow();
        assertThat(admitted(again, 5)).as("the share's 5 are taken").isZero();
        assertThat(again.store().orElseThrow()).isEqualTo(new dev.leapgate.stats.StoreStats(false, 14, 1));
        clock.advance(Duration.ofSeconds(70)); // past the strict window's 11 buckets of 6 s
        assertThat(admitted(again, 8)).as("then its share").isEqualTo(5);
    }

    /** Admissions of {@code attempts} requests of the client, one after the other. */
    private int admitted(Limit limit, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += limit.tryAcquire(clock.nanoTime(), client, 1) >= 0 ? 1 : 0;
        }
        return admitted;
    }

    /** Admissions of {@value #THREADS} requests of the client, one a thread, started together. */
    private int admittedTogether(Limit limit) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> decided = new ArrayList<>();
        try {
            for (int i = 0; i < THREADS; i++) {
                decided.add(pool.submit(() -> {
                    start.await();
                    return limit.tryAcquire(clock.nanoTime(), client, 1) >= 0;
                }));
            }
            start.countDown();
            int admitted = 0;
            for (Future<Boolean> one : decided) {
                admitted += one.get(10, TimeUnit.SECONDS) ? 1 : 0;
            }
            return admitted;
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static FlowRule rule(long limit) {
        return rule(limit, false);
    }

    private static FlowRule rule(long limit, boolean local) {
        return builder(limit).local(local).build();
    }

    /** The rule with its own store-on-failure. */
    private static FlowRule policy(FlowRule rule, FailurePolicy policy) {
        return builder(rule.limit()).storeOnFailure(policy).build();
    }

    private static FlowRule.Builder builder(long limit) {
        return FlowRule.builder("login")
                .match("POST /login")
                .limit(limit, WindowSpec.of(Duration.ofMinutes(1), 10))
                .scope(Scope.perOrigin());
    }
}
