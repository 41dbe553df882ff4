package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.Rejection;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Configs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a client is told against what happens next, for random rules of every on-excess (reject,
 * pace, warm-up, warm-up-pace, borrow), one to three of them on one path, over random windows,
 * limits, queues, cold factors and clock origins, one client alone on a fake clock (a request that
 * waits moves the clock by its wait, as its thread would):
 *
 * <ul>
 *   <li>a rejection's retry time is never zero, and a retry exactly that much later is admitted;
 *   <li>an admission whose quotas all have {@code r >= 1} is followed by an admission at once, and
 *       one whose rate quota has {@code r = 0} by a rejection (but for {@code borrow}, whose {@code
 *       r} is the next bucket's and whose next request may still borrow);
 *   <li>a rate quota's reset later, a request is admitted, and a lone {@code reject} window has its
 *       whole quota again.
 * </ul>
 *
 * A request that waited for its turn or its loan is told all this as of when it goes on.
 * In-flight rules are left out: their slots are freed by completions, not by time.
 */
class QuotaPromiseTest {

    private static final Origin CLIENT = Origin.ip(IpAddress.parse("203.0.113.1"), 64);
    private static final int SEEDS_PER_RUN = 200;
    private static final int REQUESTS = 200;

    private record Rules(List<FlowRule> rules, boolean loneReject, boolean borrows) {}

    private static Rules randomRules(SplittableRandom random) {
        int n = 1 + random.nextInt(3);
        List<FlowRule> rules = new ArrayList<>();
        boolean borrows = false;
        boolean loneReject = n == 1;
        for (int k = 0; k < n; k++) {
            long[] windowsMs = {100, 1000, 1200, 10_000};
            long windowMs = windowsMs[random.nextInt(windowsMs.length)];
            int[] buckets = {1, 2, 4, 5, 10};
            WindowSpec window = new WindowSpec(
                    Duration.ofMillis(windowMs),
                    buckets[random.nextInt(buckets.length)],
                    random.nextBoolean() ? WindowMode.STRICT : WindowMode.SLIDING);
            int limit = 1 + random.nextInt(random.nextBoolean() ? 3 : 12);
            Duration queue = Duration.ofMillis(random.nextInt(3) == 0 ? 0 : random.nextLong(2 * windowMs + 1));
            double coldFactor = random.nextBoolean() ? 1.0001 + random.nextInt(5) : 100;
            Duration warmUp = Duration.ofMillis(1 + random.nextLong(3 * windowMs));
            int kind = random.nextInt(5);
            OnExcess onExcess = switch (kind) {
                case 0 -> OnExcess.reject();
                case 1 -> OnExcess.pace(queue);
                case 2 -> OnExcess.warmUp(coldFactor, warmUp);
                case 3 -> OnExcess.warmUpPace(coldFactor, warmUp, queue);
                default -> OnExcess.borrow(queue);
            };
            borrows |= kind == 4;
            loneReject &= kind == 0;
            boolean perOrigin = (kind == 0 || kind == 4) && random.nextBoolean();
            rules.add(FlowRule.builder("r" + k)
                    .match("/x")
                    .limit(limit, window)
                    .onExcess(onExcess)
                    .scope(perOrigin ? Scope.perOrigin() : Scope.all())
                    .build());
        }
        return new Rules(rules, loneReject, borrows);
    }

    @ParameterizedTest(name = "seeds from {0}")
    @ValueSource(ints = {0, 200, 400})
    void whatAClientIsTold_isWhatHappensNext(int firstSeed) {
        long retried = 0;
        long followed = 0;
        for (int seed = firstSeed; seed < firstSeed + SEEDS_PER_RUN; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            ManualClock clock = new ManualClock(random.nextLong());
            Rules rules = randomRules(random);
            RuleSet ruleSet;
            try {
                ruleSet = RuleSet.of(rules.rules().toArray(FlowRule[]::new));
            } catch (IllegalArgumentException twoEqualRules) {
                continue;
            }
            HttpGate gate = HttpGate.builder(Configs.withRules(ruleSet))
                    .clock(clock)
                    .sleeper(clock::advanceNanos)
                    .build();
            for (int i = 0; i < REQUESTS; i++) {
                String at = "seed " + seed + ", request " + i + ", " + rules.rules();
                int step = random.nextInt(10);
                clock.advanceNanos(
                        step < 4 ? 0 : step < 8 ? random.nextLong(50_000_000) : random.nextLong(3_000_000_000L));
                Decision d = gate.enter("GET", "/x", CLIENT);
                if (d instanceof Rejection r) {
                    Duration retry = r.retryAfter();
                    assertThat(retry).as("%s: %s", at, r.quotas()).isPositive();
                    if (random.nextBoolean()) {
                        clock.advance(retry);
                        Decision again = gate.enter("GET", "/x", CLIENT);
                        assertThat(again.admitted())
                                .as("%s: a retry after %s (%s)", at, retry, r.quotas())
                                .isTrue();
                        ((Entry) again).close();
                        retried++;
                    }
                    continue;
                }
                List<Quota> quotas = d.quotas();
                ((Entry) d).close();
                long fewest = quotas.stream().mapToLong(Quota::remaining).min().orElseThrow();
                int then = random.nextInt(3);
                if (then == 0) {
                    Decision next = gate.enter("GET", "/x", CLIENT);
                    if (fewest >= 1) {
                        assertThat(next.admitted())
                                .as("%s: told %s", at, quotas)
                                .isTrue();
                    } else if (!rules.borrows()) {
                        assertThat(next.admitted())
                                .as("%s: told %s", at, quotas)
                                .isFalse();
                    }
                    if (next instanceof Entry entry) {
                        entry.close();
                    }
                    followed++;
                } else if (then == 1) {
                    Duration reset = quotas.stream()
                            .map(Quota::reset)
                            .max(Duration::compareTo)
                            .orElseThrow();
                    clock.advance(reset);
                    Decision next = gate.enter("GET", "/x", CLIENT);
                    assertThat(next.admitted())
                            .as("%s: %s after %s", at, reset, quotas)
                            .isTrue();
                    if (rules.loneReject()) {
                        assertThat(next.quotas().get(0).remaining())
                                .as("%s: whole again %s after %s", at, reset, quotas)
                                .isEqualTo(rules.rules().get(0).limit() - 1);
                    }
                    ((Entry) next).close();
                }
            }
        }
        assertThat(retried).as("retries").isGreaterThan(1000);
        assertThat(followed).as("requests right after an admission").isGreaterThan(1000);
    }
}
