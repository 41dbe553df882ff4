package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * The per-origin window in lanes of 8, 16 or 32 bits must decide exactly as the lock-free window of a
 * word per bucket ({@link PackedWindow}, whose guarantees {@link LeapCounterGuaranteeTest} checks):
 * same admissions, same remaining permits, same counts and waits, refunds included; and stay exact
 * under many threads while its window rolls.
 */
class NarrowWindowTest {

    private static final int[] BUCKET_COUNTS = {1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 20};

    @Test
    void decidesExactlyAsTheWordPerBucketWindow_onRandomSchedules() {
        long rejections = 0;
        long toldByReading = 0;
        long wideToldByReading = 0;
        for (int seed = 0; seed < 400; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            WindowMode mode = random.nextBoolean() ? WindowMode.STRICT : WindowMode.SLIDING;
            int buckets = BUCKET_COUNTS[random.nextInt(BUCKET_COUNTS.length)];
            WindowSpec spec = new WindowSpec(Duration.ofMillis(100L * buckets), buckets, mode);
            // Every lane width, and limits at their edges (the largest a 32-bit lane holds with
            // these 100 ms buckets is 2^26 - 1).
            long[] limits = {1, 3, 20, 255, 256, 1000, 65_535, 65_536, 200_000, (1L << 26) - 1};
            long limit = limits[random.nextInt(limits.length)];
            long origin =
                    random.nextLong(-spec.length().toNanos(), spec.length().toNanos());
            PackedWindow wide = new PackedWindow(spec, limit, origin);
            NarrowWindow narrow = new NarrowWindow(spec, limit, origin);
            AtomicLongArray wideCells = new AtomicLongArray(wide.stride());
            AtomicLongArray narrowCells = new AtomicLongArray(narrow.stride());
            long[] wideTickets = new long[64];
            long[] narrowTickets = new long[64];
            int[] ticketPermits = new int[64];
            int tickets = 0;
            long b = spec.bucketNanos();
            long t = origin + random.nextLong(-b, 3 * b);
            for (int step = 0; step < 3_000; step++) {
                String at = "seed " + seed + " (" + spec + ", limit " + limit + "), step " + step;
                t += gap(random, b, spec.length().toNanos());
                // Large requests now and then, large enough to fill a large limit's window.
                int permits = random.nextInt(4) == 0
                        ? 1 + random.nextInt((int) Math.min(limit, Math.max(300, limit / 8)))
                        : 1;
                // A rejection told by reading alone (RateWindow.rejectsNow) writes nothing, and is
                // what tryAcquire then decides.
                String wideCellsBefore = wideCells.toString();
                String narrowCellsBefore = narrowCells.toString();
                boolean wideRejects = wide.rejectsNow(wideCells, 0, t, permits, -1);
                boolean narrowRejects = narrow.rejectsNow(narrowCells, 0, t, permits, -1);
                assertThat(wideCells).as(at).hasToString(wideCellsBefore);
                assertThat(narrowCells).as(at).hasToString(narrowCellsBefore);
                long w = wide.tryAcquire(wideCells, 0, t, permits);
                long n = narrow.tryAcquire(narrowCells, 0, t, permits);
                assertThat(n >= 0).as(at).isEqualTo(w >= 0);
                if (wideRejects || narrowRejects) {
                    assertThat(w).as(at + ": told rejected by reading").isEqualTo(RateCounter.REJECTED);
                    assertThat(n).as(at + ": told rejected by reading").isEqualTo(RateCounter.REJECTED);
                }
                rejections += w < 0 ? 1 : 0;
                toldByReading += narrowRejects ? 1 : 0;
                wideToldByReading += wideRejects ? 1 : 0;
                if (w >= 0) {
                    assertThat(narrow.ticketEpoch(n)).as(at).isEqualTo(wide.ticketEpoch(w));
                    assertThat(narrow.ticketRemaining(n)).as(at).isEqualTo(wide.ticketRemaining(w));
                    int slot = tickets < wideTickets.length ? tickets++ : random.nextInt(wideTickets.length);
                    wideTickets[slot] = w;
                    narrowTickets[slot] = n;
                    ticketPermits[slot] = permits;
                }
                if (tickets > 0 && random.nextInt(5) == 0) {
                    // Refund an earlier admission: into the head, a past bucket, or one gone.
                    int slot = random.nextInt(tickets);
                    // (Whether each reports the refund as returned may differ for a bucket that has
                    // left the window: the word-per-bucket window rolls its head only to admit.)
                    wide.refund(wideCells, 0, wideTickets[slot], ticketPermits[slot]);
                    narrow.refund(narrowCells, 0, narrowTickets[slot], ticketPermits[slot]);
                    wideTickets[slot] = narrowTickets[slot] = -1;
                    tickets = compact(wideTickets, narrowTickets, ticketPermits, tickets);
                }
                long probe = t + random.nextLong(2 * spec.length().toNanos());
                assertThat(narrow.used(narrowCells, 0, t)).as(at).isEqualTo(wide.used(wideCells, 0, t));
                assertThat(narrow.used(narrowCells, 0, probe)).as(at).isEqualTo(wide.used(wideCells, 0, probe));
                long ask = 1 + random.nextLong(limit + 1);
                assertThat(narrow.nanosUntilAvailable(narrowCells, 0, t, ask))
                        .as(at + ", wait for %d", ask)
                        .isEqualTo(wide.nanosUntilAvailable(wideCells, 0, t, ask));
            }
        }
        // Most rejections come in a burst within the newest bucket: those are told by reading.
        assertThat(toldByReading).as("of %d rejections", rejections).isGreaterThan(rejections / 2);
        assertThat(wideToldByReading)
                .as("word per bucket, of %d rejections", rejections)
                .isGreaterThan(rejections / 2);
    }

