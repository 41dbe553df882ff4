package dev.leapgate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A limit made for a changed rule goes on from its previous version (see {@link Limit#create(
 * FlowRule, ResourceRecorder, long, Limit.Store, Limit)}): also after many reloads that change the
 * rule before any request reaches it, which must not chain each version to the one before.
 */
class ReloadedLimitTest {

    private static final long S = 1_000_000_000L;

    private final ManualClock clock = new ManualClock(5 * S);
    private final ResourceRecorder recorder = new ResourceRecorder("api", clock);

    @Test
    void manyChangesBeforeAnyRequest_windowSwitchedBetweenRejectAndBorrow_goOnFromTheFirstCounts() {
        Limit limit = Limit.create(window(10, false), recorder, clock.nanoTime(), null, null);
        for (int i = 0; i < 3; i++) {
            assertThat(limit.tryAcquire(clock.nanoTime(), Origin.unknown(), 1)).isNotNegative();
        }
        for (int reload = 1; reload <= 50_000; reload++) {
            limit = Limit.create(window(10, reload % 2 == 1), recorder, clock.nanoTime(), null, limit);
        }

        int admitted = 0;
        while (limit.tryAcquire(clock.nanoTime(), Origin.unknown(), 1) >= 0) {
            admitted++;
        }
        assertThat(admitted).as("3 of 10 counted before the reloads").isEqualTo(7);
    }

    @Test
    void manyChangesBeforeAnyRequest_pacedRule_goesOnAfterTheFirstSchedule() {
        Limit limit = Limit.create(paced(10), recorder, clock.nanoTime(), null, null);
        assertThat(limit.tryAcquire(clock.nanoTime(), Origin.unknown(), 1)).isZero();
        for (int reload = 1; reload <= 50_000; reload++) {
            limit = Limit.create(paced(reload % 2 == 1 ? 5 : 10), recorder, clock.nanoTime(), null, limit);
        }

        assertThat(limit.tryAcquire(clock.nanoTime(), Origin.unknown(), 1))
                .as("the slot after the first schedule's, at 10 per second")
                .isEqualTo(100_000_000L);
    }

    private static FlowRule window(long limit, boolean borrowing) {
        FlowRule.Builder rule = FlowRule.builder("api").limit(limit, WindowSpec.of(Duration.ofSeconds(10), 10));
        return (borrowing ? rule.onExcess(OnExcess.borrow(Duration.ZERO)) : rule).build();
    }

    private static FlowRule paced(long perSecond) {
        return FlowRule.builder("api")
                .limit(perSecond, WindowSpec.of(Duration.ofSeconds(1), 10))
                .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                .build();
    }
}
