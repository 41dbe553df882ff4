package dev.leapgate.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.Clock;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A request that meets a paced rule and another rule that makes it wait longer (a borrowing
 * window, or a slower paced rule) goes on later than its paced turn; the paced rule must still
 * never admit faster than its rate at the times requests go on.
 */
class SeveralWaitingRulesTest {

    private static final long MS = 1_000_000L;

    /** The reading of the request being decided: its arrival, then the end of its wait. */
    private long now;

    private final Clock clock = () -> now;
    private final ResourceRecorder recorder = new ResourceRecorder("api", clock);
    private final Admission admission = new Admission(clock, nanos -> now += nanos);

    /** Pace: 5 per 100 ms, one every 20 ms, a turn at most 500 ms away. */
    private final Limit pace = Limit.create(
            FlowRule.builder("pace")
                    .limit(5, WindowSpec.of(Duration.ofMillis(100), 1))
                    .onExcess(OnExcess.pace(Duration.ofMillis(500)))
                    .build(),
            recorder,
            0,
            null);

    @Test
    void pacedRule_neverAdmitsFasterThanItsRate_whenABorrowingRuleMakesTheRequestWaitLonger() {
        // Client a: 1 per fixed 100 ms window, borrowing from the next one up to 500 ms ahead.
        Limit borrow = Limit.create(
                FlowRule.builder("borrow")
                        .limit(1, new WindowSpec(Duration.ofMillis(100), 1, WindowMode.SLIDING))
                        .scope(Scope.origin("a"))
                        .onExcess(OnExcess.borrow(Duration.ofMillis(500)))
                        .build(),
                recorder,
                0,
                null);
        Limit[] limits = {borrow, pace};
        List<Long> wentOn = new ArrayList<>();

        enter(limits, "a", 0, wentOn); // goes on at once
        enter(limits, "a", 10 * MS, wentOn); // borrows from [100 ms, 200 ms): goes on at 100 ms
        for (int i = 0; i < 5; i++) {
            enter(limits, "x", 10 * MS, wentOn); // only the paced rule applies
        }

        assertPacedAt(wentOn, 7);
    }

    @Test
    void pacedRule_neverAdmitsFasterThanItsRate_whenASlowerPacedRuleMakesTheRequestWaitLonger() {
        // Client a: paced at 1 per 100 ms as well.
        Limit slow = Limit.create(
                FlowRule.builder("slow")
                        .limit(1, WindowSpec.of(Duration.ofMillis(100), 1))
                        .scope(Scope.origin("a"))
                        .onExcess(OnExcess.pace(Duration.ofMillis(500)))
                        .build(),
                recorder,
                0,
                null);
        Limit[] limits = {slow, pace};
        List<Long> wentOn = new ArrayList<>();

        enter(limits, "a", 0, wentOn); // goes on at once
        enter(limits, "a", 10 * MS, wentOn); // its turn at the slow rule: 100 ms
        for (int i = 0; i < 5; i++) {
            enter(limits, "x", 10 * MS, wentOn); // only the 5-per-100-ms rule applies
        }

        assertPacedAt(wentOn, 7);
    }

    /**
     * A request whose loan asks 90 ms and whose paced turn asks 10 ms waits 90 ms: the borrowing
     * rule counts a wait of 90 ms, the paced rule one of 10 ms, its own, not the loan's.
     */
    @Test
    void eachRuleThatMadeTheRequestWait_countsItsOwnWait_notTheLongestOne() {
        Limit borrow = borrowing();
        Limit[] limits = {borrow, pace};
        List<Long> wentOn = new ArrayList<>();

        enter(limits, "a", 0, wentOn); // goes on at once; the next paced turn at 20 ms
        enter(limits, "a", 10 * MS, wentOn); // a loan of [100 ms, 200 ms): 90 ms; its paced turn: 10 ms

        assertThat(wentOn).containsExactly(0L, 100 * MS);
        Waits borrowWaits = borrow.waits().orElseThrow();
        assertThat(borrowWaits.waited()).isEqualTo(1);
        assertThat(borrowWaits.waitedMicros())
                .as("the borrowing rule's wait, us")
                .isEqualTo(90_000);
        Waits paceWaits = pace.waits().orElseThrow();
        assertThat(paceWaits.waited()).isEqualTo(1);
        assertThat(paceWaits.waitedMicros()).as("the paced rule's wait, us").isEqualTo(10_000);
        assertThat(paceWaits.waitingNow()).isZero();
        assertThat(borrowWaits.waitingNow()).isZero();
        assertThat(recorder.totals().borrowed())
                .as("went on in the bucket it borrowed from")
                .isEqualTo(1);
    }

