package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reloads that give a per-client rule a table of its own, under load: the new table takes each
 * client over from the old one when it first sees it, while threads that took the rules before the
 * reload still decide on the old table (and on the one before it: reloads come faster than the old
 * tables' windows pass), with clock readings up to three buckets old, at tables three times too
 * small for the clients. However the decisions on the tables interleave, no client may get more than
 * the limit in any window.
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
        long[][][] tallies = new long[THREADS][clients][0]; // admitted, per thread, client and bucket
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
                    int epoch = Math.toIntExact(rules.ticketStartNanos(ticket) / b);
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
                .as("the run spans many windows")
                .isGreaterThan(10 * spec.length().toNanos());
        long worst = 0;
        for (int key = 0; key < clients; key++) {
            long[] perEpoch = new long[0];
            for (long[][] thread : tallies) {
                long[] row = thread[key];
                perEpoch = row.length > perEpoch.length ? Arrays.copyOf(perEpoch, row.length) : perEpoch;
                for (int e = 0; e < row.length; e++) {
                    perEpoch[e] += row[e];
                }
            }
            for (int e = 0; e < perEpoch.length; e++) {
                long window = 0;
                for (int k = Math.max(0, e - spec.buckets()); k <= e; k++) { // buckets e - n .. e
                    window += perEpoch[k];
                }
                worst = Math.max(worst, window);
            }
        }
        assertThat(worst).isLessThanOrEqualTo(limit);
        assertThat(worst).as("the limit was reached").isEqualTo(limit);
    }
}
