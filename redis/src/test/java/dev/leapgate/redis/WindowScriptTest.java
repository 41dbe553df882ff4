package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.internal.counter.LeapCounter;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.store.SharedWindow;
import dev.leapgate.store.StoreSettings;
import dev.leapgate.store.Verdict;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Redis script and the in-process window decide alike: the same sequence of decisions and
 * refunds, at the same (injected) times, gets the same answers from both, with the same permits
 * remaining and the same retry times; so do several decisions sent in one call, as coalescing
 * sends them.
 */
class WindowScriptTest {

    private static RedisProcess redis;
    private static RedisWindowStore store;
    /** The test's own connection, to read what the script wrote. */
    private static RedisClient client;

    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start();
        store = RedisWindowStore.open(new StoreSettings(
                URI.create(redis.uri()),
                "script-test",
                Duration.ofSeconds(5),
                dev.leapgate.store.FailurePolicy.OPEN,
                1));
        client = RedisClient.create(redis.uri());
        connection = client.connect();
    }

    @AfterAll
    static void stop() throws Exception {
        // Whichever started (@BeforeAll may have failed half-way); the server is stopped in any case.
        try {
            if (connection != null) {
                connection.close();
            }
            if (client != null) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
            if (store != null) {
                store.close();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    /** The script is in Redis's cache once the store is connected, before any decision needs it. */
    @Test
    void theScript_isLoadedWhenTheStoreConnects_notAtTheFirstDecision() throws Exception {
        connection.sync().scriptFlush();
        try (RedisWindowStore fresh = RedisWindowStore.open(new StoreSettings(
                URI.create(redis.uri()),
                "script-load",
                Duration.ofSeconds(5),
                dev.leapgate.store.FailurePolicy.OPEN,
                1))) {
            String sha = connection.sync().digest(RedisWindowStore.SCRIPT);
            Polling.eventually(
                    "the script loaded",
                    Duration.ofSeconds(10),
                    () -> connection.sync().scriptExists(sha).get(0));
        }
    }

    /**
     * After a reload that lowers a shared rule's limit, decisions under the new limit that arrive
     * while a hot key's calls are in flight wait for the next call with the decisions of the old
     * rules: they must still be decided by the new limit, not go together with the old window's.
     */
    @Test
    void coalescedDecisions_ofAChangedWindow_areDecidedByTheirOwnLimit() throws Exception {
        WindowSpec spec = new WindowSpec(Duration.ofSeconds(60), 1, WindowMode.STRICT);
        SharedWindow before = SharedWindow.of("r", spec, 100);
        SharedWindow lowered = SharedWindow.of("r", spec, 4);
        String key = "{o:reload}:hot";
        List<java.util.concurrent.CompletableFuture<Verdict>> old = new ArrayList<>();
        List<java.util.concurrent.CompletableFuture<Verdict>> now = new ArrayList<>();
        // Redis holds every call for a moment, so the store's calls for the key stay in flight.
        connection.sync().clientPause(500);
        for (int i = 0; i < RedisWindowStore.CALLS_PER_KEY + 1; i++) {
            old.add(store.tryAcquire(before, key, 1).toCompletableFuture()); // the last one waits
        }
        for (int i = 0; i < 10; i++) {
            now.add(store.tryAcquire(lowered, key, 1).toCompletableFuture());
        }
        int oldAdmitted = 0;
        for (var verdict : old) {
            oldAdmitted += verdict.get(5, TimeUnit.SECONDS).admitted() ? 1 : 0;
        }
        int newAdmitted = 0;
        for (var verdict : now) {
            newAdmitted += verdict.get(5, TimeUnit.SECONDS).admitted() ? 1 : 0;
        }

        assertThat(oldAdmitted).isEqualTo(RedisWindowStore.CALLS_PER_KEY + 1);
        assertThat(newAdmitted)
                .as("the lowered limit (4) was reached by the calls before it: none of the new decisions fits")
                .isZero();
    }

    /**
     * A reload that changes a shared rule's window: its keys are of another shape, and a new key
     * starts from what the previous shape's key counts, placed where that one's current bucket
     * ends, so that no permit counts for less long than the new window from when it was admitted.
     */
    @Test
    void aChangedWindow_startsFromWhatThePreviousShapeCounts_andNeverLetsAPermitGoSooner() throws Exception {
        long s = 1_000_000; // us
        SharedWindow tenSeconds = SharedWindow.of("w", WindowSpec.of(Duration.ofSeconds(10), 10), 5);
        SharedWindow minute = SharedWindow.of("w", WindowSpec.of(Duration.ofMinutes(1), 6), 5);
        String key = "{o:changed}" + tenSeconds.keySuffix();
        String newKey = "{o:changed}" + minute.keySuffix();
        long t = 1_000_000 * s + 2_500_000; // 2.5 s into a 10 s bucket of the minute
        for (int i = 0; i < 3; i++) {
            assertThat(store.decide(tenSeconds, key, 1, t)
                            .toCompletableFuture()
                            .get()
                            .admitted())
                    .isTrue();
        }
        SharedWindow changed = minute.after(tenSeconds);
        assertThat(changed.previousKey(newKey)).isEqualTo(key);

        assertThat(admitted(changed, newKey, t + s, 10))
                .as("3 of 5 counted before")
                .isEqualTo(2);
        // Admitted at 1,000,002.5 s: counted in the minute's bucket where the old bucket ends
        // (1,000,010 s), so still at 1,000,062.5 s; the new window alone from then on.
        assertThat(admitted(changed, newKey, t + 60 * s, 1)).isZero();
        assertThat(admitted(minute, newKey, t + 80 * s, 10)).isEqualTo(5);
        assertThat(connection.sync().pttl("script-test:" + newKey))
                .as("the new key has a TTL")
                .isPositive();

        String fresh = "{o:none}" + minute.keySuffix();
        assertThat(admitted(changed, fresh, t, 10))
                .as("nothing counted under the previous shape")
                .isEqualTo(5);
    }

    /**
     * A shared rule's window changed and changed back within a window (10 s, then a minute, then 10
     * s again, a limit of 5): the first shape's key still exists, so the third version used to
     * start from it alone, without what the minute counted, and admitted 4 more within a second (9
     * in all). Found by a review helper. The key now takes what the previous shape's key counts, in
     * the bucket in which that key's newest bucket ends, once: written at that bucket or after, it
     * takes nothing more of it.
     */
    @Test
    void aWindowChangedAndChangedBack_startsFromWhatTheShapeBetweenCounted() throws Exception {
        long s = 1_000_000; // us
        SharedWindow tenSeconds = SharedWindow.of("back", WindowSpec.of(Duration.ofSeconds(10), 10), 5);
        SharedWindow minute = SharedWindow.of("back", WindowSpec.of(Duration.ofMinutes(1), 6), 5);
        long t = 1_000_000 * s + 500_000; // 0.5 s into a 1 s bucket, and into a 10 s one
        String key = "{o:back}" + tenSeconds.keySuffix();
        String minuteKey = "{o:back}" + minute.keySuffix();
        assertThat(admitted(tenSeconds, key, t, 1)).isEqualTo(1);
        assertThat(admitted(minute.after(tenSeconds), minuteKey, t + 200_000, 10))
                .as("the minute goes on from the 10 s window")
                .isEqualTo(4);
        SharedWindow back = tenSeconds.after(minute);
        assertThat(admitted(back, key, t + s, 10))
                .as("back to 10 s: 5 in the last second")
                .isZero();
        // The minute's newest bucket, [1,000,000 s, 1,000,010 s), ends in the 1 s bucket of
        // 1,000,009 s: its 5 count there, and for 10 buckets more.
        assertThat(admitted(back, key, 1_000_019 * s + 900_000, 10)).isZero();
        assertThat(admitted(back, key, 1_000_020 * s, 10)).isEqualTo(5);

        // Taken once: 1 under the first shape, 2 more under the minute (3 in the minute's key,
        // the first among them), then under the first shape again: its own 1 and the minute's 3
        // (the first permit twice, erring towards rejecting until it leaves the window) leave 1.
        String other = "{o:back-once}" + tenSeconds.keySuffix();
        assertThat(admitted(tenSeconds, other, t, 1)).isEqualTo(1);
        assertThat(admitted(minute.after(tenSeconds), "{o:back-once}" + minute.keySuffix(), t + 200_000, 2))
                .isEqualTo(2);
        assertThat(admitted(back, other, t + s, 10)).isEqualTo(1);
        assertCanonical(connection.sync().get("script-test:" + other), "after the change back");
        // Once the first permit's bucket (1,000,000 s) has left the window, 4 count: 1 more, not
        // none, as the minute's 3 taken again would leave.
        assertThat(admitted(back, other, 1_000_011 * s + 500_000, 10)).isEqualTo(1);
    }

    /**
     * A window changed to a finer one and back within one bucket of the coarser (10 s in one
     * bucket, then 10 s in ten, then one bucket again, a limit of 20): the coarse key was last
     * written in the bucket in which the fine key's newest bucket ends, before the fine key was, so
     * comparing the buckets alone it looked as if it had taken the fine key's count already, and
     * the third version started from its own count alone (30 admitted in 3 s). Found by a review
     * helper. What a key took of the previous shape's key is now noted beside it (that key's
     * newest bucket), and a key written in that bucket takes it unless the note says it has; once.
     */
    @Test
    void aWindowChangedToAFinerOneAndBack_withinOneCoarseBucket_startsFromWhatTheFineOneCounted() throws Exception {
        long s = 1_000_000; // us
        SharedWindow coarse = SharedWindow.of("coarse", WindowSpec.of(Duration.ofSeconds(10), 1), 20);
        SharedWindow fine = SharedWindow.of("coarse", WindowSpec.of(Duration.ofSeconds(10), 10), 20);
        long t = 1_000_000 * s + 500_000; // 0.5 s into a 10 s bucket
        String coarseKey = "{o:fine}" + coarse.keySuffix();
        String fineKey = "{o:fine}" + fine.keySuffix();
        assertThat(admitted(coarse, coarseKey, t, 5)).isEqualTo(5);
        assertThat(admitted(fine.after(coarse), fineKey, t + s, 5))
                .as("the fine window goes on from the coarse one's 5")
                .isEqualTo(5);
        SharedWindow back = coarse.after(fine);
        // The coarse key's own 5, and the fine key's 10 (5 of them the coarse key's, counted
        // twice: erring towards rejecting), leave 5.
        assertThat(admitted(back, coarseKey, t + 2 * s, 1))
                .as("back to the coarse window, one admitted")
                .isEqualTo(1);
        assertThat(admitted(back, coarseKey, t + 3 * s, 10))
                .as("the fine key's count taken once: 4 more")
                .isEqualTo(4);
        assertThat(connection.sync().pttl("script-test:" + coarseKey + RedisWindowStore.TOOK))
                .as("the note's TTL")
                .isPositive();
    }

    /**
     * Windows whose buckets differ by less than a millisecond (here a window of 992 ms and one of
     * 1 s, 16 buckets each: 62 ms and 62.5 ms) are of different shapes and have different keys. They
     * used to share one key ({@code 62x16}), so that a reload from one to the other read the
     * previous window's bucket numbers as its own: from 62.5 ms to 62 ms buckets the old newest
     * bucket looked long gone, and the client got a fresh limit at once; from 62 ms to 62.5 ms it
     * looked days ahead, and the client's permits counted there, its key kept, for days.
     */
    @Test
    void windowsWhoseBucketsDifferByLessThanAMillisecond_neverReadEachOthersCounts() throws Exception {
        long t = 60_000_000_000_000L; // us: about 1.9 years after the store's time origin, as in production
        SharedWindow shorter = SharedWindow.of("sub", new WindowSpec(Duration.ofMillis(992), 16, WindowMode.STRICT), 5);
        SharedWindow longer = SharedWindow.of("sub", WindowSpec.of(Duration.ofSeconds(1), 16), 5);

        // 62 ms buckets -> 62.5 ms: once both windows have passed, the client is admitted again.
        String first = "{o:lengthened}" + shorter.keySuffix();
        assertThat(admitted(shorter, first, t, 5)).isEqualTo(5);
        SharedWindow lengthened = longer.after(shorter);
        String then = "{o:lengthened}" + lengthened.keySuffix();
        assertThat(admitted(lengthened, then, t + 3_000_000, 5))
                .as("3 s later, both windows long passed")
                .isEqualTo(5);
        assertThat(connection.sync().pttl("script-test:" + then))
                .as("the key lives a window and a bucket or two, not days")
                .isBetween(1L, longer.ttlMillis());

        // 62.5 ms buckets -> 62 ms: the client's 5 permits still count, no fresh limit.
        assertThat(admitted(longer, "{o:shortened}" + longer.keySuffix(), t, 5)).isEqualTo(5);
        SharedWindow shortened = shorter.after(longer);
        assertThat(admitted(shortened, "{o:shortened}" + shortened.keySuffix(), t + 1_000, 5))
                .as("the permits admitted 1 ms before, under the previous window")
                .isZero();

        assertThat(shorter.keySuffix()).isEqualTo(":sub:62x16");
        assertThat(longer.keySuffix()).isEqualTo(":sub:62.5x16");
    }

    private static int admitted(SharedWindow window, String key, long nowMicros, int attempts) throws Exception {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            admitted += store.decide(window, key, 1, nowMicros)
                            .toCompletableFuture()
                            .get()
                            .admitted()
                    ? 1
                    : 0;
        }
        return admitted;
    }

    @ParameterizedTest(name = "{0} per {1} ms in {2} buckets, {3}")
    @CsvSource({
        "5, 1000, 1, STRICT",
        "5, 1000, 2, STRICT",
        "10, 1000, 10, STRICT",
        "10, 1000, 10, SLIDING",
        "3, 60000, 6, SLIDING",
        "8, 100, 4, STRICT",
        "2, 100, 10, STRICT"
    })
    void sameDecisionsAsTheLocalWindow(long limit, long lengthMillis, int buckets, WindowMode mode) throws Exception {
        WindowSpec spec = new WindowSpec(Duration.ofMillis(lengthMillis), buckets, mode);
        LeapCounter local = new LeapCounter(spec, limit, 0);
        SharedWindow shared = SharedWindow.of("r", spec, limit);
        String key = "{o:seq}:" + limit + ":" + lengthMillis + ":" + buckets + ":" + mode;
        SplittableRandom random = new SplittableRandom(limit * 31 + buckets * 7 + lengthMillis);
        long bucketMicros = spec.bucketNanos() / 1000;
        long now = 1_000_000_000L + random.nextLong(bucketMicros); // microseconds
        List<long[]> admitted = new ArrayList<>(); // {local ticket, shared bucket, permits}
        int admissions = 0;
        int rejections = 0;
        for (int step = 0; step < 400; step++) {
            now += random.nextInt(4) == 0 ? random.nextLong(2 * bucketMicros) : random.nextLong(bucketMicros / 4 + 1);
            if (!admitted.isEmpty() && random.nextInt(8) == 0) {
                long[] a = admitted.remove(random.nextInt(admitted.size()));
                local.refund(a[0], (int) a[2]);
                store.refund(shared, key, a[1], (int) a[2]);
                continue;
            }
            if (random.nextInt(6) == 0) { // several decisions in one call, as coalescing sends them
                int[] batch = new int[2 + random.nextInt(3)];
                for (int i = 0; i < batch.length; i++) {
                    batch[i] = 1 + random.nextInt((int) Math.min(3, limit));
                }
                List<java.util.concurrent.CompletableFuture<Verdict>> verdicts =
                        store.decideTogether(shared, key, now, batch);
                verdicts.get(batch.length - 1).get(5, TimeUnit.SECONDS);
                timeless(key);
                for (int i = 0; i < batch.length; i++) {
                    long ticket = local.tryAcquire(now * 1000, batch[i]);
                    Verdict verdict = verdicts.get(i).get(5, TimeUnit.SECONDS);
                    String at = "step " + step + ", decision " + i + " of a call, at " + now + " us";
                    assertThat(verdict.admitted()).as(at).isEqualTo(ticket >= 0);
                    if (ticket >= 0) {
                        admissions++;
                        assertThat(verdict.remaining()).as(at).isEqualTo(local.remainingAfter(ticket));
                        admitted.add(new long[] {ticket, verdict.bucket(), batch[i]});
                    } else {
                        rejections++;
                        assertThat(verdict.retryMicros() * 1000)
                                .as(at)
                                .isEqualTo(local.nanosUntilAvailable(now * 1000, batch[i]));
                    }
                }
                continue;
            }
            int permits = 1 + random.nextInt((int) Math.min(3, limit));
            long ticket = local.tryAcquire(now * 1000, permits);
            Verdict verdict = store.decide(shared, key, permits, now)
                    .toCompletableFuture()
                    .get(5, TimeUnit.SECONDS);
            timeless(key);
            String at = "step " + step + " at " + now + " us, " + permits + " permits";
            assertThat(verdict.admitted()).as(at).isEqualTo(ticket >= 0);
            String value = connection.sync().get("script-test:" + key);
            assertCanonical(value, at);
            if (verdict.admitted()) {
                assertThat(Long.parseLong(value.substring(0, value.indexOf(';')), 16))
                        .as("the newest bucket, in hexadecimal, %s", at)
                        .isEqualTo(verdict.bucket());
            }
            if (ticket >= 0) {
                admissions++;
                assertThat(verdict.remaining()).as(at).isEqualTo(local.remainingAfter(ticket));
                assertThat(verdict.bucket()).as(at).isEqualTo(now / bucketMicros);
                admitted.add(new long[] {ticket, verdict.bucket(), permits});
            } else {
                rejections++;
                assertThat(verdict.retryMicros() * 1000)
                        .as(at)
                        .isEqualTo(local.nanosUntilAvailable(now * 1000, permits));
            }
        }
        assertThat(admissions).isGreaterThan(20);
        assertThat(rejections).isGreaterThan(20);
        // A decision a window and a bucket later (nothing left in the window) writes the key with
        // its TTL again.
        store.decide(shared, key, 1, now + spec.length().toNanos() / 1000 + bucketMicros)
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        long ttl = redis.call(c -> c.pttl("script-test:" + key));
        assertThat(ttl).isPositive().isLessThanOrEqualTo(shared.ttlMillis());
    }

    /**
     * Takes the key's TTL away: the sequence runs on a clock of its own, but Redis expires keys on
     * its real one, and a 100 ms window's key lives 120 ms, which a stall of this machine outlasts.
     */
    private void timeless(String key) {
        connection.sync().persist("script-test:" + key);
    }

    /**
     * A key outlives every count in it although an admission into the current bucket keeps its
     * TTL: a write made while Redis's clock is behind the window's newest bucket (a clock stepped
     * back, a failover to a server whose clock lags) adds the difference to the TTL.
     */
    @Test
    void aWriteBehindTheNewestBucket_extendsTheTtlByTheDifference() throws Exception {
        WindowSpec spec = new WindowSpec(Duration.ofSeconds(1), 10, WindowMode.STRICT);
        SharedWindow shared = SharedWindow.of("ttl", spec, 100);
        String key = "{o:ttl}";
        long now = 2_000_000_000L; // microseconds
        assertThat(store.decide(shared, key, 1, now)
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS)
                        .admitted())
                .isTrue();
        assertThat(connection.sync().pttl("script-test:" + key)).isBetween(1L, shared.ttlMillis());

        // Redis's clock 5 s behind: the permit counts in the newest bucket, which now ends more
        // than 5 s + the TTL from now.
        assertThat(store.decide(shared, key, 1, now - 5_000_000)
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS)
                        .admitted())
                .isTrue();
        long extended = connection.sync().pttl("script-test:" + key);
        assertThat(extended).isBetween(shared.ttlMillis() + 4_900, shared.ttlMillis() + 5_100);

        // Back on time, in the same bucket: the admission keeps that TTL.
        assertThat(store.decide(shared, key, 1, now + 1)
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS)
                        .admitted())
                .isTrue();
        assertThat(connection.sync().pttl("script-test:" + key)).isBetween(shared.ttlMillis() + 4_000, extended);
        assertThat(SharedLimitTest.counted(connection.sync().get("script-test:" + key)))
                .isEqualTo(3);
    }

    /**
     * A window written by an earlier build (its head in decimal, then {@code :}), in a Redis shared
     * across an upgrade: read as this build's hexadecimal head, it would lie decades ahead, every
     * permit counted into it, its key kept for decades, its client rejected until then. It is not
     * read: the window starts afresh, with the TTL of a window.
     */
    @Test
    void aWindowWrittenByAnEarlierBuild_startsAfresh_notDecadesAhead() throws Exception {
        SharedWindow shared = SharedWindow.of("earlier", WindowSpec.of(Duration.ofMinutes(1)), 5); // 6 s buckets
        String key = "{o:earlier}" + shared.keySuffix();
        long now = 10_012_140L * 6_000_000L; // microseconds: bucket 10012140, late 2026
        connection.sync().set("script-test:" + key, "10012140:4,0,1|1"); // 5 counted, the limit
        for (int i = 1; i <= 5; i++) {
            Verdict verdict =
                    store.decide(shared, key, 1, now + i).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(verdict.admitted()).as("decision %d", i).isTrue();
            assertThat(verdict.bucket()).isEqualTo(10_012_140L);
            assertThat(verdict.remaining()).isEqualTo(5 - i);
        }
        assertThat(store.decide(shared, key, 1, now + 6)
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS)
                        .admitted())
                .as("the sixth, over the limit")
                .isFalse();
        assertThat(connection.sync().get("script-test:" + key)).isEqualTo("98c5ec;5"); // 10012140 in hexadecimal
        assertThat(connection.sync().pttl("script-test:" + key)).isBetween(1L, shared.ttlMillis());
    }

    /**
     * A Redis whose clock reads a time before the store's origin (2025-01-01; a host whose clock
     * was lost, before NTP set it) decides nothing, and says why: it used to write negative
     * bucket numbers that the next call could not read (a fresh window at every call, the limit
     * never reached) and answer them as bucket numbers that core took for rejections, so that
     * every request of every shared rule was rejected as over its limit.
     */
    @Test
    void aRedisClockBeforeTheStoresOrigin_decidesNothing_andSaysWhy() throws Exception {
        SharedWindow shared = SharedWindow.of("clock", WindowSpec.of(Duration.ofSeconds(1)), 5);
        String key = "{o:clock}" + shared.keySuffix();
        java.util.concurrent.CompletableFuture<Verdict> verdict =
                store.decide(shared, key, 1, -86_400_000_000L).toCompletableFuture(); // a day before
        assertThat(verdict)
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableThat()
                .withMessageContaining("Redis's clock reads 86400 s before 2025-01-01T00:00Z");
        assertThat(connection.sync().exists("script-test:" + key)).isZero();
    }

    /**
     * The window's text is in its one form, whichever path of the script wrote it: {@code
     * head;c0}, or {@code head;c0,...,cn|sum} with {@code cn > 0} and the sum of {@code c1..cn},
     * the head in hexadecimal (lower case), the counts in decimal.
     */
    private static void assertCanonical(String value, String at) {
        assertThat(value).as(at).matches("[0-9a-f]+;\\d+(,\\d+)*(\\|\\d+)?");
        String[] counts =
                value.substring(value.indexOf(';') + 1).split("\\|")[0].split(",");
        if (counts.length == 1) {
            assertThat(value).as(at).doesNotContain("|");
            return;
        }
        long older = 0;
        for (int i = 1; i < counts.length; i++) {
            older += Long.parseLong(counts[i]);
        }
        assertThat(Long.parseLong(counts[counts.length - 1]))
                .as("last count of %s, %s", value, at)
                .isPositive();
        assertThat(value).as(at).endsWith("|" + older);
    }
}