    /** Drops refunded tickets (marked -1), keeping the others in order; returns how many remain. */
    private static int compact(long[] a, long[] b, int[] permits, int count) {
        int kept = 0;
        for (int i = 0; i < count; i++) {
            if (a[i] >= 0) {
                a[kept] = a[i];
                b[kept] = b[i];
                permits[kept] = permits[i];
                kept++;
            }
        }
        return kept;
    }

    private static long gap(SplittableRandom random, long b, long w) {
        int kind = random.nextInt(10);
        if (kind < 4) {
            return 0; // bursts at one instant
        }
        if (kind < 8) {
            return random.nextLong(b / 2); // within a bucket or the next
        }
        if (kind < 9) {
            return b - random.nextLong(3); // about one bucket, at its boundary
        }
        return random.nextLong(3 * w); // idle for up to three windows
    }

    @Test
    void takesAFewWords_asNarrowAsTheLimitAllows() {
        WindowSpec tenBuckets = WindowSpec.of(Duration.ofSeconds(1), 10);
        assertThat(new NarrowWindow(tenBuckets, 255, 0).stride())
                .as("8-bit lanes")
                .isEqualTo(3);
        assertThat(new NarrowWindow(tenBuckets, 256, 0).stride())
                .as("16-bit lanes")
                .isEqualTo(4);
        assertThat(new PackedWindow(tenBuckets, 256, 0).stride())
                .as("a word per bucket")
                .isEqualTo(13);
        assertThat(new NarrowWindow(WindowSpec.of(Duration.ofSeconds(1), 2), 100, 0).stride())
                .isEqualTo(2);
        assertThat(new NarrowWindow(new WindowSpec(Duration.ofSeconds(1), 1, WindowMode.SLIDING), 100, 0).stride())
                .as("a fixed window has no ring")
                .isEqualTo(1);
        assertThat(new NarrowWindow(tenBuckets, 65_536, 0).stride())
                .as("32-bit lanes")
                .isEqualTo(6);
        assertThat(NarrowWindow.maxLimit(tenBuckets)).as("100 ms buckets").isEqualTo((1L << 26) - 1);
        assertThat(NarrowWindow.maxLimit(WindowSpec.of(Duration.ofMillis(100), 100)))
                .as("1 ms buckets")
                .isEqualTo((1L << 19) - 1);
        assertThat(NarrowWindow.maxLimit(WindowSpec.of(Duration.ofSeconds(1), 2)))
                .as("500 ms buckets")
                .isEqualTo((1L << 28) - 1);
        assertThat(NarrowWindow.maxLimit(WindowSpec.of(Duration.ofSeconds(10), 10)))
                .as("1 s buckets")
                .isEqualTo((1L << 29) - 1);
        assertThat(NarrowWindow.maxLimit(WindowSpec.of(Duration.ofDays(1), 2)))
                .as("long buckets")
                .isEqualTo((1L << 30) - 1);
        assertThatThrownBy(() -> new NarrowWindow(tenBuckets, 1L << 26, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf((1L << 26) - 1))
                .hasMessageContaining(String.valueOf(1L << 26));
    }

    /**
     * The head packs the epoch above a rolling bit above the count, and a ticket the epoch above the
     * count: with the widest count a 32-bit lane allows, both must hold the last epoch of the
     * window's lifetime (2<sup>62</sup> ns) and a full count, at the shortest buckets (1 ms), the
     * default window's and long ones.
     */
    @Test
    void widestCount_holdsTheLastEpochOfTheLifetime() {
        for (WindowSpec spec : new WindowSpec[] {
            WindowSpec.of(Duration.ofMillis(100), 100),
            WindowSpec.of(Duration.ofSeconds(1), 10),
            WindowSpec.of(Duration.ofDays(1), 2)
        }) {
            String bucket = spec.toString();
            long limit = NarrowWindow.maxLimit(spec);
            NarrowWindow window = new NarrowWindow(spec, limit, 0);
            AtomicLongArray cells = new AtomicLongArray(window.stride());
            long last = (1L << 62) - 1;
            long lastEpoch = window.epochAt(last);
            long ticket = window.tryAcquire(cells, 0, last, (int) Math.min(limit, Integer.MAX_VALUE));
            assertThat(ticket).as(bucket).isNotNegative();
            assertThat(window.ticketEpoch(ticket)).as(bucket).isEqualTo(lastEpoch);
            assertThat(window.used(cells, 0, last)).as(bucket).isEqualTo(limit);
            assertThat(window.tryAcquire(cells, 0, last, 1)).as(bucket).isEqualTo(RateWindow.REJECTED);
            assertThat(window.refund(cells, 0, ticket, 1)).as(bucket).isTrue();
            assertThat(window.used(cells, 0, last)).as(bucket).isEqualTo(limit - 1);
        }
    }

    /**
     * As {@link #widestCount_holdsTheLastEpochOfTheLifetime}, at every bucket length where the
     * count's bits change (2<sup>k</sup> - 1 and 2<sup>k</sup> ns, from 1 ms to 24 h) and both
     * modes: a full window rolled into the last epoch keeps every lane's count, a refund into the
     * last epoch's past bucket and one into its head count, tickets are never negative and name the
     * epoch the permits were counted in, and the word an eviction remembers there restores the
     * window as full as it was; the same decisions as the word-per-bucket window's.
     */
    @Test
    void everyBucketLength_fullWindowsAtTheEndOfTheLifetime_packExactly() {
        for (int k = 20; k <= 47; k++) {
            for (long b : new long[] {(1L << k) - 1, 1L << k}) {
                // At least 100 ms, and two buckets at least: a window that holds the bucket before
                // the last.
                int n = (int) Math.max(2, (100_000_000L + b - 1) / b);
                if (b < 1_000_000 || n * b > Duration.ofHours(24).toNanos() || n > 1000) {
                    continue;
                }
                for (WindowMode mode : WindowMode.values()) {
                    WindowSpec spec = new WindowSpec(Duration.ofNanos(n * b), n, mode);
                    long limit = NarrowWindow.maxLimit(spec);
                    String at = spec + " (b = " + b + " ns, limit " + limit + ")";
                    assertThat(limit).as(at).isLessThan(PackedWindow.maxLimit(spec, false));
                    NarrowWindow narrow = new NarrowWindow(spec, limit, 0);
                    PackedWindow wide = new PackedWindow(spec, limit, 0);
                    AtomicLongArray cells = new AtomicLongArray(narrow.stride());
                    AtomicLongArray wideCells = new AtomicLongArray(wide.cellsPerCounter());
                    long last = (1L << 62) - 1;
                    long lastEpoch = narrow.epochAt(last);
                    // Two thirds of the limit a bucket before the last, the rest in the last.
                    long before = last - b;
                    int first = (int) (2 * limit / 3);
                    int rest = (int) (limit - first);
                    long t1 = narrow.tryAcquire(cells, 0, before, first);
                    long w1 = wide.tryAcquire(wideCells, 0, before, first);
                    assertThat(t1).as(at).isNotNegative();
                    assertThat(narrow.ticketEpoch(t1)).as(at).isEqualTo(wide.ticketEpoch(w1));
                    assertThat(narrow.ticketRemaining(t1)).as(at).isEqualTo(rest);
                    long t2 = narrow.tryAcquire(cells, 0, last, rest);
                    long w2 = wide.tryAcquire(wideCells, 0, last, rest);
                    assertThat(t2).as(at).isNotNegative();
                    assertThat(w2).as(at).isNotNegative();
                    assertThat(narrow.ticketEpoch(t2)).as(at).isEqualTo(wide.ticketEpoch(w2));
                    assertThat(narrow.ticketEpoch(t2)).as(at).isEqualTo(lastEpoch);
                    assertThat(narrow.ticketRemaining(t2)).as(at).isZero();
                    assertThat(narrow.used(cells, 0, last)).as(at).isEqualTo(limit);
                    assertThat(narrow.tryAcquire(cells, 0, last, 1)).as(at).isEqualTo(RateWindow.REJECTED);
                    long remembered = narrow.remember(cells, 0, last);
                    assertThat(remembered).as(at).isPositive();
                    assertThat(narrow.epoch(remembered)).as(at).isEqualTo(lastEpoch);
                    assertThat(narrow.count(remembered)).as(at).isEqualTo(limit);
                    AtomicLongArray restored = new AtomicLongArray(narrow.stride());
                    narrow.restore(restored, 0, remembered, last);
                    assertThat(narrow.used(restored, 0, last)).as(at).isEqualTo(limit);
                    assertThat(narrow.tryAcquire(restored, 0, last, 1)).as(at).isEqualTo(RateWindow.REJECTED);
                    // Refunds: into the past bucket (its lane), then into the head.
                    assertThat(narrow.refund(cells, 0, t1, first)).as(at).isTrue();
                    assertThat(wide.refund(wideCells, 0, w1, first)).as(at).isTrue();
                    assertThat(narrow.used(cells, 0, last)).as(at).isEqualTo(rest);
                    assertThat(narrow.refund(cells, 0, t2, rest)).as(at).isTrue();
                    assertThat(narrow.used(cells, 0, last)).as(at).isZero();
                    long t3 = narrow.tryAcquire(cells, 0, last, (int) limit);
                    assertThat(t3).as(at).isNotNegative();
                    assertThat(narrow.ticketEpoch(t3)).as(at).isEqualTo(lastEpoch);
                    assertThat(narrow.nanosUntilAvailable(cells, 0, last, 1))
                            .as(at)
                            .isPositive();
                }
            }
        }
    }

    /**
     * Eight threads on one window while the clock moves, admitting and refunding: per epoch, what
     * was admitted and not returned by a refund never exceeds the limit within a window, and the
     * limit is reached. Refunds into past buckets take the rolling lock too.
     */
    @Test
    void manyThreads_admittingAndRefunding_acrossRolls_neverOvershoot() throws Exception {
        // {limit, permits a request}: 8-bit, 16-bit and 32-bit lanes (seven requests fill the last).
        // And the largest limit 32-bit lanes hold with these 100 ms buckets, all but 3 (2^26 - 4).
        for (long[] limitAndPermits : new long[][] {{7, 1}, {300, 1}, {70_000, 10_000}, {67_108_860, 9_586_980}}) {
            long limit = limitAndPermits[0];
            int permits = (int) limitAndPermits[1];
            WindowSpec spec = new WindowSpec(Duration.ofMillis(400), 4, WindowMode.STRICT);
            NarrowWindow window = new NarrowWindow(spec, limit, 0);
            AtomicLongArray cells = new AtomicLongArray(window.stride());
            long b = spec.bucketNanos();
            AtomicLong clock = new AtomicLong();
            int threads = 8;
            long[][] net = new long[threads][0]; // admitted minus refunded permits, per thread and epoch
            AtomicLong badReads = new AtomicLong(); // reads, while the window rolls, of more than the limit
            Together.run(threads, id -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long[] held = new long[8];
                int heldCount = 0;
                for (int j = 0; j < 100_000; j++) {
                    if (id == 0 && j % 32 == 0) {
                        clock.addAndGet(random.nextInt(100) == 0 ? 10 * b : random.nextLong(b / 3));
                    }
                    if (j % 16 == id) {
                        long now = clock.get();
                        long used = window.used(cells, 0, now);
                        long wait = window.nanosUntilAvailable(cells, 0, now, permits);
                        // A window rolled on by a later reading meanwhile is waited for from this one.
                        long longest = (spec.buckets() + 1) * b + (clock.get() - now);
                        if (used < 0 || used > limit || wait < 0 || wait > longest) {
                            badReads.incrementAndGet();
                        }
                    }
                    long ticket = window.tryAcquire(cells, 0, clock.get(), permits);
                    if (ticket >= 0) {
                        net[id] = add(net[id], window.ticketEpoch(ticket), permits);
                        if (heldCount < held.length) {
                            held[heldCount++] = ticket;
                        }
                    }
                    if (heldCount > 0 && random.nextInt(3) == 0) {
                        long refunded = held[--heldCount];
                        if (window.refund(cells, 0, refunded, permits)) {
                            net[id] = add(net[id], window.ticketEpoch(refunded), -permits);
                        }
                    }
                }
            });

            long[] perEpoch = new long[0];
            for (long[] row : net) {
                for (int e = 0; e < row.length; e++) {
                    perEpoch = add(perEpoch, e, row[e]);
                }
            }
            long worst = 0;
            for (int e = 0; e < perEpoch.length; e++) {
                long inWindow = 0;
                for (int k = Math.max(0, e - spec.buckets()); k <= e; k++) {
                    inWindow += perEpoch[k];
                }
                worst = Math.max(worst, inWindow);
            }
            assertThat(worst).as("limit %d", limit).isLessThanOrEqualTo(limit);
            assertThat(worst).as("limit %d reached", limit).isEqualTo(limit);
            assertThat(badReads.get()).as("limit %d: reads out of range", limit).isZero();
        }
    }

