package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.leapgate.testing.Samples;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class SmoothRateTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;

    /** 10 per second: one every 100 ms, waiting up to 500 ms. */
    private static SmoothRate pace10PerSecond() {
        return SmoothRate.pace(10, Duration.ofSeconds(1), Duration.ofMillis(500), 0);
    }

    // 100 per second, cold factor 3, warm-up 10 s: stable 10 ms, cold 30 ms,
    // threshold 0.5 * 10 s / 10 ms = 500 permits, max 500 + 2 * 10 s / 40 ms = 1000 permits.
    private static final long STABLE = 10 * MS;
    private static final long COLD = 30 * MS;
    private static final long WARM_UP = 10 * S;

    private static SmoothRate warmUp100PerSecond(Duration maxQueue) {
        return SmoothRate.warmUp(100, Duration.ofSeconds(1), 3.0, Duration.ofNanos(WARM_UP), maxQueue, 0);
    }

    // ---- pace ----

    @Test
    void pace_burstAtOneInstant_waitsOneIntervalMore_eachUpToMaxQueue_thenRejects() {
        SmoothRate rate = pace10PerSecond();

        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waits.add(rate.tryReserve(0, 1));
        }

        assertThat(waits).containsExactly(0L, 100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS);
        assertThat(rate.tryReserve(0, 1)).isEqualTo(SmoothRate.REJECTED);
        assertThat(rate.tryReserve(0, 1)).isEqualTo(SmoothRate.REJECTED);
        // The rejections reserved nothing: the next slot is still 600 ms, 500 ms away at 100 ms.
        assertThat(rate.tryReserve(100 * MS, 1)).isEqualTo(500 * MS);
    }

    /**
     * A request another rule makes wait: within this rate's queue, its turn is where it goes on, and
     * the schedule stays idle until then; farther, moving the schedule there refused every other
     * request of this rate until then (one client of a slow rule blocked a global pace for a
     * minute), so it takes its own turn.
     */
    @Test
    void pace_aRequestGoingOnLater_movesTheScheduleThereWithinTheQueue_notFarther() {
        SmoothRate within = pace10PerSecond();
        assertThat(within.tryReserve(0, 1, 300 * MS)).isZero();
        assertThat(within.tryReserve(0, 1)).as("the turn after it").isEqualTo(400 * MS);

        SmoothRate beyond = pace10PerSecond();
        assertThat(beyond.tryReserve(0, 1, 30 * S)).isZero();
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waits.add(beyond.tryReserve(0, 1));
        }
        assertThat(waits).containsExactly(100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS);
        assertThat(beyond.tryReserve(0, 1)).isEqualTo(SmoothRate.REJECTED);
    }

    @Test
    void pace_withoutQueue_admitsExactlyOneRequestPerInterval() {
        SmoothRate rate = SmoothRate.pace(10, Duration.ofSeconds(1), Duration.ZERO, 0);

        List<Long> admittedAt = new ArrayList<>();
        for (long t = 0; t < 2 * S; t += MS) {
            long wait = rate.tryReserve(t, 1);
            if (wait != SmoothRate.REJECTED) {
                assertThat(wait).isZero();
                admittedAt.add(t);
            }
        }

        assertThat(admittedAt).hasSize(20);
        for (int i = 0; i < admittedAt.size(); i++) {
            assertThat(admittedAt.get(i)).isEqualTo(i * 100 * MS);
        }
    }

    @Test
    void pace_afterIdling_nextRequestGoesAtOnce_butGetsNoBurstCredit() {
        SmoothRate rate = pace10PerSecond();
        for (int i = 0; i < 4; i++) {
            rate.tryReserve(0, 1); // schedule runs to 400 ms
        }

        assertThat(rate.tryReserve(399 * MS, 1)).isEqualTo(1 * MS);
        // Idle from 500 ms to 10 s: nothing is banked, the schedule restarts at 10 s.
        assertThat(rate.tryReserve(10 * S, 1)).isZero();
        assertThat(rate.tryReserve(10 * S, 1)).isEqualTo(100 * MS);
        assertThat(rate.tryReserve(10 * S, 1)).isEqualTo(200 * MS);
    }

    @Test
    void pace_requestOfSeveralPermits_costsTheNextRequestProportionally() {
        SmoothRate rate = pace10PerSecond();

        assertThat(rate.tryReserve(0, 3)).isZero(); // pay later: its own size is not waited for
        assertThat(rate.tryReserve(0, 1)).isEqualTo(300 * MS);
        assertThat(rate.tryReserve(0, 2)).isEqualTo(400 * MS);
        assertThat(rate.tryReserve(0, 1)).isEqualTo(SmoothRate.REJECTED); // 600 ms away
        assertThat(rate.tryReserve(100 * MS, 10)).isEqualTo(500 * MS);
        assertThat(rate.tryReserve(1_500 * MS, 1)).isEqualTo(100 * MS); // 10 permits: 1 s later
    }

    @Test
    void pace_intervalOfAFractionalNanosecond_doesNotDrift() {
        // 1 s / 3 = 333_333_333.33 ns: rounding each slot to whole ns would drift 60 ns over 180 slots.
        SmoothRate rate = SmoothRate.pace(3, Duration.ofSeconds(1), Duration.ofMinutes(1), 0);

        for (long k = 0; k <= 180; k++) {
            long exactCeil = (k * S + 2) / 3; // ceil(k * 1 s / 3)
            assertThat(rate.tryReserve(0, 1)).as("slot %d", k).isCloseTo(exactCeil, within(1L));
        }
        assertThat(rate.tryReserve(0, 1)).isEqualTo(SmoothRate.REJECTED);
        assertThat(rate.nanosUntilAvailable(0, 1)).isCloseTo(1 * S / 3, within(1L));
    }

    // ---- warm-up ----

    /**
     * Saturating demand: each request arrives the moment the previous one's wait ends. Returns the
     * moments the requests proceed (arrival + wait) over {@code durationNanos}.
     */
    private static List<Long> saturate(SmoothRate rate, long fromNanos, long durationNanos) {
        List<Long> proceeds = new ArrayList<>();
        long t = fromNanos;
        long lastProceeds = fromNanos;
        while (lastProceeds < fromNanos + durationNanos) {
            long wait = rate.tryReserve(t, 1);
            assertThat(wait)
                    .as("saturating demand is never rejected with a 1 s queue")
                    .isNotNegative();
            lastProceeds = t + wait;
            proceeds.add(lastProceeds);
            t = lastProceeds;
        }
        return proceeds;
    }

    private static List<Long> intervals(List<Long> times) {
        List<Long> intervals = new ArrayList<>();
        for (int i = 1; i < times.size(); i++) {
            intervals.add(times.get(i) - times.get(i - 1));
        }
        return intervals;
    }

    /** Mean interval between the admissions in {@code [from, to)}. */
    private static double meanInterval(List<Long> times, long from, long to) {
        List<Long> in = times.stream().filter(t -> t >= from && t < to).toList();
        return (double) (in.get(in.size() - 1) - in.get(0)) / (in.size() - 1);
    }

    @Test
    void warmUp_saturatingDemandFromCold_climbsFromColdRateToTheLimitOverWarmUpPeriod() {
        SmoothRate rate = warmUp100PerSecond(Duration.ofSeconds(1));

        List<Long> proceeds = saturate(rate, 0, 14 * S);
        List<Long> intervals = intervals(proceeds);

        // The first permit costs the top of the trapezoid: cold - slope / 2 = 29.98 ms.
        assertThat(intervals.get(0)).isCloseTo(COLD, within(COLD / 1000));
        // First 5% of the warm-up: about limit / coldFactor (33.3 per second).
        assertThat(meanInterval(proceeds, 0, WARM_UP / 20)).isCloseTo(COLD, within(COLD * 0.015));
        // After the warm-up: exactly the limit.
        assertThat(meanInterval(proceeds, WARM_UP + 2 * S, WARM_UP + 4 * S)).isCloseTo(STABLE, within(1.0));
        assertThat(proceeds.stream().filter(t -> t >= 12 * S && t < 13 * S)).hasSize(100);
        // The interval only ever falls (1 ns of rounding aside).
        for (int i = 1; i < intervals.size(); i++) {
            assertThat(intervals.get(i)).isLessThanOrEqualTo(intervals.get(i - 1) + 1);
        }
        // The warm-up spends exactly the permits above the threshold: max - threshold = 500.
        assertThat(proceeds.stream().filter(t -> t < WARM_UP)).hasSize(500);
        // The first admission at the stable rate comes warmUpPeriod after the start.
        int firstStable = 0;
        while (intervals.get(firstStable) > STABLE + 1_000) {
            firstStable++;
        }
        assertThat(proceeds.get(firstStable)).isCloseTo(WARM_UP, within(STABLE));
    }

    @Test
    void warmUp_afterIdlingForWarmUpPeriod_isColdAgain() {
        SmoothRate rate = warmUp100PerSecond(Duration.ofSeconds(1));
        List<Long> warm = saturate(rate, 0, 20 * S); // stored permits are spent by 15 s
        long end = warm.get(warm.size() - 1) + STABLE;
        assertThat(rate.tryReserve(end, 1)).isZero();
        assertThat(rate.tryReserve(end, 1)).isEqualTo(STABLE);

        // Idle from the end of that schedule (end + 2 intervals) for warmUpPeriod: one permit per
        // coolDown (10 ms), 1000 permits, full again. One interval less would leave 999 stored.
        long idleEnd = end + 2 * STABLE + WARM_UP;
        List<Long> again = saturate(rate, idleEnd, 1 * S);

        assertThat(intervals(again).get(0)).isCloseTo(29_980_000L, within(1L)); // as from the start
        assertThat(meanInterval(again, idleEnd, idleEnd + WARM_UP / 20)).isCloseTo(COLD, within(COLD * 0.015));
    }

    @Test
    void warmUp_afterAShortPause_staysWarm_withoutBurst() {
        SmoothRate rate = warmUp100PerSecond(Duration.ofSeconds(1));
        List<Long> warm = saturate(rate, 0, 20 * S);
        long resume = warm.get(warm.size() - 1) + STABLE + 2 * S; // 2 s idle: 200 permits, below the threshold

        assertThat(rate.tryReserve(resume, 1)).isZero();
        for (int i = 1; i <= 5; i++) {
            // Stored permits below the threshold cost the stable interval: no burst, no slowdown.
            assertThat(rate.tryReserve(resume, 1)).isCloseTo(i * STABLE, within(1L));
        }
    }

    @ParameterizedTest
    @CsvSource({
        // idle (ms) after the store ran empty, first interval after it (ns)
        "2500, 10000000", // 250 stored: below the threshold, stable
        "5000, 10000000", // 500 stored: the threshold, still stable
        "7500, 19980000", // 750 stored: 10 ms + 0.04 ms * (749.5 - 500)
        "10000, 29980000", // 1000 stored: full, as cold as at the start
        "60000, 29980000", // never more than full
    })
    void warmUp_idleTime_storesOnePermitPerCoolDown_andTheirPriceFollowsTheCurve(long idleMs, long interval) {
        SmoothRate rate = warmUp100PerSecond(Duration.ofSeconds(1));
        List<Long> warm = saturate(rate, 0, 20 * S); // the store runs empty at 15 s
        long nextFree = warm.get(warm.size() - 1) + STABLE;

        long resume = nextFree + idleMs * MS; // coolDown = warmUpPeriod / maxPermits = 10 ms
        assertThat(rate.tryReserve(resume, 1)).isZero();

        assertThat(rate.tryReserve(resume, 1)).isCloseTo(interval, within(1L));
    }

    @Test
    void warmUp_rejectVariant_admitsOnlyWhatNeedNotWait() {
        SmoothRate rate = warmUp100PerSecond(Duration.ZERO);

        assertThat(rate.tryReserve(0, 1)).isZero();
        long slot = rate.nanosUntilAvailable(0, 1);
        assertThat(slot).isCloseTo(29_980_000L, within(1L)); // the first cold permit: 29.98 ms
        assertThat(rate.tryReserve(0, 1)).isEqualTo(SmoothRate.REJECTED);
        assertThat(rate.tryReserve(slot - 1, 1)).isEqualTo(SmoothRate.REJECTED);
        assertThat(rate.tryReserve(slot, 1)).isZero();
        assertThat(rate.tryReserve(slot, 1)).isEqualTo(SmoothRate.REJECTED);
    }

    @Test
    void warmUp_rejectVariant_underDenseArrivals_admittedRateClimbsFromColdRateToTheLimit() {
        SmoothRate rate = warmUp100PerSecond(Duration.ZERO);
        int[] admittedPerSecond = new int[20];

        for (long t = 0; t < 20 * S; t += MS) {
            long wait = rate.tryReserve(t, 1);
            if (wait != SmoothRate.REJECTED) {
                assertThat(wait).isZero();
                admittedPerSecond[(int) (t / S)]++;
            }
        }

        assertThat(admittedPerSecond[0]).isBetween(33, 36); // limit / coldFactor = 33.3
        for (int second = 1; second < 20; second++) {
            assertThat(admittedPerSecond[second]).isGreaterThanOrEqualTo(admittedPerSecond[second - 1]);
        }
        for (int second = 12; second < 20; second++) {
            // Slots fall on the 1 ms arrivals once warm, so exactly the limit.
            assertThat(admittedPerSecond[second]).isEqualTo(100);
        }
    }

    @Test
    void warmUp_withQueue_startsColdAtOnce_andQueuesTheNextAtTheColdInterval() {
        SmoothRate rate = warmUp100PerSecond(Duration.ofMillis(100));

        assertThat(rate.tryReserve(0, 1)).isZero();
        long second = rate.tryReserve(0, 1);
        long third = rate.tryReserve(0, 1);
        long fourth = rate.tryReserve(0, 1);

        assertThat(second).isCloseTo(29_980_000L, within(1L));
        assertThat(third - second).isCloseTo(29_940_000L, within(1L)); // falling by slope = 0.04 ms
        assertThat(fourth - third).isCloseTo(29_900_000L, within(1L));
        assertThat(rate.tryReserve(0, 1)).isEqualTo(SmoothRate.REJECTED); // ~119.6 ms > 100 ms
    }

    // ---- nanosUntilAvailable ----

    static Stream<Arguments> rates() {
        return Stream.of(
                Arguments.of("pace", (Supplier<SmoothRate>) SmoothRateTest::pace10PerSecond),
                Arguments.of("pace without queue", (Supplier<SmoothRate>)
                        () -> SmoothRate.pace(10, Duration.ofSeconds(1), Duration.ZERO, 0)),
                Arguments.of("warm-up pace", (Supplier<SmoothRate>) () -> warmUp100PerSecond(Duration.ofMillis(50))),
                Arguments.of("warm-up", (Supplier<SmoothRate>) () -> warmUp100PerSecond(Duration.ZERO)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rates")
    void nanosUntilAvailable_predictsTryReserve_andRetryingThenIsAdmitted(String name, Supplier<SmoothRate> factory) {
        SmoothRate rate = factory.get();
        Random random = new Random(42);
        long now = 0;
        int rejections = 0;

        for (int i = 0; i < 5_000; i++) {
            now += random.nextInt(30) * MS / 2;
            int permits = 1 + random.nextInt(3);
            long until = rate.nanosUntilAvailable(now, permits);
            long wait = rate.tryReserve(now, permits);
            if (until == 0) {
                assertThat(wait).as("admitted when nanosUntilAvailable said 0").isNotNegative();
                continue;
            }
            rejections++;
            assertThat(wait).isEqualTo(SmoothRate.REJECTED);
            assertThat(rate.tryReserve(now + until - 1, permits)).isEqualTo(SmoothRate.REJECTED);
            assertThat(rate.nanosUntilAvailable(now + until, permits)).isZero();
            assertThat(rate.tryReserve(now + until, permits)).isNotNegative();
            now += until;
        }

        assertThat(rejections).as("the rate was contended").isGreaterThan(500);
    }

    // ---- bounds ----

    @Test
    void extremeSettings_andClockReadingsNearTheHorizon_neverOverflow() {
        long day = Duration.ofHours(24).toNanos();
        int most = Integer.MAX_VALUE;
        SmoothRate pace = SmoothRate.pace(most, Duration.ofHours(24), Duration.ofHours(24), 0);

        assertThat(pace.tryReserve(0, most)).isZero();
        assertThat(pace.tryReserve(0, most)).isCloseTo(day, within(1L));
        assertThat(pace.tryReserve(0, 1)).isEqualTo(SmoothRate.REJECTED);
        // Readings beyond 2^62 ns from the origin are clamped to it: the schedule does not wrap.
        assertThat(pace.tryReserve(Long.MAX_VALUE, most)).isZero();
        assertThat(pace.tryReserve(Long.MAX_VALUE, most)).isCloseTo(day, within(1L));
        assertThat(pace.nanosUntilAvailable(Long.MAX_VALUE, 1)).isCloseTo(day, within(2L));

        SmoothRate warm =
                SmoothRate.warmUp(most, Duration.ofHours(24), 100, Duration.ofHours(24), Duration.ofHours(24), 0);
        long now = (1L << 62) - 30 * day;
        assertThat(warm.tryReserve(now, most)).isZero();
        for (int i = 0; i < 20; i++) {
            long until = warm.nanosUntilAvailable(now, most);
            assertThat(until).isBetween(1L, 2 * day); // one reservation costs at most W + 1.5 warm-up
            now += until;
            assertThat(warm.tryReserve(now, most)).isEqualTo(day); // the full queue, exactly
        }
    }

    @Test
    void readingBeforeTheOrigin_waitsUntilTheOrigin() {
        SmoothRate rate = SmoothRate.pace(10, Duration.ofSeconds(1), Duration.ofMillis(500), 5 * S);

        assertThat(rate.tryReserve(5 * S - 7, 1)).isEqualTo(7);
        assertThat(rate.tryReserve(5 * S, 1)).isEqualTo(100 * MS);
    }

    @Test
    void accessors_returnTheSettings() {
        SmoothRate rate = warmUp100PerSecond(Duration.ofMillis(500));

        assertThat(rate.limit()).isEqualTo(100);
        assertThat(rate.window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(rate).hasToString("SmoothRate[100 per 1s, warm-up cold-factor=3.0 warm-up=10s max-queue=500ms]");
        assertThat(pace10PerSecond()).hasToString("SmoothRate[10 per 1s, pace max-queue=500ms]");
    }

    // ---- validation ----

    @Test
    void limitOutOfRange_isRejectedWithTheValue() {
        assertThatThrownBy(() -> SmoothRate.pace(0, Duration.ofSeconds(1), Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be between 1 and 2147483647, was 0");
        assertThatThrownBy(() ->
                        SmoothRate.warmUp(1L << 31, Duration.ofSeconds(1), 3, Duration.ofSeconds(1), Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be between 1 and 2147483647, was 2147483648");
    }

    @Test
    void windowNotPositiveOrOver24h_isRejectedWithTheValue() {
        assertThatThrownBy(() -> SmoothRate.pace(10, Duration.ZERO, Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be longer than 0s and at most 24h, was 0s");
        assertThatThrownBy(() -> SmoothRate.pace(10, Duration.ofMillis(-5), Duration.ZERO, 0))
                .hasMessage("window must be longer than 0s and at most 24h, was -5ms");
        assertThatThrownBy(() -> SmoothRate.pace(10, Duration.ofHours(25), Duration.ZERO, 0))
                .hasMessage("window must be longer than 0s and at most 24h, was 25h");
        assertThatThrownBy(() -> SmoothRate.pace(10, null, Duration.ZERO, 0))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("window");
    }

    @Test
    void maxQueueNegativeOrOver24h_isRejectedWithTheValue() {
        assertThatThrownBy(() -> SmoothRate.pace(10, Duration.ofSeconds(1), Duration.ofMillis(-1), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max-queue must be between 0s and 24h, was -1ms");
        assertThatThrownBy(() -> SmoothRate.warmUp(
                        10,
                        Duration.ofSeconds(1),
                        3,
                        Duration.ofSeconds(1),
                        Duration.ofHours(24).plusNanos(1),
                        0))
                .hasMessage("max-queue must be between 0s and 24h, was 86400000000001ns");
        assertThatThrownBy(() -> SmoothRate.pace(10, Duration.ofSeconds(1), null, 0))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("max-queue");
    }

    @Test
    void coldFactorNotAboveOne_isRejectedWithTheValue() {
        for (double coldFactor : new double[] {1.0, 0.5, -3, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> SmoothRate.warmUp(
                            10, Duration.ofSeconds(1), coldFactor, Duration.ofSeconds(1), Duration.ZERO, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("cold-factor must be a finite number greater than 1, was " + coldFactor);
        }
    }

    @Test
    void warmUpPeriodNotPositiveOrOver24h_isRejectedWithTheValue() {
        assertThatThrownBy(() -> SmoothRate.warmUp(10, Duration.ofSeconds(1), 3, Duration.ZERO, Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("warm-up must be longer than 0s and at most 24h, was 0s");
        assertThatThrownBy(() -> SmoothRate.warmUp(10, Duration.ofSeconds(1), 3, Duration.ofDays(2), Duration.ZERO, 0))
                .hasMessage("warm-up must be longer than 0s and at most 24h, was 48h");
        assertThatThrownBy(() -> SmoothRate.warmUp(10, Duration.ofSeconds(1), 3, null, Duration.ZERO, 0))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("warm-up");
    }

    @Test
    void warmUpStoringMoreThan2To48Permits_isRejectedWithTheSettings() {
        assertThatThrownBy(() -> SmoothRate.warmUp(
                        Integer.MAX_VALUE, Duration.ofMillis(1), 2, Duration.ofHours(1), Duration.ZERO, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("warm-up 1h is too long for a limit of 2147483647 per 1ms: it would store ")
                .hasMessageEndingWith(" permits, more than 2^48; use a shorter warm-up or a lower limit");
    }

    @Test
    void permitsOutOfRange_areRejectedWithTheValue() {
        SmoothRate rate = pace10PerSecond();

        for (int permits : new int[] {0, -1, 11}) {
            assertThatThrownBy(() -> rate.tryReserve(0, permits))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("permits must be between 1 and the limit 10, was " + permits);
            assertThatThrownBy(() -> rate.nanosUntilAvailable(0, permits))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("permits must be between 1 and the limit 10, was " + permits);
        }
        assertThat(rate.tryReserve(0, 10)).as("the limit itself is allowed").isZero();
    }

    @Test
    void remaining_isNeverMoreThanWouldBeAdmittedAtOnce_andPacedAtMostOneFewer() {
        Samples.check(
                s -> new Long[] {
                    (long) s.between(1, 50), // limit per second
                    (long) s.between(0, 3), // 0: pace, else warm-up with this cold factor + 1
                    (long) s.oneOf(List.of(0, 1, 150, 500, 2000)), // max-queue, ms
                    (long) s.between(0, 40), // reservations before
                    (long) s.between(0, 3000), // ms between them, at most
                },
                c -> {
                    Duration queue = Duration.ofMillis(c[2]);
                    SmoothRate rate = c[1] == 0
                            ? SmoothRate.pace(c[0], Duration.ofSeconds(1), queue, 0)
                            : SmoothRate.warmUp(c[0], Duration.ofSeconds(1), c[1] + 1, Duration.ofSeconds(2), queue, 0);
                    Random random = new Random(c[3] * 31 + c[4]);
                    long now = 0;
                    for (int i = 0; i < c[3]; i++) {
                        now += random.nextInt(c[4].intValue() + 1) * MS;
                        rate.tryReserve(now, 1 + random.nextInt(c[0].intValue()));
                    }

                    long remaining = rate.remaining(now);
                    long free = rate.nanosUntilFree(now);

                    assertThat(remaining).isBetween(0L, c[0]);
                    if (remaining == 0) {
                        assertThat(rate.tryReserve(now, 1)).as("none remaining").isEqualTo(SmoothRate.REJECTED);
                    }
                    for (long k = 0; k < remaining; k++) {
                        assertThat(rate.tryReserve(now, 1))
                                .as("request %s of %s", k + 1, remaining)
                                .isNotNegative();
                    }
                    // Paced, each wait rounded up to whole ns: remaining may be one short, no more.
                    if (c[1] == 0 && remaining + 1 < c[0]) {
                        rate.tryReserve(now, 1);
                        assertThat(rate.tryReserve(now, 1))
                                .as("two more than remaining")
                                .isEqualTo(SmoothRate.REJECTED);
                    }
                    assertThat(free).isNotNegative();
                });
    }
}
