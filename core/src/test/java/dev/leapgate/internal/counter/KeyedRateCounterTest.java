package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyedRateCounterTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1000 * MS;
    private static final WindowSpec TEN_SECONDS = WindowSpec.of(Duration.ofSeconds(10), 2);

    /**
     * Threads read the clock before they reach the table, so one may come with a reading older than
     * one another thread evicted or swept a client at. A client forgotten at a later reading (all it
     * counted had left the window then) must not start over at the older one, where what it counted
     * is still in the window.
     */
    @Test
    void aClientForgottenAtALaterReading_doesNotStartOverAtAnEarlierOne() {
        WindowSpec spec = new WindowSpec(Duration.ofMillis(100), 4, WindowMode.STRICT);
        long ms = 1_000_000;
        for (boolean evicted : new boolean[] {true, false}) {
            // Two clients at most: a third evicts; or room for many: an insertion sweeps idle ones.
            KeyedRateCounter c = new KeyedRateCounter(spec, 5, 0, evicted ? 2 : 100);
            long[] admittedAt = new long[20];
            int admitted = 0;
            for (int i = 0; i < 5; i++) {
                long ticket = c.tryAcquire(1, 0, 1);
                assertThat(ticket).isNotNegative();
                admittedAt[admitted++] = c.ticketStartNanos(ticket);
            }
            // 100 ms in 4 buckets of 25 ms, strict: the window at bucket e counts buckets e - 4 to e.
            // At 150 ms (bucket 6) client 1's permits (bucket 0) have left its window: other clients
            // arrive, and client 1 is forgotten.
            for (long other = 2; other < 400; other++) {
                c.tryAcquire(other, 150 * ms, 1);
            }
            assertThat(c.tracks(1))
                    .as("client 1 forgotten (evicted: %s)", evicted)
                    .isFalse();
            // A thread that read the clock at 75 ms (bucket 3) only now asks for client 1.
            for (int i = 0; i < 10; i++) {
                long ticket = c.tryAcquire(1, 75 * ms, 1);
                if (ticket >= 0) {
                    admittedAt[admitted++] = c.ticketStartNanos(ticket);
                }
            }
            assertThat(mostInOneWindow(admittedAt, admitted, spec))
                    .as("permits in one window (evicted: %s)", evicted)
                    .isLessThanOrEqualTo(5);
        }
    }

    /**
     * The same across a reload that gives the rule a table of its own: a thread still on the old
     * table (it took the rules before the reload) may forget a client there at a later reading than
     * the one a thread on the new table brings when it takes that client over. The new table must
     * not start the client over at the older reading, where what it counted is still in the window.
     */
    @Test
    void aClientForgottenByTheOldTableAtALaterReading_doesNotStartOverInTheNewOneAtAnEarlierOne() {
        WindowSpec spec = new WindowSpec(Duration.ofMillis(100), 4, WindowMode.STRICT);
        long ms = 1_000_000;
        for (boolean evicted : new boolean[] {true, false}) {
            KeyedRateCounter old = new KeyedRateCounter(spec, 5, 0, evicted ? 2 : 100);
            long[] admittedAt = new long[20];
            int admitted = 0;
            for (int i = 0; i < 5; i++) {
                long ticket = old.tryAcquire(1, 0, 1);
                assertThat(ticket).isNotNegative();
                admittedAt[admitted++] = old.ticketStartNanos(ticket);
            }
            // A reload at 10 ms: another max-origins, so a table of its own.
            KeyedRateCounter reloaded = old.withLimit(old.window(), 5, false, evicted ? 3 : 200, 10 * ms);
            // A thread on the old table, reading 150 ms: client 1's permits have left its window;
            // other clients arrive, and client 1 is forgotten there.
            for (long other = 2; other < 400; other++) {
                old.tryAcquire(other, 150 * ms, 1);
            }
            assertThat(old.tracks(1))
                    .as("client 1 forgotten by the old table (evicted: %s)", evicted)
                    .isFalse();
            // A thread on the new table that read the clock at 75 ms only now asks for client 1.
            for (int i = 0; i < 10; i++) {
                long ticket = reloaded.tryAcquire(1, 75 * ms, 1);
                if (ticket >= 0) {
                    admittedAt[admitted++] = reloaded.ticketStartNanos(ticket);
                }
            }
            assertThat(mostInOneWindow(admittedAt, admitted, spec))
                    .as("permits in one window (evicted: %s)", evicted)
                    .isLessThanOrEqualTo(5);
        }
    }

    /** The most of the first {@code admitted} admissions (bucket starts) that one strict window holds. */
    private static int mostInOneWindow(long[] admittedAt, int admitted, WindowSpec spec) {
        long window = spec.length().toNanos() + spec.bucketNanos(); // buckets e - n .. e
        int most = 0;
        for (int i = 0; i < admitted; i++) {
            int inWindow = 0;
            for (int j = 0; j < admitted; j++) {
                long d = admittedAt[j] - admittedAt[i];
                inWindow += d >= 0 && d < window ? 1 : 0;
            }
            most = Math.max(most, inWindow);
        }
        return most;
    }

    @Test
    void eachOrigin_hasItsOwnWindow() {
        KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, 2, 0, 100);

        assertThat(c.tryAcquire(1, 0, 1)).isNotNegative();
        assertThat(c.tryAcquire(1, 0, 1)).isNotNegative();
        assertThat(c.tryAcquire(1, 0, 1)).isEqualTo(RateCounter.REJECTED);
        long other = c.tryAcquire(2, 0, 1);

        assertThat(other).isNotNegative();
        assertThat(c.remainingAfter(other)).isEqualTo(1);
        assertThat(c.used(1, 0)).isEqualTo(2);
        assertThat(c.used(2, 0)).isEqualTo(1);
        assertThat(c.used(3, 0)).as("an origin never seen").isZero();
        assertThat(c.trackedOrigins()).isEqualTo(2);
    }

    @Test
    void withLimit_newTablesReloadedOftenerThanTheirWindow_keepOnlyTheTablesWhoseWindowsCount() {
        // A strict window of 10 s in 10 buckets: a new table asks the one before it for 14 s.
        WindowSpec window = WindowSpec.of(Duration.ofSeconds(10), 10);
        KeyedRateCounter c = new KeyedRateCounter(window, 10, 0, 100);
        assertThat(c.tryAcquire(1, 0, 10)).isNotNegative();
        long now = 0;
        // No client comes back meanwhile (a rule of a quiet resource), so no table is asked.
        for (int reload = 1; reload <= 60; reload++) {
            now += S;
            // Another max-origins: another table, which takes the clients over from this one.
            c = c.withLimit(c.window(), 10, false, reload % 2 == 0 ? 100 : 200, now);
        }

        assertThat(c.tablesKept())
                .as("the tables of the last 14 s, not the 61 made in 60 s")
                .isLessThanOrEqualTo(16);
        assertThat(c.tryAcquire(1, now, 10))
                .as("its 10 left the window at 11 s")
                .isNotNegative();
    }

    @Test
    void withLimit_raisedOverABorrowingWindow_handsOverWhatTheWindowsCount_notTheLoansCountedTwice() {
        WindowSpec window = WindowSpec.of(Duration.ofSeconds(10), 10); // strict: 11 buckets of 1 s
        KeyedRateCounter c = new KeyedRateCounter(window, 10, 0, 100, true);
        assertThat(c.tryAcquire(1, 0, 10, -1)).isNotNegative();
        // At 10.5 s the window still counts bucket 0, the next one does not: 10 are lent from
        // bucket 11. The loans count against the window of bucket 10 too (conservatively), which
        // so counts 20, though no window holds more than 10 admissions.
        assertThat(c.tryAcquire(1, 10_500 * MS, 10, S)).isNotNegative();

        // A raised limit on a new table (another max-origins): the client is handed over.
        KeyedRateCounter raised = c.withLimit(c.window(), 20, true, 200, 10_500 * MS);

        assertThat(raised.tryAcquire(1, 11_500 * MS, 10, -1))
                .as("the window of bucket 11 holds the 10 lent: 10 more fit under 20")
                .isNotNegative();
        assertThat(raised.tryAcquire(1, 11_500 * MS, 1, -1)).isEqualTo(RateCounter.REJECTED);
    }

    @Test
    void withLimit_overAnotherWindow_eachClientGoesOnFromWhatTheOldWindowCountsForIt() {
        // 5 per 10 s (buckets of 1 s), then 5 per minute (buckets of 10 s).
        KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, 5, 0, 100);
        for (int i = 0; i < 5; i++) {
            assertThat(c.tryAcquire(1, 2_500 * MS, 1)).isNotNegative();
        }
        assertThat(c.tryAcquire(2, 2_500 * MS, 1)).isNotNegative();

        KeyedRateCounter minute = c.withLimit(WindowSpec.of(Duration.ofMinutes(1), 6), 5, false, 100, 3_000 * MS);

        assertThat(minute.tryAcquire(1, 3_000 * MS, 1)).as("5 of 5 counted").isEqualTo(RateCounter.REJECTED);
        assertThat(admitted(minute, 2, 3_000 * MS, 10)).as("1 of 5 counted").isEqualTo(4);
        assertThat(admitted(minute, 3, 3_000 * MS, 10)).as("a new client").isEqualTo(5);
        assertThat(minute.tryAcquire(1, 62_000 * MS, 1))
                .as("admitted at 2.5 s: still in a minute's window at 62 s")
                .isEqualTo(RateCounter.REJECTED);
        assertThat(admitted(minute, 1, 70_000 * MS, 10)).isEqualTo(5);
    }

    @Test
    void withLimit_overAShorterWindow_holdsWhatTheLongerOneCountsForOneShortWindow() {
        // 5 per minute (buckets of 10 s), then 5 per 10 s (buckets of 1 s).
        KeyedRateCounter c = new KeyedRateCounter(WindowSpec.of(Duration.ofMinutes(1), 6), 5, 0, 100);
        for (int i = 0; i < 5; i++) {
            assertThat(c.tryAcquire(1, 55_000 * MS, 1)).isNotNegative();
        }

        KeyedRateCounter short10s = c.withLimit(TEN_SECONDS, 5, false, 100, 56_000 * MS);

        assertThat(short10s.tryAcquire(1, 64_000 * MS, 1))
                .as("admitted at 55 s: still in a 10 s window at 64 s")
                .isEqualTo(RateCounter.REJECTED);
        assertThat(admitted(short10s, 1, 71_000 * MS, 10)).isEqualTo(5);
    }

    /**
     * A client taken over by shorter buckets that borrow starts with what it counted in the bucket
     * where its old bucket ends, seconds after now: an admission now is counted there, but is no
     * loan, and the client must not wait for that bucket (5 s here, with at most 500 ms of max-wait).
     */
    @Test
    void withLimit_overShorterBucketsThatBorrow_anAdmissionNowIsNoLoanToWaitFor() {
        KeyedRateCounter c = new KeyedRateCounter(WindowSpec.of(Duration.ofMinutes(1), 6), 10, 0, 100);
        assertThat(c.tryAcquire(1, 55_000 * MS, 5)).isNotNegative();
        KeyedRateCounter shorter = c.withLimit(WindowSpec.of(Duration.ofSeconds(10), 10), 10, true, 100, 61_000 * MS);
        long now = 64_000 * MS;

        long ticket = shorter.tryAcquire(1, now, 1, 500 * MS);

        assertThat(ticket).isNotNegative();
        assertThat(shorter.ticketStartNanos(ticket)).as("not after now").isLessThanOrEqualTo(now);
        assertThat(admitted(shorter, 1, now, 10)).as("5 taken over, 1 admitted").isEqualTo(4);
    }

    /**
     * A reload to another window gives the rule a table of its own, which takes client 1 over at
     * its first request there. A thread that took the rules before the reload then decides, or
     * reads, client 1 on the old counter: the old table, which no longer holds it, hands the call
     * on to the new one, so the answer is the new version's (4 of 4 counted: rejected), never
     * "untracked" nor a client that counts nothing. A client the old table never saw is the new
     * version's too.
     */
    @Test
    void aTableTakenOver_handsADecisionOrAReadForAClientItNoLongerHolds_onToTheNewTable() {
        KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, 5, 0, 100);
        for (int i = 0; i < 3; i++) {
            assertThat(c.tryAcquire(1, 1_000 * MS, 1)).isNotNegative();
        }
        KeyedRateCounter minute = c.withLimit(WindowSpec.of(Duration.ofMinutes(1), 6), 4, false, 100, 2_000 * MS);
        assertThat(minute.tryAcquire(1, 2_000 * MS, 1))
                .as("3 taken over, 1 admitted")
                .isNotNegative();

        assertThat(c.tryAcquire(1, 2_000 * MS, 1))
                .as("4 of 4 in the new window")
                .isEqualTo(RateCounter.REJECTED);
        assertThat(c.used(1, 2_000 * MS)).isEqualTo(4);
        // The 3 taken over sit in the minute's bucket [0 s, 10 s), which leaves its window at 70 s.
        assertThat(c.nanosUntilAvailable(1, 2_000 * MS, 1)).isEqualTo(68 * S);
        assertThat(c.nanosUntilAvailable(1, 2_000 * MS, 5))
                .as("above the new limit: never")
                .isEqualTo(Long.MAX_VALUE);

        long ticket = c.tryAcquire(2, 2_000 * MS, 1);
        assertThat(ticket).as("a client never seen, on the old counter").isNotNegative();
        assertThat(c.remainingAfter(ticket)).isEqualTo(3);
        assertThat(c.ticketStartNanos(ticket))
                .as("the old window's bucket where the new one's starts")
                .isZero();
        assertThat(minute.used(2, 2_000 * MS))
                .as("counted once, in the new table")
                .isEqualTo(1);
        assertThat(admitted(minute, 2, 2_000 * MS, 10)).isEqualTo(3);
        assertThat(c.trackedOrigins()).as("the old table took no client in").isZero();
    }

    /**
     * The new table reads a client that only the table it took over from holds (in its windows, or
     * in its memory of evicted clients) as it will take it over, without taking it over: the old
     * table still holds and decides it.
     */
    @Test
    void theNewTable_readsAClientOnlyTheOldOneHolds_asItWillTakeItOver_withoutTakingItOver() {
        for (boolean evicted : new boolean[] {false, true}) {
            KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, 5, 0, evicted ? 1 : 100);
            for (int i = 0; i < 5; i++) {
                assertThat(c.tryAcquire(1, 2_500 * MS, 1)).isNotNegative();
            }
            if (evicted) {
                assertThat(c.tryAcquire(2, 2_500 * MS, 1)).isNotNegative();
                assertThat(c.tracks(1)).isFalse();
            }
            KeyedRateCounter minute = c.withLimit(WindowSpec.of(Duration.ofMinutes(1), 6), 5, false, 100, 3_000 * MS);

            assertThat(minute.used(1, 3_000 * MS)).as("evicted: %s", evicted).isEqualTo(5);
            // Taken over into the minute's bucket [0 s, 10 s): out of its window at 70 s.
            assertThat(minute.nanosUntilAvailable(1, 3_000 * MS, 1))
                    .as("evicted: %s", evicted)
                    .isEqualTo(67 * S);
            assertThat(minute.trackedOrigins()).isZero();
            assertThat(c.tracks(1)).as("still the old table's").isEqualTo(!evicted);
            assertThat(c.tryAcquire(1, 3_000 * MS, 1)).isEqualTo(RateCounter.REJECTED);
            assertThat(minute.tryAcquire(1, 3_000 * MS, 1))
                    .as("evicted: %s", evicted)
                    .isEqualTo(RateCounter.REJECTED);
            assertThat(minute.used(1, 3_000 * MS)).isEqualTo(5);
        }
    }

    private static int admitted(KeyedRateCounter c, long key, long nowNanos, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += c.tryAcquire(key, nowNanos, 1) >= 0 ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void refund_returnsPermitsToTheirOrigin() {
        KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, 2, 0, 100);
        long ticket = c.tryAcquire(7, 0, 2);

        c.refund(7, ticket, 2);

        assertThat(c.used(7, 0)).isZero();
        assertThat(c.tryAcquire(7, 0, 2)).isNotNegative();
    }

    @Test
    void nanosUntilAvailable_isPerOrigin() {
        KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, 1, 0, 100);
        c.tryAcquire(1, 0, 1);

        assertThat(c.nanosUntilAvailable(1, 1 * S, 1)).isEqualTo(14 * S); // bucket [0,5s) leaves strict window at 15 s
        assertThat(c.nanosUntilAvailable(2, 1 * S, 1)).isZero();
        assertThat(c.nanosUntilAvailable(2, 1 * S, 2)).isEqualTo(Long.MAX_VALUE);
    }

    /**
     * What a rejected client is told (its use, and when to retry) is read after the decision, when
     * the response is made: meanwhile another thread's new client may evict it from a full table.
     * Evicted, it is as limited as before (it starts from what the memory of evicted clients holds
     * for it), and the reads must say so, not that it has its whole limit back at once.
     */
    @Test
    void aClientEvictedAfterItsRejection_readsAsLimitedAsItComesBack() {
        // Narrow windows in 8-, 16- and 32-bit lanes, a packed one, a borrowing one.
        for (int limit : new int[] {5, 300, 70_000, 1_500_000_000, -5}) {
            boolean borrowing = limit < 0;
            int n = Math.abs(limit);
            KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, n, 0, 1, borrowing); // one client at a time
            assertThat(c.tryAcquire(1, 1 * S, n)).isNotNegative();
            assertThat(c.tryAcquire(1, 2 * S, 1)).isEqualTo(RateCounter.REJECTED);
            assertThat(c.used(1, 2 * S)).isEqualTo(n);
            assertThat(c.nanosUntilAvailable(1, 2 * S, 1)).isEqualTo(13 * S); // [0,5s) leaves the strict window at 15 s

            // Another thread's new client, decided meanwhile, takes client 1's place.
            assertThat(c.tryAcquire(2, 2 * S, 1)).isNotNegative();
            assertThat(c.evictions()).isEqualTo(1);
            long used = c.used(1, 2 * S);
            long retry = c.nanosUntilAvailable(1, 2 * S, 1);

            assertThat(used).as("limit %d: use of the evicted client", limit).isEqualTo(n);
            // A borrowing window's memory too counts the permits in their own bucket, no longer.
            assertThat(retry).as("limit %d: its wait", limit).isEqualTo(13 * S);
            // As it finds itself when it comes back (in the place of client 2):
            assertThat(c.tryAcquire(1, 2 * S, 1)).isEqualTo(RateCounter.REJECTED);
            assertThat(c.used(1, 2 * S)).isEqualTo(used);
            assertThat(c.nanosUntilAvailable(1, 2 * S, 1)).isEqualTo(retry);
        }
    }

    @Test
    void floodOfOneOffOrigins_neitherGrowsTheTablePastItsBound_norFreesALimitedClient() {
        int maxOrigins = 10_000;
        KeyedRateCounter c = new KeyedRateCounter(WindowSpec.of(Duration.ofMinutes(1), 2), 5, 0, maxOrigins);
        long limited = -42;
        long now = 0;
        for (int i = 0; i < 5; i++) {
            c.tryAcquire(limited, now, 1);
        }
        long maxFootprint = 0;

        for (int i = 0; i < 1_000_000; i++) {
            now += 50_000; // 1M requests over 50 s: every one-off is still inside its window
            assertThat(c.tryAcquire(i, now, 1)).isNotEqualTo(KeyedRateCounter.UNTRACKED);
            if (i % 1000 == 0) {
                assertThat(c.tryAcquire(limited, now, 1))
                        .as("the limited client stays limited at request %d", i)
                        .isEqualTo(RateCounter.REJECTED);
                maxFootprint = Math.max(maxFootprint, c.footprintBytes());
            }
        }

        assertThat(c.trackedOrigins()).isLessThanOrEqualTo(maxOrigins);
        // Tracked or evicted by the last insertions (then remembered), still limited at the end.
        assertThat(c.tryAcquire(limited, now, 1)).isEqualTo(RateCounter.REJECTED);
        assertThat(c.used(limited, now)).isEqualTo(5);
        // The table (about 40 bytes an origin at this window) and the memory of evicted origins (64).
        assertThat(maxFootprint).as("bytes for 10,000 origins").isLessThan(110L * maxOrigins);
    }

    /**
     * Twice as many limited clients as the table holds, each coming back again and again: every
     * one is tracked when it comes (taking the place of another), and none is ever admitted more
     * than its limit within its window, tracked or evicted meanwhile. (A client that arrives once
     * the table is full may be limited early: its cells in the memory of evicted clients may hold
     * another client's use.)
     */
    @Test
    void moreLimitedClientsThanTheTableHolds_allStayLimited_evictedOrNot() {
        KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, 3, 0, 256);
        for (int key = 0; key < 512; key++) {
            int admitted = 0;
            for (int i = 0; i < 5; i++) {
                long ticket = c.tryAcquire(key, 0, 1);
                assertThat(ticket).isNotEqualTo(KeyedRateCounter.UNTRACKED);
                admitted += ticket >= 0 ? 1 : 0;
            }
            if (key < 256) {
                assertThat(admitted)
                        .as("client %d, while the table has room", key)
                        .isEqualTo(3);
            } else {
                assertThat(admitted).as("client %d", key).isLessThanOrEqualTo(3);
            }
        }
        assertThat(c.trackedOrigins()).isEqualTo(256);
        assertThat(c.evictions()).as("each client past the 256th took a place").isEqualTo(256);

        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long now = i * 40_000L; // 4 s in all: inside every client's window
            int key = random.nextInt(512);
            assertThat(c.tryAcquire(key, now, 1))
                    .as("client %d at %d ns", key, now)
                    .isEqualTo(RateCounter.REJECTED);
        }
        assertThat(c.trackedOrigins()).isEqualTo(256);
        for (int key = 0; key < 512; key++) {
            assertThat(c.tryAcquire(key, 15 * S, 1))
                    .as("client %d once its window has passed", key)
                    .isNotNegative();
        }
    }

    /**
     * Three times as many abusers as the table holds pass through it, each at its limit, so that
     * the memory of evicted clients holds 768 of them: a well-behaved newcomer is limited early
     * only where both its words were written by origins of other tags (shared): 11 to 24 of 200
     * newcomers in four runs; without the tags, every word some abuser wrote would count for it:
     * 67 and 72 of 200. (The table's hash seed is random, so the count varies from run to run; the
     * bound is about five standard deviations from either.)
     */
    @Test
    void wellBehavedNewcomers_afterAnEvictedCrowd_areRarelyLimitedEarly() {
        KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, 3, 0, 256);
        long now = 0;
        for (int abuser = 0; abuser < 256 + 768; abuser++) {
            for (int i = 0; i < 3; i++) {
                assertThat(c.tryAcquire(abuser, now, 1)).isNotEqualTo(KeyedRateCounter.UNTRACKED);
            }
            now += 1_000_000;
        }
        int limited = 0;
        int newcomers = 200;
        for (int newcomer = 0; newcomer < newcomers; newcomer++) {
            limited += c.tryAcquire(1_000_000 + newcomer, now, 1) == RateCounter.REJECTED ? 1 : 0;
        }
        assertThat(limited).as("newcomers limited early, of %d", newcomers).isLessThan(40);
        // And no abuser sheds its use by being evicted: every one is still limited.
        for (int abuser = 0; abuser < 256 + 768; abuser++) {
            assertThat(c.tryAcquire(abuser, now, 1)).as("abuser %d", abuser).isEqualTo(RateCounter.REJECTED);
        }
    }

    /**
     * A client of a borrowing window that comes back after being evicted is admitted in the current
     * bucket, as it would have been had it stayed, not lent the next bucket's permits (and made to
     * wait for it); what it left still counts.
     */
    @Test
    void aBorrowingClient_backAfterEviction_isAdmittedInTheCurrentBucket_withoutWaiting() {
        KeyedRateCounter c = new KeyedRateCounter(WindowSpec.of(Duration.ofSeconds(1), 10), 10, 0, 1, true);
        assertThat(c.tryAcquire(1, 50 * MS, 1, 0)).isNotNegative();
        assertThat(c.tryAcquire(2, 50 * MS, 1, 0)).as("evicts client 1").isNotNegative();

        long ticket = c.tryAcquire(1, 60 * MS, 1, 0);
        assertThat(ticket).isNotNegative();
        assertThat(c.ticketStartNanos(ticket)).as("the current bucket's start").isEqualTo(0);
        assertThat(c.used(1, 60 * MS)).as("what it left, and the new admission").isEqualTo(2);
    }

    @Test
    void idleOrigins_expireAsNewOnesArrive_withoutABackgroundThread() {
        KeyedRateCounter c = new KeyedRateCounter(TEN_SECONDS, 5, 0, 100_000);
        for (int key = 0; key < 50_000; key++) {
            c.tryAcquire(key, 0, 1);
        }
        assertThat(c.trackedOrigins()).isEqualTo(50_000);
        long peak = c.footprintBytes();

        long later = 20 * S; // every window above has passed
        for (int key = 1_000_000; key < 1_060_000; key++) {
            c.tryAcquire(key, later, 1);
        }

        // Each insertion sweeps two slots, so the idle origins are gone and their memory reused.
        assertThat(c.trackedOrigins()).isLessThan(70_000);
        assertThat(c.footprintBytes()).isLessThan(peak * 3 / 2);
        for (int key = 1_000_000; key < 1_060_000; key += 997) {
            assertThat(c.used(key, later)).isEqualTo(1);
        }
    }

    /**
     * Issue #11's bound: at most 100 bytes a tracked client at the default window (10 buckets), at
     * every fill from 50,000 to 1,000,000 clients (at 1,000,000: 54 and 45 bytes), the 2-bucket
     * window well below it. Limits up to 255 take 8-bit buckets, up to 65,535 16-bit ones, up to
     * 2<sup>26</sup> - 1 (at the default window's 100 ms buckets) 32-bit ones.
     */
    @Test
    void memoryPerOrigin_atTheDefaultWindow_isUnder100Bytes_at1MillionOrigins() {
        assertThat(worstBytesPerOrigin(WindowSpec.of(Duration.ofSeconds(1)), 1000))
                .as("default window, 16-bit buckets")
                .isLessThan(80.0);
        assertThat(worstBytesPerOrigin(WindowSpec.of(Duration.ofSeconds(1)), 100))
                .as("default window, 8-bit buckets")
                .isLessThan(70.0);
        assertThat(worstBytesPerOrigin(TEN_SECONDS, 100)).as("2 buckets").isLessThan(55.0);
        assertThat(worstBytesPerOrigin(WindowSpec.of(Duration.ofSeconds(1)), 100_000))
                .as("default window, 32-bit buckets")
                .isLessThan(100.0);
        assertThat(worstBytesPerOrigin(WindowSpec.of(Duration.ofSeconds(1)), 100_000_000))
                .as("default window, a limit above 2^26 - 1: a word per bucket")
                .isGreaterThan(100.0);
    }

    /** Bytes a tracked origin at the worst fill seen while inserting 1,000,000 origins. */
    private static double worstBytesPerOrigin(WindowSpec window, long limit) {
        KeyedRateCounter c = new KeyedRateCounter(window, limit, 0, 1_000_000);
        double worst = 0;
        for (int key = 1; key <= 1_000_000; key++) {
            c.tryAcquire(key * 2654435761L, 0, 1);
            if (key % 50_000 == 0) {
                worst = Math.max(worst, (double) c.footprintBytes() / key);
            }
        }
        assertThat(c.trackedOrigins()).isEqualTo(1_000_000);
        return worst;
    }

    /**
     * Reloads over the same window that move a client's limit across every bucket width (8, 16 and
     * 32 bits, and a word per bucket above {@link NarrowWindow#maxLimit}), up and down: a lower
     * limit keeps the table and its bucket width, a higher one may take the clients over into a new
     * table. Either way the client goes on from all it counted, and is admitted exactly what the new
     * limit leaves it.
     */
    @Test
    void withLimit_acrossEveryBucketWidth_upAndDown_aClientGoesOnFromAllItCounted() {
        for (WindowSpec spec : new WindowSpec[] {
            WindowSpec.of(Duration.ofSeconds(1), 10), // 100 ms buckets
            WindowSpec.of(Duration.ofMillis(100), 100), // 1 ms buckets
            WindowSpec.of(Duration.ofDays(1), 2), // 12 h buckets
            new WindowSpec(Duration.ofDays(1), 1, WindowMode.SLIDING) // one 24 h bucket, no ring
        }) {
            long max = NarrowWindow.maxLimit(spec);
            long[] up = {200, 255, 256, 65_535, 65_536, max, max + 1};
            long[] down = {max, 65_536, 65_535, 256, 255, 1, max, max + 1};
            long[] downAndUp = {300, 255, 1, 65_535, 65_536, 200, max};
            for (long[] limits : new long[][] {up, down, downAndUp}) {
                String at = spec + ", limits " + java.util.Arrays.toString(limits);
                KeyedRateCounter c = new KeyedRateCounter(spec, limits[0], 0, 100);
                long used = 0;
                for (int i = 0; i < limits.length; i++) {
                    long limit = limits[i];
                    long now = i * MS / 10; // all in the first bucket: nothing leaves the window
                    if (i > 0) {
                        c = c.withLimit(spec, limit, false, 100, now);
                    }
                    String step = at + ", limit " + limit;
                    long left = Math.max(0, limit - used);
                    if (left > 0) {
                        long ticket = c.tryAcquire(7, now, Math.toIntExact(left));
                        assertThat(ticket).as(step).isNotNegative();
                        assertThat(c.remainingAfter(ticket)).as(step).isZero();
                        used += left;
                    }
                    assertThat(c.tryAcquire(7, now, 1)).as(step).isEqualTo(RateCounter.REJECTED);
                    assertThat(c.used(7, now)).as(step).isEqualTo(used);
                    assertThat(c.used(8, now)).as(step).isZero();
                }
                // Once the window has passed, the client starts over with the last limit.
                long later = 3 * spec.length().toNanos();
                long last = limits[limits.length - 1];
                assertThat(c.used(7, later)).as(at).isZero();
                assertThat(c.tryAcquire(7, later, Math.toIntExact(last))).as(at).isNotNegative();
                assertThat(c.tryAcquire(7, later, 1)).as(at).isEqualTo(RateCounter.REJECTED);
            }
        }
    }

    /**
     * A client at the largest limit 32-bit buckets hold, full, evicted from a table of one client
     * and back: it comes back as full as it left (the remembered word holds a full count), in the
     * window it left, and free once that window has passed; so does it after a reload that keeps the
     * table with a lower limit.
     */
    @Test
    void aClientAtTheLargestNarrowLimit_evictedAndBack_isAsFullAsItLeft() {
        for (WindowSpec spec : new WindowSpec[] {
            WindowSpec.of(Duration.ofSeconds(1), 10),
            WindowSpec.of(Duration.ofMillis(100), 100),
            WindowSpec.of(Duration.ofDays(1), 2),
            new WindowSpec(Duration.ofDays(1), 1, WindowMode.SLIDING)
        }) {
            long max = NarrowWindow.maxLimit(spec);
            long b = spec.bucketNanos();
            // Three readings in three buckets; in one bucket for a fixed window.
            long t1 = b;
            long t2 = spec.buckets() > 1 ? 2 * b : b + b / 4;
            long t3 = spec.buckets() > 1 ? 3 * b : b + b / 2;
            KeyedRateCounter c = new KeyedRateCounter(spec, max, 0, 1);
            assertThat(c.tryAcquire(1, t1, Math.toIntExact(max - 1)))
                    .as("%s", spec)
                    .isNotNegative();
            assertThat(c.tryAcquire(1, t2, 1)).as("%s", spec).isNotNegative();
            assertThat(c.tryAcquire(2, t2, 1)).as("%s: evicts 1", spec).isNotNegative();
            assertThat(c.tracks(1)).isFalse();
            assertThat(c.used(1, t2)).as("%s", spec).isEqualTo(max);
            assertThat(c.tryAcquire(1, t2, 1)).as("%s", spec).isEqualTo(RateCounter.REJECTED);
            assertThat(c.nanosUntilAvailable(1, t2, 1)).as("%s", spec).isPositive();
            // A lower limit over the same window keeps the table: 1 (back in it, having evicted 2)
            // is still full. (Not evicted again here: 2, coming back through a memory of evicted
            // clients as small as this table's, may share a word with 1 and start full itself.)
            KeyedRateCounter lower = c.withLimit(spec, 65_535, false, 1, t3);
            assertThat(lower.tryAcquire(1, t3, 1)).as("%s", spec).isEqualTo(RateCounter.REJECTED);
            assertThat(lower.used(1, t3)).as("%s", spec).isEqualTo(max);
            // Its newest count is in bucket t3 at most: the window after the one whose newest
            // bucket that is has none of it.
            long free = t3 + spec.length().toNanos() + b;
            assertThat(lower.used(1, free)).as("%s", spec).isZero();
            assertThat(lower.tryAcquire(1, free, 65_535)).as("%s", spec).isNotNegative();
        }
    }

    /**
     * Random acquisitions and refunds over a small key space and a moving clock, checked against a
     * plain model: every key's count must match after thousands of insertions, sweeps, shifts on
     * deletion and growths.
     */
    @Test
    void randomOperations_matchASimpleModel() {
        SplittableRandom random = new SplittableRandom(7);
        WindowSpec spec = new WindowSpec(Duration.ofSeconds(1), 1, WindowMode.SLIDING); // fixed 1 s windows
        KeyedRateCounter c = new KeyedRateCounter(spec, 3, 0, 5_000);
        Map<Long, long[]> model = new HashMap<>(); // key -> {epoch, used}
        long now = 0;
        for (int step = 0; step < 200_000; step++) {
            if (random.nextInt(500) == 0) {
                now += random.nextLong(2 * S);
            }
            long key = random.nextLong(3_000) * 0x9E3779B97F4A7C15L;
            long epoch = now / S;
            long[] m = model.computeIfAbsent(key, k -> new long[] {epoch, 0});
            if (m[0] != epoch) {
                m[0] = epoch;
                m[1] = 0;
            }
            long ticket = c.tryAcquire(key, now, 1);
            if (m[1] < 3) {
                assertThat(ticket).as("step %d", step).isNotNegative();
                m[1]++;
                if (random.nextInt(4) == 0) {
                    c.refund(key, ticket, 1);
                    m[1]--;
                }
            } else {
                assertThat(ticket).as("step %d", step).isEqualTo(RateCounter.REJECTED);
            }
        }
        long end = now;
        model.forEach((key, m) -> assertThat(c.used(key, end)).isEqualTo(m[0] == end / S ? m[1] : 0));
    }
}