    /**
     * A refund into a past bucket lowers that bucket's count and writes the same newest bucket back,
     * so a wait asked meanwhile cannot tell from the newest bucket that the window changed. Four
     * permits in bucket 0 and one in bucket 1, at a limit of 255: 251 more fit once bucket 0 has
     * left (10 buckets from now) or once its permits are refunded (now); 255 more only once bucket 1
     * has left (11 buckets). Every answer asked while another thread refunds bucket 0 must be one of
     * those, for both kinds of window. (Until 2026-11-26 a wait read the counts twice: it could throw
     * an error or, for 251, answer 11 buckets.)
     */
    @Test
    void waitsAskedWhileRefundsGoIntoAPastBucket_areTheAnswersBeforeOrAfter() throws Exception {
        WindowSpec spec = WindowSpec.of(Duration.ofSeconds(1), 10);
        long b = spec.bucketNanos();
        // The same with units of u permits, in 32-bit lanes: 4u and u, limits 255u.
        for (int u : new int[] {1, 257, 263_172}) {
            long limit = 255L * u;
            for (RateWindow window :
                    new RateWindow[] {new NarrowWindow(spec, limit, 0), new PackedWindow(spec, limit, 0)}) {
                int trials = 4_000;
                AtomicLongArray[] cells = new AtomicLongArray[trials];
                long[][] tickets = new long[trials][4];
                for (int t = 0; t < trials; t++) {
                    cells[t] = new AtomicLongArray(window.stride());
                    for (int i = 0; i < 4; i++) {
                        tickets[t][i] = window.tryAcquire(cells[t], 0, 0, u, -1);
                    }
                    assertThat(window.tryAcquire(cells[t], 0, b, u, -1)).isNotNegative();
                }
                assertThat(window.nanosUntilAvailable(cells[0], 0, b, 251L * u)).isEqualTo(10 * b);
                assertThat(window.nanosUntilAvailable(cells[0], 0, b, 255L * u)).isEqualTo(11 * b);

                // Per trial: the asking thread starts asking, the refunding thread then refunds, and the
                // asking thread stops once the refunds are done: the two overlap in every trial.
                AtomicIntegerArray asking = new AtomicIntegerArray(trials);
                AtomicIntegerArray refunded = new AtomicIntegerArray(trials);
                AtomicBoolean askerFailed = new AtomicBoolean();
                Set<Long> waits251 = ConcurrentHashMap.newKeySet();
                Set<Long> waits255 = ConcurrentHashMap.newKeySet();
                Together.run(2, id -> {
                    for (int t = 0; t < trials; t++) {
                        if (id == 0) {
                            while (asking.get(t) == 0) {
                                if (askerFailed.get()) {
                                    return;
                                }
                                Thread.onSpinWait();
                            }
                            for (long ticket : tickets[t]) {
                                assertThat(window.refund(cells[t], 0, ticket, u))
                                        .isTrue();
                            }
                            refunded.set(t, 1);
                        } else {
                            asking.set(t, 1);
                            try {
                                do {
                                    waits251.add(window.nanosUntilAvailable(cells[t], 0, b, 251L * u));
                                    waits255.add(window.nanosUntilAvailable(cells[t], 0, b, 255L * u));
                                } while (refunded.get(t) == 0);
                            } catch (RuntimeException | Error e) {
                                askerFailed.set(true);
                                throw e;
                            }
                        }
                    }
                });

                String kind = window.getClass().getSimpleName() + ", limit " + limit;
                assertThat(waits251).as(kind).isSubsetOf(0L, 10 * b);
                assertThat(waits255).as(kind).containsExactly(11 * b);
                assertThat(window.nanosUntilAvailable(cells[0], 0, b, 251L * u))
                        .as(kind)
                        .isZero();
            }
        }
    }

    private static long[] add(long[] row, long epoch, long value) {
        int e = Math.toIntExact(epoch);
        long[] grown = e < row.length ? row : Arrays.copyOf(row, Math.max(e + 1, 2 * row.length));
        grown[e] += value;
        return grown;
    }

    /** With every thread in one bucket, the admissions are exactly the limit, whatever the lane width. */
    @Test
    void oneBucket_manyThreads_admitExactlyTheLimit() throws Exception {
        for (long limit : new long[] {255, 65_535, 100_000}) {
            NarrowWindow window = new NarrowWindow(WindowSpec.of(Duration.ofSeconds(10), 10), limit, 0);
            AtomicLongArray cells = new AtomicLongArray(window.stride());
            AtomicLong admitted = new AtomicLong();
            Together.run(8, id -> {
                for (int j = 0; j < 20_000; j++) {
                    if (window.tryAcquire(cells, 0, 5_000_000_000L + j, 1) >= 0) {
                        admitted.incrementAndGet();
                    }
                }
            });
            assertThat(admitted.get()).isEqualTo(limit);
            assertThat(window.used(cells, 0, 5_000_000_000L)).isEqualTo(limit);
        }
    }
}
