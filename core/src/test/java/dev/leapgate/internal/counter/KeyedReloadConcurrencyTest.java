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
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reloads that give a per-client rule a table of its own, under load: the new table takes each
 * client over from the old one when it first sees it, while threads that took the rules before the
 * reload still decide on the old table (and on the one before it: reloads come faster than the old
 * tables' windows pass), with clock readings up to three buckets old, at tables three times too
 * small for the clients. However the decisions on the tables interleave, no client may get more than
 * the limit in any window.
 *
 * <p>An admission counts in the bucket its ticket names, but for one case: a borrowing window's
 * ticket for a stale reading names the reading's bucket (no loan to wait for) while the permits are
 * counted in the head, which a later reading moved on (up to the clock's bucket after the call).
 * Then the test counts it only in the windows that hold every bucket it may be counted in: else a
 * sequence one borrowing table produces by design, without any reload (5 at bucket 55, a client's
 * head moved to 60, then a reading at 58 admitted into it with a ticket of 58), would read as 6 in
 * the window of 58.
 */
class KeyedReloadConcurrencyTest {

    private static final int THREADS = 8;

    @ParameterizedTest(name = "borrowing: {0}")
    @ValueSource(booleans = {false, true})
    void reloadsToNewTables_whileThreadsStillDecideOnOldOnes_noClientGetsMoreThanTheLimit(boolean borrowing)
            throws Exception {
        WindowSpec spec = new WindowSpec(Duration.ofMillis(100), 4, WindowMode.STRICT);
        long b = spec.bucketNanos();
        int limit = 5;
        int clients = 900;
        // Each version another max-origins, so another table (same windows: counts carry over exactly).
        int[] maxOrigins = {300, 600, 250, 400, 300, 700, 300, 500, 250, 350};
        int attempts = 200_000;
        int reloadEvery = attempts / maxOrigins.length;
        AtomicLong clock = new AtomicLong();
        AtomicReference<KeyedRateCounter> current =
                new AtomicReference<>(new KeyedRateCounter(spec, limit, 0, maxOrigins[0], borrowing));
        // Admitted, per thread, client and window: the windows (by their newest bucket) sure to hold
        // each admission.
        long[][][] tallies = new long[THREADS][clients][0];
        Together.run(THREADS, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            KeyedRateCounter rules = current.get();
            for (int j = 0; j < attempts; j++) {
                if (id == 0 && j % 256 == 0) {
                    clock.addAndGet(random.nextLong(b / 4));
                }
                if (id == 0 && j > 0 && j % reloadEvery == 0) {
                    current.set(
                            current.get().withLimit(spec, limit, borrowing, maxOrigins[j / reloadEvery], clock.get()));
                }
                // Half the threads take the new rules soon, half keep the old ones for about half a window.
                if (random.nextInt(id < THREADS / 2 ? 64 : 4096) == 0) {
                    rules = current.get();
                }
                int key = random.nextInt(clients);
                long now = random.nextInt(4) == 0 ? Math.max(0, clock.get() - random.nextLong(3 * b)) : clock.get();
                long ticket = rules.tryAcquire(key, now, 1, borrowing ? b : -1);
                if (ticket >= 0) {
                    // The buckets it may be counted in: the ticket's, or, for a borrowing window's
                    // admission that is no loan (its ticket names the reading's bucket), up to the
                    // clock's bucket now.
                    int first = Math.toIntExact(rules.ticketStartNanos(ticket) / b);
                    int last =
                            borrowing && first == now / b ? Math.toIntExact(Math.max(first, clock.get() / b)) : first;
                    int lastWindow = first + spec.buckets(); // windows of buckets e - n .. e
                    long[] row = tallies[id][key];
                    if (lastWindow >= row.length) {
                        row = Arrays.copyOf(row, Math.max(lastWindow + 1, 2 * row.length));
                        tallies[id][key] = row;
                    }
                    for (int e = last; e <= lastWindow; e++) {
                        row[e]++;
                    }
                }
            }
        });

        assertThat(clock.get())
                .as("the run spans many windows")
                .isGreaterThan(10 * spec.length().toNanos());
        long worst = 0;
        for (int key = 0; key < clients; key++) {
            long[] perWindow = new long[0];
            for (long[][] thread : tallies) {
                long[] row = thread[key];
                perWindow = row.length > perWindow.length ? Arrays.copyOf(perWindow, row.length) : perWindow;
                for (int e = 0; e < row.length; e++) {
                    perWindow[e] += row[e];
                }
            }
            for (long window : perWindow) {
                worst = Math.max(worst, window);
            }
        }
        assertThat(worst).isLessThanOrEqualTo(limit);
        assertThat(worst).as("the limit was reached").isEqualTo(limit);
    }

    /**
     * One reload at a fixed clock reading (nothing leaves a window): 16 threads decide and read each
     * client on the old counter or the new one at random, the new table taking clients over while
     * the old one still decides those it holds. Each client had 2 of the old 5; it ends with exactly
     * the new limit admitted in all: nothing lost or counted twice in the hand-over, no request
     * refused as untracked (both tables have room for every client), and every read between what
     * the client had and the new limit, on either counter.
     */
    @ParameterizedTest(name = "new window {0} s, new limit {1}")
    @CsvSource({"20, 8", "10, 300"}) // another window; a limit that needs wider buckets
    void oldAndNewCounterAtOnce_eachClientGetsExactlyTheNewLimit_noneRefusedAsUntracked(int seconds, int newLimit)
            throws Exception {
        long s = 1_000_000_000L;
        int clients = 100;
        KeyedRateCounter old = new KeyedRateCounter(WindowSpec.of(Duration.ofSeconds(10), 10), 5, 0, clients);
        for (int key = 0; key < clients; key++) {
            for (int i = 0; i < 2; i++) {
                assertThat(old.tryAcquire(key, s, 1)).isNotNegative();
            }
        }
        KeyedRateCounter reloaded =
                old.withLimit(WindowSpec.of(Duration.ofSeconds(seconds), 10), newLimit, false, clients, s);
        long now = 2 * s;
        AtomicIntegerArray admitted = new AtomicIntegerArray(clients);
        AtomicLong untracked = new AtomicLong();
        AtomicLong badReads = new AtomicLong();
        Together.run(16, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int j = 0; j < 20_000; j++) {
                int key = random.nextInt(clients);
                KeyedRateCounter counter = random.nextBoolean() ? old : reloaded;
                if (random.nextInt(8) == 0) {
                    long used = counter.used(key, now);
                    badReads.addAndGet(used < 2 || used > newLimit ? 1 : 0);
                    continue;
                }
                long ticket = counter.tryAcquire(key, now, 1);
                if (ticket >= 0) {
                    admitted.incrementAndGet(key);
                } else if (ticket == KeyedRateCounter.UNTRACKED) {
                    untracked.incrementAndGet();
                }
            }
        });

        assertThat(untracked.get()).as("refused as untracked").isZero();
        assertThat(badReads.get()).as("reads below 2 or above the limit").isZero();
        for (int key = 0; key < clients; key++) {
            assertThat(2 + admitted.get(key)).as("client %d", key).isEqualTo(newLimit);
            assertThat(old.used(key, now))
                    .as("client %d on the old counter", key)
                    .isEqualTo(newLimit);
            assertThat(reloaded.used(key, now)).as("client %d", key).isEqualTo(newLimit);
        }
    }

    /**
     * As {@link #oldAndNewCounterAtOnce_eachClientGetsExactlyTheNewLimit_noneRefusedAsUntracked},
     * with limits that take the clients from one bucket width into another (16 to 32 bits over the
     * same window, 8 to 32 over another, 32 bits to a word per bucket, a word per bucket to 32 bits
     * over longer buckets) and requests of many permits, so that the windows fill: each client ends
     * with exactly the new limit admitted in all, whichever counter decided.
     */
    @ParameterizedTest(name = "{0} per {1} s to {2} per {3} s")
    @CsvSource({
        "60000, 10, 70000, 10", // 16-bit lanes to 32-bit, a new table over the same window
        "200, 10, 1000000, 20", // 8-bit lanes to 32-bit over another window
        "70000, 1, 67108864, 1", // 32-bit lanes (100 ms buckets) to a word per bucket: above their largest limit
        "600000000, 10, 700000000, 20" // a word per 1 s bucket to 32-bit lanes of 2 s buckets
    })
    void reloadsAcrossBucketWidths_oldAndNewCounterAtOnce_eachClientGetsExactlyTheNewLimit(
            long oldLimit, int oldSeconds, long newLimit, int newSeconds) throws Exception {
        long s = 1_000_000_000L;
        int clients = 50;
        long had = oldLimit / 2;
        KeyedRateCounter old =
                new KeyedRateCounter(WindowSpec.of(Duration.ofSeconds(oldSeconds), 10), oldLimit, 0, clients);
        for (int key = 0; key < clients; key++) {
            assertThat(old.tryAcquire(key, s / 10, Math.toIntExact(had))).isNotNegative();
        }
        KeyedRateCounter reloaded =
                old.withLimit(WindowSpec.of(Duration.ofSeconds(newSeconds), 10), newLimit, false, clients, s / 10);
        long now = s / 10 + 1;
        int chunk = Math.toIntExact((newLimit - had) / 40);
        AtomicLongArray admitted = new AtomicLongArray(clients);
        AtomicLong untracked = new AtomicLong();
        AtomicLong badReads = new AtomicLong();
        Together.run(8, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int j = 0; j < 4_000; j++) {
                int key = random.nextInt(clients);
                KeyedRateCounter counter = random.nextBoolean() ? old : reloaded;
                if (random.nextInt(8) == 0) {
                    long used = counter.used(key, now);
                    badReads.addAndGet(used < had || used > newLimit ? 1 : 0);
                    continue;
                }
                int permits = random.nextInt(4) == 0 ? 1 + random.nextInt(3) : chunk + random.nextInt(chunk / 4 + 1);
                if (counter == old) {
                    permits = (int) Math.min(permits, oldLimit); // more is an argument error there
                }
                long ticket = counter.tryAcquire(key, now, permits);
                if (ticket >= 0) {
                    admitted.addAndGet(key, permits);
                } else if (ticket == KeyedRateCounter.UNTRACKED) {
                    untracked.incrementAndGet();
                }
            }
        });

        assertThat(untracked.get()).as("refused as untracked").isZero();
        assertThat(badReads.get())
                .as("reads below what a client had or above the new limit")
                .isZero();
        for (int key = 0; key < clients; key++) {
            long total = had + admitted.get(key);
            assertThat(total).as("client %d", key).isLessThanOrEqualTo(newLimit);
            if (total < newLimit) {
                assertThat(reloaded.tryAcquire(key, now, Math.toIntExact(newLimit - total)))
                        .as("client %d, %d short of the limit", key, newLimit - total)
                        .isNotNegative();
            }
            assertThat(reloaded.tryAcquire(key, now, 1)).as("client %d", key).isEqualTo(RateCounter.REJECTED);
            assertThat(old.used(key, now))
                    .as("client %d on the old counter", key)
                    .isEqualTo(newLimit);
            assertThat(reloaded.used(key, now)).as("client %d", key).isEqualTo(newLimit);
        }
    }
}
