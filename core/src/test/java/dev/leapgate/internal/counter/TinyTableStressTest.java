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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tables of 1 to 8 origins (one segment) under eight threads and more clients than they hold:
 * nearly every miss evicts, so the lock conversion, the recent victim and the memory of evicted
 * origins are on every path. Exact totals against a clock the test moves.
 */
class TinyTableStressTest {

    private static final int THREADS = 8;

    /** A clock that stands still: every client is admitted exactly its limit if tracked, never more if not. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void standingClock_clientsHeldAtTheirLimit_trackedExactlyEvictedNeverMore(int maxOrigins) throws Exception {
        // 8-bit lanes, 16-bit lanes, a packed window (one built for borrowing, never asked to lend),
        // 32-bit lanes.
        for (int variant = 0; variant < 4; variant++) {
            int limit = variant == 1 ? 300 : variant == 3 ? 70_000 : 7;
            boolean packed = variant == 2;
            int clients = 3 * maxOrigins + 1;
            KeyedRateCounter counter =
                    new KeyedRateCounter(WindowSpec.of(Duration.ofSeconds(10), 4), limit, 0, maxOrigins, packed);
            AtomicLongArray admitted = new AtomicLongArray(clients);
            long now = 5_000_000_000L;
            Together.run(THREADS, id -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int j = 0; j < 40_000; j++) {
                    int key = random.nextInt(clients);
                    long ticket = counter.tryAcquire(key, now, 1);
                    assertThat(ticket).isNotEqualTo(KeyedRateCounter.UNTRACKED);
                    if (ticket >= 0) {
                        admitted.incrementAndGet(key);
                    }
                    assertThat(counter.trackedOrigins()).isBetween(0, maxOrigins);
                }
            });
            for (int key = 0; key < clients; key++) {
                assertThat(admitted.get(key))
                        .as("client %d, limit %d, packed %s", key, limit, packed)
                        .isLessThanOrEqualTo(limit);
            }
            // Tracked clients, all that the table holds, with the clock still standing: exact.
            KeyedRateCounter exact =
                    new KeyedRateCounter(WindowSpec.of(Duration.ofSeconds(10), 4), limit, 0, maxOrigins, packed);
            AtomicLongArray exactAdmitted = new AtomicLongArray(maxOrigins);
            Together.run(THREADS, id -> {
                for (int j = 0; j < 4 * limit; j++) {
                    int key = (j + id) % maxOrigins;
                    if (exact.tryAcquire(key, now, 1) >= 0) {
                        exactAdmitted.incrementAndGet(key);
                    }
                }
            });
            for (int key = 0; key < maxOrigins; key++) {
                assertThat(exactAdmitted.get(key)).as("tracked client %d", key).isEqualTo(limit);
                assertThat(exact.used(key, now)).isEqualTo(limit);
            }
        }
    }

    /** A clock that moves through many windows, some clients idle, some flooding: no window over the limit. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void movingClock_noClientOverItsLimitInAnyWindow(int maxOrigins) throws Exception {
        // (Not a borrowing window: its ticket names the bucket of the thread's reading, which may be
        // older than the bucket it was counted in, so tickets cannot tell windows apart here.)
        for (boolean sliding : new boolean[] {false, true}) {
            WindowSpec spec =
                    new WindowSpec(Duration.ofMillis(100), 4, sliding ? WindowMode.SLIDING : WindowMode.STRICT);
            long b = spec.bucketNanos();
            int limit = 5;
            int clients = 2 * maxOrigins + 2;
            KeyedRateCounter counter = new KeyedRateCounter(spec, limit, 0, maxOrigins);
            AtomicLong clock = new AtomicLong(b);
            long[][][] tallies = new long[THREADS][clients][0];
            Together.run(THREADS, id -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int j = 0; j < 60_000; j++) {
                    if (id == 0 && j % 128 == 0) {
                        clock.addAndGet(random.nextInt(40) == 0 ? 10 * b : random.nextLong(b / 3));
                    }
                    int key = random.nextInt(clients);
                    long ticket = counter.tryAcquire(key, clock.get(), 1);
                    assertThat(ticket).isNotEqualTo(KeyedRateCounter.UNTRACKED);
                    if (ticket >= 0) {
                        int epoch = Math.toIntExact(counter.ticketStartNanos(ticket) / b);
                        long[] row = tallies[id][key];
                        if (epoch >= row.length) {
                            row = Arrays.copyOf(row, Math.max(epoch + 1, 2 * row.length));
                            tallies[id][key] = row;
                        }
                        row[epoch]++;
                    }
                }
            });
            // A strict window counts n + 1 buckets (the current one and n before); a sliding one n.
            assertThat(KeyedCountersConcurrencyTest.worstWindow(tallies, sliding ? spec.buckets() - 1 : spec.buckets()))
                    .as("sliding %s", sliding)
                    .isLessThanOrEqualTo(limit);
            assertThat(counter.trackedOrigins()).isBetween(0, maxOrigins);
        }
    }

    /**
     * Requests in flight at a table of a few origins: no client above its limit, every release
     * finds its count (none thrown, none negative), all counts back to zero, and never more
     * origins tracked than the table holds.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void inFlight_atATinyTable_neverExceeded_neverLost(int maxOrigins) throws Exception {
        int limit = 2;
        int clients = 2 * maxOrigins + 3;
        KeyedInFlightCounter counter = new KeyedInFlightCounter(limit, maxOrigins);
        AtomicIntegerArray holding = new AtomicIntegerArray(clients);
        AtomicIntegerArray maxHolding = new AtomicIntegerArray(clients);
        AtomicLong admitted = new AtomicLong();
        AtomicLong untracked = new AtomicLong();
        Together.run(THREADS, id -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int[] held = new int[4];
            int count = 0;
            for (int j = 0; j < 100_000; j++) {
                if (count == held.length || (count > 0 && random.nextBoolean())) {
                    int i = random.nextInt(count);
                    int key = held[i];
                    held[i] = held[--count];
                    holding.decrementAndGet(key);
                    counter.release(key, 1);
                    continue;
                }
                int key = random.nextInt(clients);
                long result = counter.tryAcquire(key, 1);
                if (result == 1) {
                    admitted.incrementAndGet();
                    maxHolding.accumulateAndGet(key, holding.incrementAndGet(key), Math::max);
                    held[count++] = key;
                } else if (result == KeyedRateCounter.UNTRACKED) {
                    untracked.incrementAndGet();
                } else {
                    assertThat(result).isZero();
                }
                assertThat(counter.trackedOrigins()).isBetween(0, maxOrigins);
            }
            while (count > 0) {
                int key = held[--count];
                holding.decrementAndGet(key);
                counter.release(key, 1);
            }
        });
        assertThat(admitted.get()).isGreaterThan(10_000);
        for (int key = 0; key < clients; key++) {
            assertThat(maxHolding.get(key)).isLessThanOrEqualTo(limit);
            assertThat(counter.inFlight(key)).isZero();
        }
        // Every count back to zero: the whole table is free again for new clients.
        for (int key = 0; key < maxOrigins; key++) {
            assertThat(counter.tryAcquire(1_000 + key, 1)).isEqualTo(1);
        }
    }

    /**
     * Reloads to tables of their own (another max-origins each time, 1 to 9) while threads still
     * decide on the old ones, with readings up to three buckets old and three times as many clients
     * as a table holds: hand-overs, retired tables handing calls on, evictions and the memory of
     * evicted origins all at once. No client gets more than the limit in any window.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void reloadsBetweenTinyTables_noClientOverItsLimitInAnyWindow(int maxOrigins) throws Exception {
        // 8-bit lanes, and 32-bit ones filled by requests of many permits.
        for (int[] limitAndPermits : new int[][] {{5, 1}, {70_000, 14_000}}) {
            int limit = limitAndPermits[0];
            int permits = limitAndPermits[1];
            WindowSpec spec = new WindowSpec(Duration.ofMillis(100), 4, WindowMode.STRICT);
            long b = spec.bucketNanos();
            int clients = 3 * maxOrigins + 1;
            int attempts = 60_000;
            int reloads = 12;
            AtomicLong clock = new AtomicLong();
            AtomicReference<KeyedRateCounter> current =
                    new AtomicReference<>(new KeyedRateCounter(spec, limit, 0, maxOrigins));
            long[][][] tallies = new long[THREADS][clients][0];
            Together.run(THREADS, id -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                KeyedRateCounter rules = current.get();
                for (int j = 0; j < attempts; j++) {
                    if (id == 0 && j % 128 == 0) {
                        clock.addAndGet(random.nextLong(b / 4));
                    }
                    if (id == 0 && j > 0 && j % (attempts / reloads) == 0) {
                        int size = maxOrigins + (j / (attempts / reloads)) % 2; // another table each time
                        current.set(current.get().withLimit(spec, limit, false, size, clock.get()));
                    }
                    if (random.nextInt(id < THREADS / 2 ? 64 : 4096) == 0) {
                        rules = current.get();
                    }
                    int key = random.nextInt(clients);
                    long now = random.nextInt(4) == 0 ? Math.max(0, clock.get() - random.nextLong(3 * b)) : clock.get();
                    long ticket = rules.tryAcquire(key, now, permits);
                    assertThat(ticket).isNotEqualTo(KeyedRateCounter.UNTRACKED);
                    if (ticket >= 0) {
                        int epoch = Math.toIntExact(rules.ticketStartNanos(ticket) / b);
                        long[] row = tallies[id][key];
                        if (epoch >= row.length) {
                            row = Arrays.copyOf(row, Math.max(epoch + 1, 2 * row.length));
                            tallies[id][key] = row;
                        }
                        row[epoch] += permits;
                    }
                }
            });
            assertThat(KeyedCountersConcurrencyTest.worstWindow(tallies, spec.buckets()))
                    .as("limit %d", limit)
                    .isLessThanOrEqualTo(limit);
        }
    }
}
