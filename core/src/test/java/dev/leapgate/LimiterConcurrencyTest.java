package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.WindowSpec;
import dev.leapgate.stats.StatsTotals;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The public API under contention, across thousands of bucket rollovers: many threads call a
 * {@link Limiter} while the clock moves in random steps. Every admission's time is recorded; the
 * strict window's promise (no span of W holds more than N) must hold over all of them, and the
 * statistics must account for every call exactly. Paced and borrowing limiters are held to their
 * promises at the times their admissions take effect, after the wait each was given.
 */
class LimiterConcurrencyTest {

    private static final Duration W = Duration.ofSeconds(1);
    private static final int N = 50;
    private static final int THREADS = 6;

    private final ManualClock clock = new ManualClock();

    private static final int STEPS = 2_000;
    private static final int CALLS_PER_STEP = 10;

    /**
     * Runs {@code step} on every thread {@link #STEPS} times; between two steps, while every thread
     * waits at a barrier, the clock moves by 0 to 150 ms (a bucket is 100 ms). Within a step the
     * threads race each other at one clock reading, so each admission's time is the time it was
     * counted at (with a clock moving under them, a thread's reading may be older than the bucket its
     * admission lands in, and only the bucket says when it counts); across steps the window rolls
     * thousands of times. Returns how far the clock moved.
     */
    private long inSteps(java.util.function.IntConsumer step) throws Exception {
        long start = clock.nanoTime();
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        java.util.concurrent.CyclicBarrier barrier = new java.util.concurrent.CyclicBarrier(
                THREADS, () -> clock.advance(Duration.ofMillis(random.nextInt(151))));
        Together.run(THREADS, t -> {
            for (int s = 0; s < STEPS; s++) {
                step.accept(t);
                try {
                    barrier.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        return clock.nanoTime() - start;
    }

    /** The most admissions at times within a half-open span of {@code lengthNanos}. */
    private static int maxInAnySpan(List<Long> times, long lengthNanos) {
        List<Long> sorted = new ArrayList<>(times);
        sorted.sort(null);
        int max = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (sorted.get(to) - sorted.get(from) >= lengthNanos) {
                from++;
            }
            max = Math.max(max, to - from + 1);
        }
        return max;
    }

    @Test
    void tryEnterAndClose_underManyThreads_keepTheStrictPromise_andCountEveryCall() throws Exception {
        Limiter limiter = Limiter.builder("orders")
                .rate(N, WindowSpec.of(W))
                .concurrency(THREADS - 1)
                .clock(clock)
                .build();
        ConcurrentLinkedQueue<Long> admittedAt = new ConcurrentLinkedQueue<>();
        AtomicLong rejected = new AtomicLong();

        long moved = inSteps(t -> {
            for (int i = 0; i < CALLS_PER_STEP; i++) {
                Decision d = limiter.tryEnter();
                if (d instanceof Entry entry) {
                    admittedAt.add(entry.startNanos());
                    if (i % 5 == 0) {
                        entry.fail();
                    }
                    entry.close();
                } else {
                    rejected.incrementAndGet();
                }
            }
        });

        assertThat(moved).as("many windows and bucket rollovers").isGreaterThan(10 * W.toNanos());
        assertThat(maxInAnySpan(new ArrayList<>(admittedAt), W.toNanos())).isEqualTo(N);
        StatsTotals totals = limiter.stats().totals();
        assertThat(totals.admitted()).isEqualTo(admittedAt.size());
        assertThat(totals.rejected()).isEqualTo(rejected.get());
        assertThat(totals.admitted() + totals.rejected()).isEqualTo((long) THREADS * STEPS * CALLS_PER_STEP);
        assertThat(totals.succeeded() + totals.failed()).isEqualTo(totals.admitted());
        assertThat(limiter.stats().inFlight()).isZero();
        assertThat(limiter.stats().lastMinute().peakInFlight()).isBetween(1L, THREADS - 1L);
    }

    @Test
    void tryAcquire_underManyThreads_admitsExactlyWhatTheWindowAllows_andCountsEveryCall() throws Exception {
        Limiter limiter =
                Limiter.builder("pings").rate(N, WindowSpec.of(W)).clock(clock).build();
        ConcurrentLinkedQueue<Long> times = new ConcurrentLinkedQueue<>();

        inSteps(t -> {
            for (int i = 0; i < CALLS_PER_STEP; i++) {
                long now = clock.nanoTime();
                if (limiter.tryAcquire()) {
                    times.add(now);
                }
            }
        });

        assertThat(maxInAnySpan(new ArrayList<>(times), W.toNanos())).isEqualTo(N);
        StatsTotals totals = limiter.stats().totals();
        assertThat(totals.admitted()).isEqualTo(times.size());
        assertThat(totals.admitted() + totals.rejected()).isEqualTo((long) THREADS * STEPS * CALLS_PER_STEP);
        assertThat(limiter.stats().inFlight()).isZero();
    }

    @Test
    void perOriginLimiter_underManyThreads_keepsThePromisePerOrigin() throws Exception {
        Limiter limiter = Limiter.builder("logins")
                .rate(5, WindowSpec.of(W))
                .perOrigin(100)
                .clock(clock)
                .build();
        Origin[] origins = {Origin.id("alice"), Origin.id("bob"), Origin.id("carol")};
        List<ConcurrentLinkedQueue<Long>> times =
                List.of(new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());

        inSteps(t -> {
            for (int i = 0; i < CALLS_PER_STEP; i++) {
                int o = (t + i) % origins.length;
                if (limiter.tryEnter(origins[o]) instanceof Entry entry) {
                    times.get(o).add(entry.startNanos());
                    entry.close();
                }
            }
        });

        for (int o = 0; o < origins.length; o++) {
            assertThat(maxInAnySpan(new ArrayList<>(times.get(o)), W.toNanos()))
                    .as("origin %s", origins[o])
                    .isEqualTo(5);
        }
        assertThat(limiter.stats().totals().admitted())
                .isEqualTo(times.stream().mapToLong(ConcurrentLinkedQueue::size).sum());
    }

    /** The wait the sleeper was last asked for on this thread; 0 when it was not asked. */
    private static final ThreadLocal<long[]> LAST_WAIT = ThreadLocal.withInitial(() -> new long[1]);

    /** Records the wait and returns at once: the clock moves only between steps. */
    private static final Sleeper RECORDING = nanos -> LAST_WAIT.get()[0] = nanos;

    /**
     * Runs {@link #inSteps} with a limiter whose calls may wait: every admission's time is the clock
     * reading of its step plus the wait it was given (its turn, or the start of the bucket it
     * borrowed from). Returns those times; {@code rejected} counts the rest.
     */
    private List<Long> admissionTimes(Limiter limiter, AtomicLong rejected, AtomicLong waited, AtomicLong longest)
            throws Exception {
        ConcurrentLinkedQueue<Long> admittedAt = new ConcurrentLinkedQueue<>();
        inSteps(t -> {
            for (int i = 0; i < CALLS_PER_STEP; i++) {
                long now = clock.nanoTime(); // no other thread moves it within a step
                LAST_WAIT.get()[0] = 0;
                Decision d = limiter.tryEnter();
                if (d instanceof Entry entry) {
                    long wait = LAST_WAIT.get()[0];
                    admittedAt.add(now + wait);
                    waited.addAndGet(wait > 0 ? 1 : 0);
                    longest.accumulateAndGet(wait, Math::max);
                    entry.close();
                } else {
                    rejected.incrementAndGet();
                }
            }
        });
        return new ArrayList<>(admittedAt);
    }

    @Test
    void pacedLimiter_underManyThreads_givesEveryAdmissionATurnOfItsOwn_andCountsEveryCall() throws Exception {
        Duration maxQueue = Duration.ofMillis(100);
        Limiter limiter = Limiter.builder("paced")
                .rate(N, WindowSpec.of(W)) // a turn every 20 ms
                .onExcess(dev.leapgate.rule.OnExcess.pace(maxQueue))
                .concurrency(THREADS)
                .clock(clock)
                .sleeper(RECORDING)
                .build();
        AtomicLong rejected = new AtomicLong();
        AtomicLong waited = new AtomicLong();
        AtomicLong longest = new AtomicLong();

        List<Long> times = admissionTimes(limiter, rejected, waited, longest);

        times.sort(null);
        long interval = W.toNanos() / N;
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 1))
                    .as("turns %d and %d", i - 1, i)
                    .isGreaterThanOrEqualTo(interval);
        }
        assertThat(maxInAnySpan(times, W.toNanos())).isEqualTo(N);
        assertThat(waited.get()).as("requests queued for their turns").isGreaterThan(STEPS);
        assertThat(longest.get()).as("the longest wait").isEqualTo(maxQueue.toNanos());
        StatsTotals totals = limiter.stats().totals();
        assertThat(totals.admitted()).isEqualTo(times.size());
        assertThat(totals.rejected()).isEqualTo(rejected.get());
        assertThat(totals.admitted() + totals.rejected()).isEqualTo((long) THREADS * STEPS * CALLS_PER_STEP);
        assertThat(limiter.stats().inFlight()).isZero();
    }

