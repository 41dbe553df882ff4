package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.testing.Together;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * The eviction of {@link OriginTable} checked entry by entry: which origin makes room for a new
 * one, and that an origin at saturation never does. Each table draws a fresh hash seed, so each
 * run lays its index out anew; the deletions of every eviction shift index slots back, so the slot
 * a recent insertion was recorded at often names another entry, or none, by the time it is read.
 */
class OriginTableTest {

    /** One cell, the pressure itself: an entry is saturated at {@code saturation} and above. */
    record Count(long saturation) implements OriginTable.State {
        @Override
        public int stride() {
            return 1;
        }

        @Override
        public long pressure(AtomicLongArray cells, int base, long nowNanos) {
            return cells.get(base);
        }
    }

    private static final OriginTable.Op ADD = (cells, base, now, delta, unused) -> cells.addAndGet(base, delta);

    /**
     * A table full of origins none of which is used again, then a flood of one-offs: each takes
     * the place of the one inserted {@link OriginTable#RECENT} insertions before it, never of an
     * older one, nor of a saturated one, however the deletions before it moved its index slot.
     */
    @Test
    void floodAtAFullTable_evictsTheOriginInsertedSixteenBefore_whereverDeletionsShiftedIt() {
        // One segment; its arrays last grow at the 61st origin, more than RECENT before it is full.
        int max = 90;
        int holders = 8;
        long saturation = 1L << 40;
        int flood = 2_000;
        for (int run = 0; run < 50; run++) {
            OriginTable table = new OriginTable(new Count(saturation), max);
            for (long key = 0; key < max; key++) {
                long pressure = key < holders ? saturation + key : key + 1;
                assertThat(table.apply(key, 0, pressure, 0, ADD, true)).isEqualTo(pressure);
            }
            for (int i = 0; i < flood; i++) {
                long key = 1_000 + i;
                assertThat(table.apply(key, 0, 1, 0, ADD, true))
                        .as("run %d, one-off %d", run, i)
                        .isEqualTo(1);
                // The origin RECENT insertions before is gone (a miss sets no referenced bit).
                long gone = i < OriginTable.RECENT ? max - OriginTable.RECENT + i : key - OriginTable.RECENT;
                assertThat(table.apply(gone, 0, 0, 0, ADD, false))
                        .as("run %d, one-off %d evicts origin %d", run, i, gone)
                        .isEqualTo(OriginTable.ABSENT);
            }

            assertThat(table.size()).isEqualTo(max);
            assertThat(table.evictions()).isEqualTo(flood);
            for (long key = 0; key < max - OriginTable.RECENT; key++) {
                long pressure = key < holders ? saturation + key : key + 1;
                assertThat(table.apply(key, 0, 0, 0, ADD, false))
                        .as("run %d, origin %d is still tracked, untouched", run, key)
                        .isEqualTo(pressure);
            }
            for (int i = flood - OriginTable.RECENT; i < flood; i++) {
                assertThat(table.apply(1_000 + i, 0, 0, 0, ADD, false))
                        .as("run %d, one-off %d", run, i)
                        .isEqualTo(1);
            }
        }
    }

    /**
     * Most origins sit in the entry their hash predicts, so that a lookup reads the index slot and
     * the entry at once: while the arrays grow (each growth moves every entry), and at a full table
     * through a flood of new origins (each takes its predicted entry when it is free, not only the
     * victim's). Every origin keeps its own count through the moves.
     */
    @Test
    void mostOriginsSitInTheirPredictedEntry_throughGrowthAndAFlood() {
        int max = 20_000;
        for (int run = 0; run < 5; run++) {
            OriginTable table = new OriginTable(new Count(Long.MAX_VALUE), max);
            double lowest = 1;
            for (long key = 0; key < max; key++) {
                table.apply(key, 0, key + 1, 0, ADD, true);
                if (key % 1_000 == 999) {
                    lowest = Math.min(lowest, (double) table.atPredictedEntry() / table.size());
                }
            }
            for (long key = 0; key < max; key++) {
                assertThat(table.apply(key, 0, 0, 0, ADD, false))
                        .as("run %d: origin %d", run, key)
                        .isEqualTo(key + 1);
            }
            assertThat(lowest)
                    .as("run %d: the lowest share while the table grew", run)
                    .isGreaterThan(0.55);

            for (long key = max; key < 5L * max; key++) {
                table.apply(key, 0, 1, 0, ADD, true);
            }
            assertThat(table.size()).isEqualTo(max);
            assertThat(table.evictions()).isEqualTo(4L * max);
            assertThat((double) table.atPredictedEntry() / table.size())
                    .as("run %d: after the flood", run)
                    .isGreaterThan(0.55);
        }
    }