    /**
     * A request interrupted before the end of its wait counts, for each rule, the shorter of the
     * rule's own wait and the time it waited.
     */
    @Test
    void interruptedWait_countsForEachRuleTheShorterOfItsOwnWaitAndTheTimeWaited() {
        Limit borrow = borrowing();
        Limit[] limits = {borrow, pace};
        Admission interrupting = new Admission(clock, nanos -> {
            now += 50 * MS; // woken at 50 ms of the 90 ms the loan asks
            throw new InterruptedException("test");
        });
        now = 0;
        ((Entry) interrupting.decide(limits, Origin.id("a"), 1)).close(); // at once
        now = 10 * MS;
        Decision d = interrupting.decide(limits, Origin.id("a"), 1); // loan: 90 ms; paced turn: 10 ms
        boolean interrupted = Thread.interrupted(); // clears the status the admission restored

        assertThat(interrupted).isTrue();
        assertThat(d).isInstanceOf(Rejection.class);
        assertThat(borrow.waits().orElseThrow().waitedMicros()).isEqualTo(50_000);
        assertThat(pace.waits().orElseThrow().waitedMicros()).isEqualTo(10_000);
    }

    /**
     * A loan of [100 ms, 200 ms) whose request waits for a paced turn until 300 ms is given back and
     * taken again in the bucket of 300 ms, as an ordinary count: the request did not go on by
     * borrowing, and its resource does not count it as borrowed.
     */
    @Test
    void requestWhoseLoanIsTakenAgainWhenItGoesOn_isNotCountedAsBorrowed() {
        Limit borrow = borrowing();
        // Paced at one per 300 ms, a turn at most 1 s away.
        Limit slow = Limit.create(
                FlowRule.builder("slow")
                        .limit(1, WindowSpec.of(Duration.ofMillis(300), 1))
                        .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                        .build(),
                recorder,
                0,
                null);
        Limit[] limits = {borrow, slow};
        List<Long> wentOn = new ArrayList<>();

        enter(limits, "a", 0, wentOn); // goes on at once; the next paced turn at 300 ms
        enter(limits, "a", 10 * MS, wentOn); // a loan of [100 ms, 200 ms), but its turn is at 300 ms

        assertThat(wentOn).containsExactly(0L, 300 * MS);
        assertThat(recorder.totals().admitted()).isEqualTo(2);
        assertThat(recorder.totals().borrowed())
                .as("requests admitted by borrowing")
                .isZero();
        assertThat(borrow.waits().orElseThrow().waitedMicros())
                .as("the loan's wait, us")
                .isEqualTo(90_000);
        assertThat(slow.waits().orElseThrow().waitedMicros())
                .as("the paced turn's wait, us")
                .isEqualTo(290_000);
    }

    /** Client a: 1 per fixed 100 ms window, borrowing from the next one up to 500 ms ahead. */
    private Limit borrowing() {
        return Limit.create(
                FlowRule.builder("borrow")
                        .limit(1, new WindowSpec(Duration.ofMillis(100), 1, WindowMode.SLIDING))
                        .scope(Scope.origin("a"))
                        .onExcess(OnExcess.borrow(Duration.ofMillis(500)))
                        .build(),
                recorder,
                0,
                null);
    }

    private void enter(Limit[] limits, String origin, long arrival, List<Long> wentOn) {
        now = arrival;
        Decision d = admission.decide(limits, Origin.id(origin), 1);
        if (d instanceof Entry e) {
            wentOn.add(e.startNanos());
            e.close();
        }
    }

    /** Every request the 5-per-100-ms rule admitted went on at least 20 ms after the one before. */
    private static void assertPacedAt(List<Long> wentOn, int admitted) {
        assertThat(wentOn).as("admitted").hasSize(admitted);
        List<Long> sorted = new ArrayList<>(wentOn);
        Collections.sort(sorted);
        int most = 0;
        for (long from : sorted) {
            int in = 0;
            for (long t : sorted) {
                in += t >= from && t < from + 100 * MS ? 1 : 0;
            }
            most = Math.max(most, in);
        }
        assertThat(most)
                .as("requests the 5-per-100-ms paced rule let go on within one 100 ms span (went on at %s ns)", sorted)
                .isLessThanOrEqualTo(5);
    }

    /** A clock that fails after the wait, once and again: the wait ends, and the first failure propagates. */
    @Test
    void clockThatThrowsACheckedExceptionAfterTheWait_endsTheWait_andPropagatesTheFirstFailure() {
        boolean[] slept = {false};
        int[] failures = {0};
        Clock failing = () -> {
            if (slept[0]) {
                SeveralWaitingRulesTest.<RuntimeException>sneakyThrow(
                        new java.io.IOException("clock gone " + ++failures[0]));
            }
            return now;
        };
        ResourceRecorder rec = new ResourceRecorder("api", failing);
        Admission adm = new Admission(failing, nanos -> slept[0] = true);
        Limit paced = Limit.create(
                FlowRule.builder("pace")
                        .limit(10, WindowSpec.of(Duration.ofSeconds(1)))
                        .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                        .build(),
                rec,
                0,
                null);
        Limit[] limits = {paced};
        ((Entry) adm.decide(limits, Origin.unknown(), 1)).close(); // the first turn: no wait

        assertThatThrownBy(() -> adm.decide(limits, Origin.unknown(), 1)) // waits 100 ms
                .isInstanceOf(java.io.IOException.class)
                .hasMessage("clock gone 1");
        assertThat(paced.waits().orElseThrow().waitingNow())
                .as("requests waiting for the paced rule now")
                .isZero();
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable e) throws E {
        throw (E) e;
    }
}
