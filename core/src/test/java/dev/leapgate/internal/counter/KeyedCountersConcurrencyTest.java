package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Eight threads over a few dozen origins while the clock moves: origins go idle, are swept and
 * reinserted, segments grow. No origin's window may ever hold more than the limit, and
 * no origin may ever hold more than its in-flight limit; all slots come back.
 */
class KeyedCountersConcurrencyTest {

    private static final int THREADS = 8;
    private static final int KEYS = 32;

    /** Limit 20 (buckets in 8-bit lanes), with the clock moving every 64 of thread 0's attempts. */
    @Test
    void perOriginWindows_neverOvershoot_whileEntriesComeAndGo() throws Exception {
        perOriginWindows_neverOvershoot(20, 64);
    }

    /** Limit 300 (16-bit lanes): the clock moves four times as slowly, so that windows fill up. */
    @Test
    void perOriginWindows_in16BitLanes_neverOvershoot_whileEntriesComeAndGo() throws Exception {
        perOriginWindows_neverOvershoot(300, 256);
    }

    private void perOriginWindows_neverOvershoot(int limit, int clockEvery) throws Exception {
        WindowSpec spec = new WindowSpec(Duration.ofMillis(100), 4, WindowMode.STRICT);
        long b = spec.bucketNanos();
        KeyedRateCounter counter = new KeyedRateCounter(spec, limit, 0, 10_000);
        AtomicLong clock = new AtomicLong();
        int attempts = 200_000;
        // Admitted permits per thread, origin and bucket epoch. A rare step jumps 20 buckets, so how
        // far the clock gets is only known afterwards (a bound sized for 20 buckets a step would be
        // ~30 times the usual reach): each row grows to the epochs its thread actually saw.
        long[][][] tallies = new long[THREADS][KEYS][0];
        Together.run(THREADS, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int j = 0; j < attempts; j++) {
                if (id == 0 && j % clockEvery == 0) {
                    // Mostly small steps, sometimes a jump past every window so entries go idle.
                    clock.addAndGet(random.nextInt(50) == 0 ? 20 * b : random.nextLong(b / 2));
                }
                int key = random.nextInt(KEYS);
                long ticket = counter.tryAcquire(key, clock.get(), 1);
                if (ticket >= 0) {
                    int epoch = Math.toIntExact(ticketEpoch(counter, ticket));
                    long[] row = tallies[id][key];
                    if (epoch >= row.length) {
                        row = Arrays.copyOf(row, Math.max(epoch + 1, 2 * row.length));
                        tallies[id][key] = row;
                    }
                    row[epoch]++;
                }
            }
        });

        long worst = worstWindow(tallies, spec.buckets());
        assertThat(worst).isLessThanOrEqualTo(limit);
        assertThat(worst).as("the limit was reached").isEqualTo(limit);
    }

    /**
     * The bound is global across segments: threads inserting into different segments at once must
     * not together push the table past {@code maxOrigins}, not even by one.
     */
    @Test
    void floodOfNewOrigins_fromManyThreads_neverTracksMoreThanMaxOrigins() throws Exception {
        int maxOrigins = 2_048; // 8 segments
        KeyedRateCounter counter = new KeyedRateCounter(WindowSpec.of(Duration.ofMinutes(1), 2), 5, 0, maxOrigins);
        AtomicLong worst = new AtomicLong();
        Together.run(THREADS, id -> {
            for (long j = 0; j < 200_000; j++) {
                counter.tryAcquire(j * THREADS + id, 0, 1); // distinct keys: every one is new
                if ((j & 63) == 0) {
                    worst.accumulateAndGet(counter.trackedOrigins(), Math::max);
                }
            }
        });

        assertThat(worst.get()).as("most origins seen tracked at once").isLessThanOrEqualTo(maxOrigins);
        assertThat(counter.trackedOrigins()).isLessThanOrEqualTo(maxOrigins);
    }

    /**
     * Three times as many clients as the table tracks, all far above their limit, from eight
     * threads while the clock moves through several windows: clients are evicted and come back all
     * the time, and none may ever get more than the limit in a window, tracked or not.
     */
    @Test
    void overSubscribedTable_everyClientKeepsItsLimit_evictedOrNot() throws Exception {
        WindowSpec spec = new WindowSpec(Duration.ofMillis(100), 4, WindowMode.STRICT);
        long b = spec.bucketNanos();
        int limit = 5;
        int clients = 3_000;
        KeyedRateCounter counter = new KeyedRateCounter(spec, limit, 0, 1_000);
        AtomicLong clock = new AtomicLong();
        long[][][] tallies = new long[THREADS][clients][0];
        Together.run(THREADS, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int j = 0; j < 200_000; j++) {
                if (id == 0 && j % 256 == 0) {
                    clock.addAndGet(random.nextLong(b / 4));
                }
                int key = random.nextInt(clients);
                long ticket = counter.tryAcquire(key, clock.get(), 1);
                assertThat(ticket).isNotEqualTo(KeyedRateCounter.UNTRACKED);
                if (ticket >= 0) {
                    int epoch = Math.toIntExact(ticketEpoch(counter, ticket));
                    long[] row = tallies[id][key];
                    if (epoch >= row.length) {
                        row = Arrays.copyOf(row, Math.max(epoch + 1, 2 * row.length));
                        tallies[id][key] = row;
                    }
                    row[epoch]++;
                }
            }
        });

        assertThat(clock.get())
                .as("the run spans several windows")
                .isGreaterThan(4 * spec.length().toNanos());
        assertThat(counter.trackedOrigins()).isEqualTo(1_000);
        long worst = worstWindow(tallies, spec.buckets());
        assertThat(worst).isLessThanOrEqualTo(limit);
        assertThat(worst).as("the limit was reached").isEqualTo(limit);
    }

    /**
     * A rejected client is told when to retry after the decision, when the response is made; by
     * then another thread's new client may have evicted it. Clients far more than the table holds,
     * all at their limit, and a clock that stands still: every rejected client must be told to
     * wait, tracked or evicted meanwhile, as it is rejected when it comes back.
     */
    @Test
    void rejectedClients_evictedByOtherThreadsBeforeTheyAreTold_areStillToldToWait() throws Exception {
        KeyedRateCounter counter = new KeyedRateCounter(WindowSpec.of(Duration.ofSeconds(10), 2), 3, 0, 256);
        long now = 1_000_000_000L;
        AtomicLong rejected = new AtomicLong();
        AtomicLong toldToRetryNow = new AtomicLong();
        Together.run(THREADS, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int j = 0; j < 200_000; j++) {
                long key = random.nextInt(2_000);
                if (counter.tryAcquire(key, now, 1) == RateCounter.REJECTED) {
                    rejected.incrementAndGet();
                    if (counter.nanosUntilAvailable(key, now, 1) == 0 || counter.used(key, now) < 3) {
                        toldToRetryNow.incrementAndGet();
                    }
                }
            }
        });

        assertThat(counter.evictions()).as("clients evicted all along").isGreaterThan(100_000);
        assertThat(rejected.get()).isGreaterThan(1_000_000);
        assertThat(toldToRetryNow.get())
                .as("rejected clients told they could retry now")
                .isZero();
    }

    /**
     * The most permits any origin had admitted in {@code before + 1} consecutive buckets (a strict
     * window: {@code before} = its buckets), from per-thread tallies by epoch.
     */
    static long worstWindow(long[][][] tallies, int before) {
        long worst = 0;
        for (int key = 0; key < tallies[0].length; key++) {
            long[] perEpoch = new long[0];
            for (long[][] thread : tallies) {
                long[] row = thread[key];
                if (row.length > perEpoch.length) {
                    perEpoch = Arrays.copyOf(perEpoch, row.length);
                }
                for (int e = 0; e < row.length; e++) {
                    perEpoch[e] += row[e];
                }
            }
            for (int e = 0; e < perEpoch.length; e++) {
                long window = 0;
                for (int k = Math.max(0, e - before); k <= e; k++) {
                    window += perEpoch[k];
                }
                worst = Math.max(worst, window);
            }
        }
        return worst;
    }

    private static long ticketEpoch(KeyedRateCounter counter, long ticket) {
        return counter.ticketStartNanos(ticket) / counter.window().bucketNanos();
    }

    @Test
    void perOriginInFlight_neverExceeded_andAllSlotsReturn() throws Exception {
        int limit = 2;
        KeyedInFlightCounter counter = new KeyedInFlightCounter(limit, 1_000);
        AtomicIntegerArray holding = new AtomicIntegerArray(KEYS);
        AtomicIntegerArray maxHolding = new AtomicIntegerArray(KEYS);
        AtomicLong admitted = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        Together.run(THREADS, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int j = 0; j < 100_000; j++) {
                int key = random.nextInt(KEYS);
                if (counter.tryAcquire(key, 1) == 1) {
                    admitted.incrementAndGet();
                    int now = holding.incrementAndGet(key);
                    maxHolding.accumulateAndGet(key, now, Math::max);
                    holding.decrementAndGet(key);
                    counter.release(key, 1);
                } else {
                    rejected.incrementAndGet();
                }
            }
        });

        // A counter that never admitted would pass the checks below: it must have admitted most.
        assertThat(admitted.get()).as("slots were taken").isGreaterThan(rejected.get());
        for (int key = 0; key < KEYS; key++) {
            assertThat(maxHolding.get(key)).isLessThanOrEqualTo(limit);
            assertThat(counter.inFlight(key)).isZero();
        }
    }
}
