package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LimiterTest {

    private final ManualClock clock = new ManualClock();

    private Limiter rate(int limit) {
        return Limiter.builder("orders")
                .rate(limit, WindowSpec.of(Duration.ofSeconds(10), 10))
                .clock(clock)
                .build();
    }

    @Test
    void admittedDecision_isAnEntryWithTheLimitAndWhatRemains() {
        Limiter limiter = rate(3);

        Decision first = limiter.tryEnter();

        assertThat(first).isInstanceOf(Entry.class);
        assertThat(first.admitted()).isTrue();
        assertThat(first.quotas()).hasSize(1);
        Quota quota = first.quotas().get(0);
        assertThat(quota.rule()).isEqualTo("rate");
        assertThat(quota.limit()).isEqualTo(3);
        assertThat(quota.window()).isEqualTo(Duration.ofSeconds(10));
        assertThat(quota.remaining()).isEqualTo(2);
        // The admission's bucket [0, 1s) leaves the strict 10 s window at 11 s.
        assertThat(quota.reset()).isEqualTo(Duration.ofSeconds(11));
    }

    @Test
    void rejection_namesTheLimit_andSaysWhenARetryCanSucceed() {
        Limiter limiter = rate(2);
        limiter.tryEnter();
        clock.advance(Duration.ofMillis(2500));
        limiter.tryEnter();

        Decision d = limiter.tryEnter();

        assertThat(d).isInstanceOf(Rejection.class);
        Rejection r = (Rejection) d;
        assertThat(r.admitted()).isFalse();
        assertThat(r.rule()).isEqualTo("rate");
        assertThat(r.reason()).isEqualTo("limit exceeded");
        assertThat(r.quota().limit()).isEqualTo(2);
        assertThat(r.quota().remaining()).isZero();
        // The first admission's bucket [0, 1s) leaves the strict 10 s window at 11 s.
        assertThat(r.retryAfter()).isEqualTo(Duration.ofMillis(8500));
        clock.advance(r.retryAfter());
        assertThat(limiter.tryEnter().admitted()).isTrue();
    }

    @Test
    void rejection_decidedAtTheClocksLowestReading_stillSaysWhenARetryCanSucceed() {
        // Any reading is a legal one (as of System.nanoTime): Long.MIN_VALUE too.
        ManualClock lowest = new ManualClock(Long.MIN_VALUE);
        Limiter perUser = Limiter.builder("per-user")
                .rate(1, WindowSpec.of(Duration.ofSeconds(1), 10))
                .perOrigin()
                .clock(lowest)
                .build();
        Limiter shared = Limiter.builder("shared")
                .rate(2, WindowSpec.of(Duration.ofSeconds(1), 10))
                .clock(lowest)
                .build();
        Origin user = Origin.id("ann");
        assertThat(perUser.tryEnter(user).admitted()).isTrue();
        assertThat(shared.tryEnter().admitted()).isTrue();

        Rejection perOrigin = (Rejection) perUser.tryEnter(user);
        Rejection ofTwo = (Rejection) shared.tryEnter(2);

        // Both admissions' bucket [0, 100ms) leaves the strict 1 s window at 1.1 s.
        for (Rejection r : new Rejection[] {perOrigin, ofTwo}) {
            assertThat(r.retryAfter()).isEqualTo(Duration.ofMillis(1100));
            assertThat(r.quota().reset()).isEqualTo(Duration.ofMillis(1100));
            assertThat(r.quotas()).hasSize(1);
        }
        assertThat(perOrigin.quota().remaining()).isZero();
        assertThat(ofTwo.quota().remaining()).isEqualTo(1);
    }

    @Test
    void entry_closesExactlyOnce_evenWhenClosedTwiceAndFromAnotherThread() throws Exception {
        Limiter limiter = Limiter.builder("export").concurrency(1).clock(clock).build();
        Entry entry = (Entry) limiter.tryEnter();
        assertThat(limiter.tryEnter().admitted()).isFalse();

        Together.run(1, other -> entry.close());
        entry.close();

        assertThat(entry.isClosed()).isTrue();
        assertThat(limiter.stats().inFlight()).isZero();
        Entry next = (Entry) limiter.tryEnter();
        entry.close(); // a late third close must not free the slot the next entry holds
        assertThat(limiter.stats().inFlight()).isEqualTo(1);
        assertThat(limiter.tryEnter().admitted()).isFalse();
        next.close();
    }

    @Test
    void entry_recordsResponseTimeAndOutcome() {
        Limiter limiter = rate(10);
        try (Entry ok = (Entry) limiter.tryEnter()) {
            clock.advance(Duration.ofMillis(30));
        }
        Entry failing = (Entry) limiter.tryEnter();
        clock.advance(Duration.ofMillis(10));
        failing.fail(new IllegalStateException("boom"));
        failing.close();
        limiter.tryEnter().admitted();

        StatsSnapshot s = limiter.stats().lastMinute();
        assertThat(s.resource()).isEqualTo("orders");
        assertThat(s.admitted()).isEqualTo(3);
        assertThat(s.succeeded()).isEqualTo(1);
        assertThat(s.failed()).isEqualTo(1);
        assertThat(s.averageResponseMillis()).isEqualTo(20.0);
        assertThat(s.minResponseMillis()).isEqualTo(10.0);
        assertThat(s.inFlight()).isEqualTo(1);
    }

    @Test
    void stats_inTheLimitersFirstMinute_reportTheShortestResponseTime_notAnEmptySecondsZero() {
        Limiter limiter = Limiter.builder("exports").concurrency(5).clock(clock).build();
        Entry entry = (Entry) limiter.tryEnter();
        clock.advance(Duration.ofMillis(50));
        entry.close();
        clock.advance(Duration.ofSeconds(1)); // second 0 is filed: the window reaches back before it

        StatsSnapshot minute = limiter.stats().lastMinute();
        List<StatsSnapshot> bySecond = limiter.stats().lastMinuteBySecond();

        assertThat(minute.succeeded()).isEqualTo(1);
        assertThat(minute.minResponseMillis()).isEqualTo(50.0);
        assertThat(bySecond.get(59).minResponseNanos()).isEqualTo(50_000_000L);
        assertThat(bySecond.subList(0, 59))
                .as("seconds before the limiter existed: no response, so no minimum")
                .allSatisfy(s -> assertThat(s.minResponseNanos()).isEqualTo(-1));
    }

    @Test
    void rateRejection_givesBackTheConcurrencySlot() {
        Limiter limiter = Limiter.builder("both")
                .rate(1, WindowSpec.of(Duration.ofSeconds(1)))
                .concurrency(5)
                .clock(clock)
                .build();
        limiter.tryEnter();

        assertThat(limiter.tryEnter().admitted()).isFalse();
        assertThat(limiter.stats().inFlight()).isEqualTo(1);
        assertThat(limiter.stats().lastSecond().rejected()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(2));
        try (Entry admitted = (Entry) limiter.tryEnter()) {
            assertThat(limiter.stats().inFlight())
                    .as("the rejected request holds no slot")
                    .isEqualTo(2);
        }
    }

    @Test
    void tryAcquire_countsAnAdmissionWithoutAnEnd_whateverTheLimitDoesWithItsExcess() {
        for (OnExcess onExcess : new OnExcess[] {
            OnExcess.reject(), OnExcess.pace(Duration.ofSeconds(1)), OnExcess.borrow(Duration.ofMillis(500))
        }) {
            Limiter limiter = Limiter.builder("acquired")
                    .rate(2, WindowSpec.of(Duration.ofSeconds(1), 10))
                    .onExcess(onExcess)
                    .clock(clock)
                    .sleeper(clock::advanceNanos)
                    .build();

            assertThat(limiter.tryAcquire()).isTrue();
            assertThat(limiter.tryAcquire()).isTrue();

            assertThat(limiter.stats().totals())
                    .as("%s: admitted, nothing completed, no response time (as tryAcquire says)", onExcess)
                    .extracting("admitted", "succeeded", "failed", "responseMicros")
                    .containsExactly(2L, 0L, 0L, 0L);
            assertThat(limiter.stats().inFlight()).isZero();
        }
    }

    /** A sleeper that records each wait, is interrupted in the first and sleeps the others on the test's clock. */
    private Sleeper interruptedOnce(java.util.List<Long> sleeps) {
        return nanos -> {
            sleeps.add(nanos);
            if (sleeps.size() == 1) {
                throw new InterruptedException();
            }
            clock.advanceNanos(nanos);
        };
    }

    @Test
    void interruptedWhileBorrowing_isRejected_keepsTheInterrupt_andGivesBackTheLoanAndTheSlot() {
        java.util.List<Long> sleeps = new java.util.ArrayList<>();
        Limiter limiter = Limiter.builder("borrowing")
                .rate(2, WindowSpec.of(Duration.ofSeconds(1), 10))
                .onExcess(OnExcess.borrow(Duration.ofMillis(500)))
                .concurrency(3)
                .clock(clock)
                .sleeper(interruptedOnce(sleeps))
                .build();
        ((Entry) limiter.tryEnter()).close();
        ((Entry) limiter.tryEnter()).close();
        clock.advance(Duration.ofMillis(1050)); // both count until 1.1 s: a loan waits 50 ms

        Decision interrupted = limiter.tryEnter();
        boolean interruptKept = Thread.interrupted();

        assertThat(interruptKept).isTrue();
        assertThat(((Rejection) interrupted).reason()).isEqualTo("interrupted");
        assertThat(limiter.stats().inFlight()).isZero();
        Entry next = (Entry) limiter.tryEnter();
        assertThat(sleeps)
                .as("the loan given back: the next request borrows it, waiting as long")
                .containsExactly(50_000_000L, 50_000_000L);
        next.close();
    }

    @Test
    void interruptedWhilePaced_isRejected_keepsTheInterrupt_butItsTurnIsNotHandedBack() {
        java.util.List<Long> sleeps = new java.util.ArrayList<>();
        Limiter limiter = Limiter.builder("paced")
                .rate(10, WindowSpec.of(Duration.ofSeconds(1)))
                .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                .clock(clock)
                .sleeper(interruptedOnce(sleeps))
                .build();
        assertThat(limiter.tryAcquire()).isTrue(); // the first turn: no wait

        assertThat(limiter.tryAcquire()).isFalse(); // waits for the turn at 100 ms, interrupted
        assertThat(Thread.interrupted()).isTrue();
        assertThat(limiter.tryAcquire()).isTrue();
        assertThat(sleeps)
                .as("as the README says: the interrupted turn stays taken, the next one is at 200 ms")
                .containsExactly(100_000_000L, 200_000_000L);
    }

    @Test
    void pacedEntry_quotaSaysHowManyMoreWouldBeAdmittedNow_andWhenTheScheduleIsFreeAgain() {
        Limiter paced = Limiter.builder("paced")
                .rate(10, WindowSpec.of(Duration.ofSeconds(1)))
                .onExcess(OnExcess.pace(Duration.ofMillis(500)))
                .clock(clock)
                .sleeper(nanos -> {}) // every request decided at one reading
                .build();

        Quota first = ((Entry) paced.tryEnter()).quotas().get(0);

        assertThat(first.remaining()).as("turns at 100, 200, ... 500 ms").isEqualTo(5);
        assertThat(first.reset()).isEqualTo(Duration.ofMillis(100));
        for (int i = 0; i < 5; i++) {
            assertThat(paced.tryEnter().admitted()).isTrue();
        }
        assertThat(paced.tryEnter().admitted()).isFalse();
    }

    @Test
    void pacedEntryThatWaited_quotaIsAsOfItsTurn_whenItGoesOn_notAsOfItsDecision() {
        java.util.concurrent.atomic.AtomicBoolean timePasses = new java.util.concurrent.atomic.AtomicBoolean(true);
        Limiter paced = Limiter.builder("paced")
                .rate(10, WindowSpec.of(Duration.ofSeconds(1)))
                .onExcess(OnExcess.pace(Duration.ofMillis(100)))
                .clock(clock)
                .sleeper(nanos -> clock.advanceNanos(timePasses.get() ? nanos : 0))
                .build();
        assertThat(paced.tryEnter().admitted()).isTrue(); // the turn at 0; the next is at 100 ms

        Entry waited = (Entry) paced.tryEnter(); // decided at 0, goes on at 100 ms

        assertThat(waited.startNanos()).isEqualTo(100_000_000L);
        // At 100 ms the next turn is at 200 ms, within max-queue: one more request goes, after it
        // the schedule is free; not "none" and 200 ms, as the schedule looked from the decision.
        Quota quota = waited.quotas().get(0);
        assertThat(quota.remaining()).isEqualTo(1);
        assertThat(quota.reset()).isEqualTo(Duration.ofMillis(100));
        timePasses.set(false); // the next requests all come at 100 ms
        assertThat(paced.tryEnter().admitted()).as("the one told of").isTrue();
        assertThat(paced.tryEnter().admitted()).isFalse();
    }

    @Test
    void longestWindowAndQueue_withALimitOfOne_tellAndKeepExactTimes() {
        List<Long> sleeps = new java.util.ArrayList<>();
        Sleeper sleeper = nanos -> {
            sleeps.add(nanos);
            clock.advanceNanos(nanos);
        };
        Duration day = Duration.ofHours(24);
        Duration minute = Duration.ofMinutes(1);
        Limiter paced = Limiter.builder("daily")
                .rate(1, WindowSpec.of(day))
                .onExcess(OnExcess.pace(minute))
                .clock(clock)
                .sleeper(sleeper)
                .build();
        Limiter borrowing = Limiter.builder("daily-loans")
                .rate(1, WindowSpec.of(day, 1000)) // buckets of 86.4 s
                .onExcess(OnExcess.borrow(minute))
                .clock(clock)
                .sleeper(sleeper)
                .build();
        assertThat(paced.tryEnter().admitted()).isTrue();
        assertThat(borrowing.tryEnter().admitted()).isTrue();

        Rejection notToday = (Rejection) paced.tryEnter();
        assertThat(notToday.retryAfter()).as("the turn at 24 h, less max-queue").isEqualTo(day.minus(minute));
        Rejection noLoan = (Rejection) borrowing.tryEnter();
        // Counted in [0, 86.4 s) until the strict window's 1001st bucket: 24 h 1 min 26.4 s.
        assertThat(noLoan.retryAfter()).isEqualTo(day.plusMillis(86_400));

        clock.advance(notToday.retryAfter());
        Entry paid = (Entry) paced.tryEnter();
        assertThat(paid.startNanos()).as("after max-queue, at its turn").isEqualTo(day.toNanos());
        assertThat(paid.quotas().get(0).reset()).as("the next turn, a day on").isEqualTo(day);
        clock.advance(Duration.ofMillis(86_400 - 30_000)); // 30 s before the bucket [0, 86.4 s) leaves
        Entry loan = (Entry) borrowing.tryEnter();
        assertThat(loan.startNanos()).isEqualTo(day.plusMillis(86_400).toNanos());
        assertThat(sleeps)
                .containsExactly(minute.toNanos(), Duration.ofSeconds(30).toNanos());
    }

    @Test
    void borrowedEntry_quotaResetsAWindowAfterTheBucketItWaitedFor() {
        Limiter borrowing = Limiter.builder("borrowing")
                .rate(2, WindowSpec.of(Duration.ofSeconds(1), 10))
                .onExcess(OnExcess.borrow(Duration.ofMillis(500)))
                .clock(clock)
                .sleeper(clock::advanceNanos)
                .build();
        assertThat(borrowing.tryEnter(2).admitted()).isTrue();
        clock.advance(Duration.ofMillis(1050)); // the strict window counts [0, 100ms) until 1.1 s

        Entry loan = (Entry) borrowing.tryEnter(2); // borrows from [1.1 s, 1.2 s) and waits for it

        assertThat(loan.startNanos()).isEqualTo(1_100_000_000L);
        Quota quota = loan.quotas().get(0);
        // It counts until its bucket leaves the strict window, at 2.2 s: 1.1 s after it went on.
        assertThat(quota.reset()).isEqualTo(Duration.ofMillis(1100));
        clock.advance(quota.reset());
        Entry whole = (Entry) borrowing.tryEnter(2);
        assertThat(whole.startNanos()).as("whole again: no loan, no wait").isEqualTo(clock.nanoTime());
        assertThat(whole.quotas().get(0).remaining()).isZero();
    }

    @Test
    void warmingUpEntry_quotaSaysTheNextRequestWouldBeRejected_untilItsReset() {
        Limiter warming = Limiter.builder("warming")
                .rate(10, WindowSpec.of(Duration.ofSeconds(1)))
                .onExcess(OnExcess.warmUp(3, Duration.ofSeconds(10))) // rejects what would wait
                .clock(clock)
                .build();

        Quota first = ((Entry) warming.tryEnter()).quotas().get(0);

        assertThat(first.remaining()).isZero();
        assertThat(first.reset()).isPositive();
        assertThat(warming.tryEnter().admitted()).isFalse();
        clock.advance(first.reset().minusNanos(1));
        assertThat(warming.tryEnter().admitted()).isFalse();
        clock.advanceNanos(1);
        assertThat(warming.tryEnter().admitted()).isTrue();
    }

    @Test
    void requestOfMorePermitsThanAPacedOrWarmingUpLimit_isRejectedWithAQuota_notAnException() {
        Map<OnExcess, Long> remainingNow = Map.of(
                OnExcess.pace(Duration.ofMillis(500)), 6L, // turns at 0, 100, ... 500 ms
                OnExcess.warmUp(3, Duration.ofSeconds(10)), 1L, // only what need not wait
                OnExcess.warmUpPace(3, Duration.ofSeconds(10), Duration.ofMillis(500)), 2L); // cold: 300 ms apart
        remainingNow.forEach((onExcess, remaining) -> {
            Limiter limiter = Limiter.builder("smooth")
                    .rate(10, WindowSpec.of(Duration.ofSeconds(1)))
                    .onExcess(onExcess)
                    .clock(clock)
                    .build();

            Rejection tooMany = (Rejection) limiter.tryEnter(11);

            assertThat(tooMany.reason()).as("%s", onExcess).isEqualTo("request needs more permits than the limit");
            assertThat(tooMany.retryAfter()).isZero();
            assertThat(tooMany.quotas())
                    .as("%s: nothing is scheduled", onExcess)
                    .singleElement()
                    .extracting(Quota::rule, Quota::limit, Quota::remaining, Quota::reset)
                    .containsExactly("rate", 10L, remaining, Duration.ZERO);
        });
    }

    /** Unchecked, or checked and not declared (a "sneaky throw", as code in other JVM languages does). */
    @ParameterizedTest(name = "checked: {0}")
    @ValueSource(booleans = {false, true})
    void sleeperThatThrows_propagates_andGivesBackTheConcurrencySlot(boolean checked) {
        Exception thrown = checked
                ? new java.io.IOException("this thread may not sleep")
                : new IllegalStateException("this thread may not sleep");
        Limiter limiter = Limiter.builder("paced")
                .rate(10, WindowSpec.of(Duration.ofSeconds(1)))
                .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                .concurrency(1)
                .clock(clock)
                .sleeper(nanos -> LimiterTest.<RuntimeException>sneakyThrow(thrown))
                .build();
        ((Entry) limiter.tryEnter()).close(); // the schedule's first turn: no wait

        assertThatThrownBy(limiter::tryEnter) // its turn is 100 ms away: it sleeps
                .isSameAs(thrown);
        clock.advance(Duration.ofSeconds(1));

        assertThat(limiter.tryEnter())
                .as("the concurrency slot taken before the sleeper threw is free again")
                .isInstanceOf(Entry.class);
    }

    @Test
    void clockThatThrowsACheckedExceptionAtClose_stillGivesBackTheConcurrencySlot() {
        boolean[] failing = {false};
        Clock throwing = () -> {
            if (failing[0]) {
                LimiterTest.<RuntimeException>sneakyThrow(new java.io.IOException("clock gone"));
            }
            return clock.nanoTime();
        };
        Limiter limiter = Limiter.builder("one").concurrency(1).clock(throwing).build();
        Entry entry = (Entry) limiter.tryEnter();

        failing[0] = true;
        assertThatThrownBy(entry::close).isInstanceOf(java.io.IOException.class);
        failing[0] = false;

        assertThat(limiter.tryEnter())
                .as("the slot of the entry whose close met the clock's exception is free again")
                .isInstanceOf(Entry.class);
    }

    /** Throws {@code e}, checked or not, without declaring it: what code in other JVM languages does. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable e) throws E {
        throw (E) e;
    }

    @Test
    void concurrencyRejection_hasNoRetryEstimate() {
        Limiter limiter = Limiter.builder("export").concurrency(1).clock(clock).build();
        limiter.tryEnter();

        Rejection r = (Rejection) limiter.tryEnter();

        assertThat(r.rule()).isEqualTo("concurrency");
        assertThat(r.quota().limit()).isEqualTo(1);
        assertThat(r.quota().isInFlight()).isTrue();
        assertThat(r.quota().remaining()).isZero();
        assertThat(r.retryAfter()).isZero();
    }

    @Test
    void badConfiguration_isRejectedWithClearMessages() {
        assertThatThrownBy(() -> Limiter.builder("GET /orders"))
                .hasMessage("limiter name must be 1 to 64 letters, digits, '.', '-' or '_', was 'GET /orders'");
        assertThatThrownBy(() -> Limiter.builder("r").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("limiter 'r' needs a rate or a concurrency limit");
        assertThatThrownBy(() -> Limiter.builder("r").concurrency(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "limiter 'r': in-flight limit must be between 1 and 2147483647, was 0 (rule 'concurrency')");
        assertThatThrownBy(() -> Limiter.builder("r").concurrency(2).concurrency(3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("concurrency limit was already set to 2");
        WindowSpec second = WindowSpec.of(Duration.ofSeconds(1));
        assertThatThrownBy(() -> Limiter.builder("r").rate(0, second).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limiter 'r': limit must be between 1 and 134217727 for window 1s in 10 buckets, strict,"
                        + " was 0 (rule 'rate')");
        assertThatThrownBy(() -> Limiter.builder("r").rate(1, second).rate(2, second))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("rate limit was already set to 1 per 1s in 10 buckets, strict");
        assertThatThrownBy(() -> Limiter.builder("r").concurrency(1).perOrigin(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxOrigins must be between 1 and 100000000, was 0 (limiter 'r')");
        // A second call would silently keep the first's table size: perOrigin(10).perOrigin() kept 10.
        assertThatThrownBy(() -> Limiter.builder("r").perOrigin(10).perOrigin())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("per-origin was already set, with max origins 10");
        // Setters that kept the last of two calls silently.
        OnExcess pace = OnExcess.pace(Duration.ofMillis(500));
        assertThatThrownBy(() -> Limiter.builder("r").onExcess(pace).onExcess(OnExcess.reject()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("on-excess was already set to " + pace);
        ManualClock clock = new ManualClock();
        assertThatThrownBy(() -> Limiter.builder("r").clock(clock).clock(Clock.system()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("clock was already set to " + clock);
        Sleeper sleeper = nanos -> {};
        assertThatThrownBy(() -> Limiter.builder("r").sleeper(sleeper).sleeper(Sleeper.system()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("sleeper was already set to " + sleeper);
        Limiter limiter = rate(3);
        assertThatThrownBy(() -> limiter.tryEnter(0)).hasMessage("permits must be at least 1, was 0");
        Rejection tooMany = (Rejection) limiter.tryEnter(4);
        assertThat(tooMany.reason()).isEqualTo("request needs more permits than the limit");
    }

    @Test
    void concurrencyLimit_underManyThreads_neverExceeded_andAllSlotsReturn() throws Exception {
        Limiter limiter = Limiter.builder("slow").concurrency(4).build();
        // Entries open from their admission until just before their first close, on whichever
        // thread closes them: never more than the limit at once. (Counted down only at the close:
        // an entry handed to a closer thread still holds its slot until that thread closes it.)
        AtomicLong holding = new AtomicLong();
        AtomicLong maxHolding = new AtomicLong();
        AtomicLong admitted = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        int threads = 8;
        int attempts = 50_000;
        ExecutorService closers = Executors.newFixedThreadPool(2);
        Queue<Future<?>> closes = new ConcurrentLinkedQueue<>(); // to see a close that threw
        Together.run(threads, id -> {
            for (int j = 0; j < attempts; j++) {
                if (limiter.tryEnter() instanceof Entry entry) {
                    admitted.incrementAndGet();
                    maxHolding.accumulateAndGet(holding.incrementAndGet(), Math::max);
                    if ((id + j) % 5 == 0) {
                        closes.add(closers.submit(
                                () -> { // closed on another thread, sometimes twice
                                    holding.decrementAndGet();
                                    entry.close();
                                    entry.close();
                                }));
                    } else {
                        holding.decrementAndGet();
                        entry.close();
                    }
                } else {
                    rejected.incrementAndGet();
                }
            }
        });
        closers.shutdown();
        assertThat(closers.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        for (Future<?> close : closes) {
            close.get(); // rethrows what a close on a closer thread threw
        }

        assertThat(rejected.get()).as("the limit was contended").isPositive();
        assertThat(maxHolding.get()).isBetween(1L, 4L);
        assertThat(limiter.stats().totals().admitted()).isEqualTo(admitted.get());
        assertThat(limiter.stats().totals().admitted()
                        + limiter.stats().totals().rejected())
                .isEqualTo((long) threads * attempts);
        assertThat(limiter.stats().inFlight()).isZero();
    }

    @Test
    void peakConcurrency_neverExceedsTheInFlightLimit_underContention() throws Exception {
        Limiter limiter = Limiter.builder("reports").concurrency(4).clock(clock).build();
        AtomicLong admitted = new AtomicLong();

        // 8 threads race for 4 slots; a slot given back is taken again at once. The statistics
        // count a request in flight after its slot is taken and no longer before it is given back,
        // so no moment can show 5.
        Together.run(8, t -> {
            for (int i = 0; i < 50_000; i++) {
                if (limiter.tryEnter() instanceof Entry entry) {
                    admitted.incrementAndGet();
                    entry.close();
                }
            }
        });

        StatsSnapshot minute = limiter.stats().lastMinute();
        assertThat(minute.peakInFlight()).isBetween(1L, 4L);
        assertThat(minute.inFlight()).isZero();
        assertThat(minute.admitted()).isEqualTo(admitted.get());
        assertThat(minute.admitted() + minute.rejected()).isEqualTo(8 * 50_000);
    }
}
