package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
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
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Randomized: the strict promise at a constant N and W across reloads that change the layout only. */
class ReloadWindowSpanTest {

    private static final long W = 1_000_000_000L;
    private static final int N = 6;

    @Test
    void strictPromise_heldAcrossBucketAndBorrowChanges() {
        for (Scope scope : List.of(Scope.all(), Scope.perOrigin())) {
            for (long seed = 0; seed < 100; seed++) {
                run(seed, scope);
            }
        }
    }

    private static FlowRule version(Random random, Scope scope) {
        int[] buckets = {1, 2, 4, 5, 8, 10};
        int n = buckets[random.nextInt(buckets.length)];
        FlowRule.Builder b = FlowRule.builder("r")
                .match("/x")
                .limit(4 + 2 * random.nextInt(3), new WindowSpec(Duration.ofNanos(W), n, WindowMode.STRICT))
                .scope(scope);
        if (random.nextBoolean()) {
            b.onExcess(OnExcess.borrow(Duration.ofNanos(W / n)));
        }
        return b.build();
    }

    private void run(long seed, Scope scope) {
        Random random = new Random(seed);
        ManualClock clock = new ManualClock();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(version(random, scope))))
                .clock(clock)
                .sleeper(clock::advanceNanos)
                .build();
        Origin client = Origin.ip(IpAddress.parse("203.0.113.1"), 64);
        List<Long> admitted = new ArrayList<>();
        List<String> log = new ArrayList<>();
        List<long[]> limits = new ArrayList<>(); // {from, limit}
        limits.add(new long[] {clock.nanoTime(), gate.rules().rules().get(0).limit()});
        for (int step = 0; step < 300; step++) {
            clock.advanceNanos(random.nextInt(4) == 0 ? random.nextInt((int) (W / 3)) : random.nextInt(20_000_000));
            if (random.nextInt(12) == 0) {
                FlowRule v = version(random, scope);
                gate.update(RuleSet.of(v));
                limits.add(new long[] {clock.nanoTime(), v.limit()});
                log.add(clock.nanoTime() + " reload " + v.limit() + " "
                        + v.window().buckets() + " " + v.onExcess().kind());
            }
            Decision d = gate.enter("GET", "/x", client);
            if (d instanceof Entry e) {
                admitted.add(clock.nanoTime());
                log.add(clock.nanoTime() + " admitted");
                e.close();
            }
        }
        for (int i = 0; i < admitted.size(); i++) {
            int j = i;
            while (j < admitted.size() && admitted.get(j) - admitted.get(i) < W) {
                j++;
            }
            long from = admitted.get(i);
            long max = 0;
            for (int k = 0; k < limits.size(); k++) {
                long start = limits.get(k)[0];
                long end = k + 1 < limits.size() ? limits.get(k + 1)[0] : Long.MAX_VALUE;
                if (end > from - W && start < from + W) { // in force within the window before or the span
                    max = Math.max(max, limits.get(k)[1]);
                }
            }
            assertThat((long) (j - i))
                    .as("seed " + seed + " " + scope + ": span of W from " + admitted.get(i) + "\n"
                            + String.join("\n", log))
                    .isLessThanOrEqualTo(max);
        }
    }
}