    @Test
    void borrowingLimiter_underManyThreads_keepsTheStrictPromiseWhereLoansTakeEffect() throws Exception {
        Limiter limiter = Limiter.builder("bursty")
                .rate(N, WindowSpec.of(W))
                .onExcess(dev.leapgate.rule.OnExcess.borrow(Duration.ofMillis(100)))
                .clock(clock)
                .sleeper(RECORDING)
                .build();
        AtomicLong rejected = new AtomicLong();
        AtomicLong borrowed = new AtomicLong();
        AtomicLong longest = new AtomicLong();

        List<Long> times = admissionTimes(limiter, rejected, borrowed, longest);

        // A loan takes effect when its bucket starts: counted there, no span of W holds more than N.
        assertThat(maxInAnySpan(times, W.toNanos())).isEqualTo(N);
        assertThat(borrowed.get()).as("loans").isPositive();
        assertThat(longest.get()).as("the longest wait for a loan").isBetween(1L, 100_000_000L);
        StatsTotals totals = limiter.stats().totals();
        assertThat(totals.admitted()).isEqualTo(times.size());
        assertThat(totals.admitted() + totals.rejected()).isEqualTo((long) THREADS * STEPS * CALLS_PER_STEP);
    }

    /**
     * Callers arriving at one instant on a paced limiter: while every one of them has been decided,
     * those given a turn are all asleep together, at most max-queue / interval of them, each on a
     * turn of its own; half of them are then interrupted, and give back their concurrency slots.
     */
    @Test
    void pacedLimiter_callersAtOneInstant_queueAtMostMaxQueue_eachOnItsOwnTurn_andInterruptedOnesHoldNothing()
            throws Exception {
        int threads = 32;
        java.util.concurrent.CountDownLatch decided = new java.util.concurrent.CountDownLatch(threads);
        java.util.concurrent.atomic.AtomicInteger asleep = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger mostAsleep = new java.util.concurrent.atomic.AtomicInteger();
        ConcurrentLinkedQueue<Long> waits = new ConcurrentLinkedQueue<>();
        ThreadLocal<boolean[]> sleptHere = ThreadLocal.withInitial(() -> new boolean[1]);
        ThreadLocal<boolean[]> interruptHere = ThreadLocal.withInitial(() -> new boolean[1]);
        Sleeper sleeper = nanos -> {
            sleptHere.get()[0] = true;
            waits.add(nanos);
            mostAsleep.accumulateAndGet(asleep.incrementAndGet(), Math::max);
            decided.countDown();
            decided.await(); // every caller decided: no one else can queue now
            asleep.decrementAndGet();
            if (interruptHere.get()[0]) {
                throw new InterruptedException("test");
            }
        };
        Limiter limiter = Limiter.builder("paced")
                .rate(10, WindowSpec.of(W)) // a turn every 100 ms
                .onExcess(dev.leapgate.rule.OnExcess.pace(W)) // at most 10 queued
                .concurrency(threads)
                .clock(clock)
                .sleeper(sleeper)
                .build();
        ConcurrentLinkedQueue<String> outcomes = new ConcurrentLinkedQueue<>();

        Together.run(threads, t -> {
            interruptHere.get()[0] = t % 2 == 0;
            Decision d = limiter.tryEnter();
            if (!sleptHere.get()[0]) {
                decided.countDown();
            }
            if (d instanceof Entry entry) {
                outcomes.add("admitted");
                entry.close();
            } else {
                Rejection r = (Rejection) d;
                boolean interruptKept = Thread.interrupted();
                outcomes.add(r.reason() + (interruptKept ? ", interrupt kept" : ""));
            }
        });

        long interval = W.toNanos() / 10;
        assertThat(mostAsleep.get()).isEqualTo(10);
        assertThat(waits.stream().sorted().toList())
                .as("one turn each, 100 ms apart")
                .containsExactly(java.util.stream.LongStream.rangeClosed(1, 10)
                        .map(k -> k * interval)
                        .boxed()
                        .toArray(Long[]::new));
        long interrupted =
                outcomes.stream().filter("interrupted, interrupt kept"::equals).count();
        long admitted = outcomes.stream().filter("admitted"::equals).count();
        assertThat(admitted + interrupted).isEqualTo(11);
        assertThat(outcomes.stream().filter("limit exceeded"::equals).count()).isEqualTo(threads - 11);
        assertThat(limiter.stats().inFlight()).isZero();
        // Every concurrency slot is free: as many entries as the limit can be held at once (one turn
        // each, the schedule being free after a second), and no more.
        List<Entry> held = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            clock.advance(W);
            Decision d = limiter.tryEnter();
            assertThat(d)
                    .as("entry %d: the interrupted callers gave their slots back", i)
                    .isInstanceOf(Entry.class);
            held.add((Entry) d);
        }
        clock.advance(W);
        assertThat(((Rejection) limiter.tryEnter()).rule()).isEqualTo("concurrency");
        held.forEach(Entry::close);
    }
}