    /**
     * Random additions and removals over six times as many origins as the table holds, checked
     * against a model: an origin the table drops must have been below saturation, and every other
     * holds exactly what the model says (no operation ever lands on another origin's entry). A few
     * heavy origins (fewer than {@link OriginTable#EVICTION_SAMPLE}) reach saturation, some on
     * insertion (an entry the recent-victim check must pass over by its pressure alone), so an
     * insertion always finds a victim.
     */
    @Test
    void randomOperations_atAFullTable_neverDropASaturatedOrigin_norMoveACount() {
        long saturation = 4;
        int max = 64;
        int origins = 400;
        int heavy = 12;
        for (int run = 0; run < 40; run++) {
            SplittableRandom random = new SplittableRandom(run);
            OriginTable table = new OriginTable(new Count(saturation), max);
            Map<Long, Long> model = new HashMap<>();
            for (int step = 0; step < 20_000; step++) {
                long key = random.nextInt(origins);
                long held = model.getOrDefault(key, 0L);
                long cap = key < heavy ? 2 * saturation : saturation - 1;
                int what = random.nextInt(8);
                if (what < 5) {
                    long delta = key < heavy && random.nextInt(4) == 0 ? saturation : 1;
                    delta = Math.min(delta, cap - held);
                    if (delta <= 0) {
                        continue;
                    }
                    long result = table.apply(key, 0, delta, 0, ADD, true);
                    if (result != held + delta) {
                        assertThat(held)
                                .as("run %d step %d: origin %d dropped at %d", run, step, key, held)
                                .isLessThan(saturation);
                        assertThat(result)
                                .as("run %d step %d: origin %d anew", run, step, key)
                                .isEqualTo(delta);
                    }
                    model.put(key, result);
                } else {
                    long delta = held > 0 && what < 7 ? -1 : 0;
                    long result = table.apply(key, 0, delta, 0, ADD, false);
                    if (result == OriginTable.ABSENT) {
                        assertThat(held)
                                .as("run %d step %d: origin %d dropped at %d", run, step, key, held)
                                .isLessThan(saturation);
                        model.remove(key);
                    } else {
                        assertThat(result)
                                .as("run %d step %d: origin %d", run, step, key)
                                .isEqualTo(held + delta);
                        model.put(key, result);
                    }
                }
            }
            assertThat(table.size()).isLessThanOrEqualTo(max);
            assertThat(table.evictions()).as("run %d: the table was full", run).isPositive();
            for (Map.Entry<Long, Long> e : model.entrySet()) {
                if (e.getValue() >= saturation) {
                    assertThat(table.apply(e.getKey(), 0, 0, 0, ADD, false))
                            .as("run %d: saturated origin %d", run, e.getKey())
                            .isEqualTo(e.getValue());
                }
            }
        }
    }

    /**
     * An answer read without the lock is kept only if no writer came in between: here, while the
     * read-only operation looks at origin 1's cells, another thread evicts origin 1 and gives its
     * entry to origin 2 (a table of one origin). The operation then reads origin 2's count and
     * answers with it; the table must throw that answer away and decide again under the lock,
     * where origin 1 is absent and comes back empty.
     */
    @Test
    void anAnswerReadWithoutTheLock_whileAWriterGaveTheEntryToAnotherOrigin_isDecidedAgain() {
        OriginTable table = referencedOrigin(1);
        AtomicInteger reads = new AtomicInteger();
        OriginTable.Op readOnly = afterAWriter(
                reads,
                () -> assertThat(table.apply(2, 0, 1_000, 0, ADD, true))
                        .as("origin 2 evicts origin 1")
                        .isEqualTo(1_000),
                (cells, base, now, a, b) -> cells.get(base)); // by now origin 2's

        long answer = table.apply(1, 0, 0, 0, ADD, readOnly, true);

        assertThat(reads.get()).as("the read-only operation ran, once").isEqualTo(1);
        assertThat(answer).as("origin 1, back in the table, empty").isEqualTo(0);
        assertThat(table.apply(2, 0, 0, 0, ADD, false))
                .as("origin 2 evicted in turn")
                .isEqualTo(OriginTable.ABSENT);
    }

    /**
     * A lookup made without the lock goes on under the read lock only if no writer came in
     * between: here the read-only operation cannot tell (it answers {@link OriginTable#UNDECIDED}),
     * and meanwhile another thread grows origin 1's segment, moving its cells to new arrays. The
     * addition must go to the cells the table holds now, not to those the lookup found.
     */
    @Test
    void aLookupWithoutTheLock_whileAWriterMovedTheCells_appliesTheOperationWhereTheCellsAreNow() {
        OriginTable table = referencedOrigin(1_000);
        AtomicInteger reads = new AtomicInteger();
        OriginTable.Op readOnly = afterAWriter(
                reads,
                () -> {
                    for (long key = 100; key < 600; key++) {
                        table.apply(key, 0, 1, 0, ADD, true); // every segment's arrays grow
                    }
                },
                (cells, base, now, a, b) -> OriginTable.UNDECIDED);

        assertThat(table.apply(1, 0, 7, 0, ADD, readOnly, true)).isEqualTo(12);

        assertThat(reads.get()).as("the read-only operation ran, once").isEqualTo(1);
        assertThat(table.apply(1, 0, 0, 0, ADD, false)).as("the addition kept").isEqualTo(12);
        assertThat(table.size()).isEqualTo(501);
    }

    /**
     * What {@link OriginTable#read} reads of a tracked origin without the lock is kept only if no
     * writer came in between: here origin 1's entry goes to origin 2 while the read looks at it.
     * Read again under the lock, origin 1 is absent (and this state leaves nothing behind).
     */
    @Test
    void aReadWithoutTheLock_whileAWriterGaveTheEntryToAnotherOrigin_isReadAgain() {
        OriginTable table = referencedOrigin(1);
        AtomicInteger reads = new AtomicInteger();
        OriginTable.Op count = afterAWriter(
                reads,
                () -> assertThat(table.apply(2, 0, 1_000, 0, ADD, true)).isEqualTo(1_000),
                (cells, base, now, a, b) -> cells.get(base)); // by now origin 2's

        assertThat(table.read(1, 0, 0, 0, count)).isEqualTo(OriginTable.ABSENT);
        assertThat(reads.get()).as("read once, without the lock").isEqualTo(1);
        assertThat(table.read(2, 0, 0, 0, count)).isEqualTo(1_000);
    }

    /** A table of {@code maxOrigins} holding origin 1, with a count of 5, looked up once (referenced). */
    private static OriginTable referencedOrigin(int maxOrigins) {
        OriginTable table = new OriginTable(new Count(1L << 40), maxOrigins);
        assertThat(table.apply(1, 0, 5, 0, ADD, true)).isEqualTo(5);
        assertThat(table.apply(1, 0, 0, 0, ADD, false))
                .as("looked up: referenced")
                .isEqualTo(5);
        return table;
    }

    /**
     * A read-only operation that answers as {@code answer} does, the first time after {@code
     * writer} has run on another thread (the calling thread holds no lock then); counted in {@code
     * reads}.
     */
    private static OriginTable.Op afterAWriter(AtomicInteger reads, Runnable writer, OriginTable.Op answer) {
        return (cells, base, now, a, b) -> {
            if (reads.getAndIncrement() == 0) {
                try {
                    Together.run(1, unused -> writer.run());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
            return answer.apply(cells, base, now, a, b);
        };
    }

    /**
     * With a refusal: the read-only operation is tried only while the key's last decision under
     * the lock was that refusal, so that an admission does not read the cells twice, and a client
     * kept at its limit is answered by reading alone.
     */
    @Test
    void aReadOnlyAnswer_isTriedOnlyWhileTheLastLockedDecisionRefused() {
        OriginTable table = new OriginTable(new Count(1L << 40), 10);
        long refused = -1;
        int limit = 3;
        AtomicInteger takes = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        OriginTable.Op take = (cells, base, now, permits, unused) -> {
            takes.incrementAndGet();
            long held = cells.get(base);
            if (held + permits > limit) {
                return refused;
            }
            cells.set(base, held + permits);
            return held + permits;
        };
        OriginTable.Op refuses = (cells, base, now, permits, unused) -> {
            reads.incrementAndGet();
            return cells.get(base) + permits > limit ? refused : OriginTable.UNDECIDED;
        };

        for (int i = 1; i <= limit; i++) {
            assertThat(table.apply(1, 0, 1, 0, take, refuses, refused, true)).isEqualTo(i);
        }
        assertThat(reads).as("admissions, none refused under the lock before").hasValue(0);
        assertThat(table.apply(1, 0, 1, 0, take, refuses, refused, true)).isEqualTo(refused);
        assertThat(takes).as("the first refusal, under the lock").hasValue(limit + 1);
        for (int i = 0; i < 5; i++) {
            assertThat(table.apply(1, 0, 1, 0, take, refuses, refused, true)).isEqualTo(refused);
        }
        assertThat(takes).as("the next refusals, by reading alone").hasValue(limit + 1);
        assertThat(reads).hasValue(5);

        table.apply(1, 0, -1, 0, ADD, false); // a permit back, by an operation with no refusal
        assertThat(table.apply(1, 0, 1, 0, take, refuses, refused, true)).isEqualTo(limit);
        assertThat(reads).as("read once more: the last locked decision refused").hasValue(6);
        table.apply(1, 0, -1, 0, ADD, false);
        assertThat(table.apply(1, 0, 1, 0, take, refuses, refused, true)).isEqualTo(limit);
        assertThat(reads).as("not read: the last locked decision admitted").hasValue(6);
        assertThat(takes).hasValue(limit + 3);
    }

    /** A read-only answer with no writer in between is the answer, and the operation does not run. */
    @Test
    void anAnswerReadWithoutTheLock_withNoWriterInBetween_isTheAnswer() {
        OriginTable table = new OriginTable(new Count(1L << 40), 10);
        assertThat(table.apply(1, 0, 5, 0, ADD, true)).isEqualTo(5);
        OriginTable.Op readOnly = (cells, base, now, a, b) -> -cells.get(base);
        assertThat(table.apply(1, 0, 7, 0, ADD, readOnly, true))
                .as("not referenced yet (inserted, never looked up): the operation runs")
                .isEqualTo(12);
        assertThat(table.apply(1, 0, 7, 0, ADD, readOnly, true))
                .as("referenced: the read-only answer")
                .isEqualTo(-12);
        assertThat(table.apply(1, 0, 0, 0, ADD, false)).as("nothing added").isEqualTo(12);
    }
}
