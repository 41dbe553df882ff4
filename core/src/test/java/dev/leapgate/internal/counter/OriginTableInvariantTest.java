package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.testing.Together;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The structure of {@link OriginTable} checked after every operation, through its private fields
 * (as Caffeine checks its caches): the bitmap of taken entries matches the index (no entry named
 * twice, none taken and unnamed, the bits past the entries set), a free entry is all zero, each
 * entry holds a key of its slot's hash and its own cells (a second cell names the key), and every
 * count is the model's; alone and under eight threads, through growth, eviction, sweeping and
 * hand-over.
 */
class OriginTableInvariantTest {

    static final long SAT = 1L << 40;

    /** Two cells: the pressure, then a check word naming the key. */
    record Two() implements OriginTable.State {
        @Override
        public int stride() {
            return 2;
        }

        @Override
        public long pressure(AtomicLongArray cells, int base, long nowNanos) {
            return cells.get(base);
        }

        @Override
        public long saturation() {
            return SAT;
        }
    }

    static final OriginTable.Op ADD = (cells, base, now, delta, key) -> {
        cells.set(base + 1, ~key);
        return cells.addAndGet(base, delta);
    };

    static Object field(Object o, String name) throws Exception {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    static long mix(OriginTable t, long key) throws Exception {
        Method m = OriginTable.class.getDeclaredMethod("mix", long.class);
        m.setAccessible(true);
        return (long) m.invoke(t, key);
    }

    /** Checks every segment; returns key -> value of what the table tracks. */
    static Map<Long, Long> check(OriginTable t, String as) throws Exception {
        Object[] segments = (Object[]) field(t, "segments");
        Map<Long, Long> content = new HashMap<>();
        int total = 0;
        for (Object s : segments) {
            long[] slots = (long[]) field(s, "slots");
            AtomicLongArray cells = (AtomicLongArray) field(s, "cells");
            int entries = (int) field(s, "entries");
            long[] taken = (long[]) field(s, "taken");
            int size = (int) field(s, "size");
            int width = 3;
            assertThat(cells.length()).as(as).isEqualTo(entries * width);
            assertThat(taken.length).as(as).isEqualTo((entries + 63) / 64);
            for (int e = entries; e < taken.length * 64; e++) {
                assertThat((taken[e >>> 6] >>> e) & 1)
                        .as(as + ": pad bit %d of %d entries", e, entries)
                        .isEqualTo(1);
            }
            Set<Integer> named = new HashSet<>();
            int used = 0;
            for (int i = 0; i < slots.length; i++) {
                long w = slots[i];
                if (w == 0) {
                    continue;
                }
                used++;
                int e = (int) (w & ((1L << 31) - 1)) - 1;
                assertThat(e).as(as).isBetween(0, entries - 1);
                assertThat(named.add(e)).as(as + ": entry %d named twice", e).isTrue();
                assertThat((taken[e >>> 6] >>> e) & 1)
                        .as(as + ": named entry %d not taken", e)
                        .isEqualTo(1);
                long key = cells.get(e * width);
                assertThat(mix(t, key) & 0xffffffffL)
                        .as(as + ": hash of key in entry %d", e)
                        .isEqualTo(w >>> 32);
                long value = cells.get(e * width + 1);
                long checkWord = cells.get(e * width + 2);
                if (value != 0 || checkWord != 0) {
                    assertThat(checkWord).as(as + ": check word of key %d", key).isEqualTo(~key);
                }
                assertThat(content.put(key, value)).as(as + ": key twice").isNull();
            }
            assertThat(used).as(as + ": size").isEqualTo(size);
            total += size;
            int takenBits = 0;
            for (long word : taken) {
                takenBits += Long.bitCount(word);
            }
            assertThat(takenBits - (taken.length * 64 - entries))
                    .as(as + ": taken bits vs size")
                    .isEqualTo(size);
            for (int e = 0; e < entries; e++) {
                if (((taken[e >>> 6] >>> e) & 1) == 0) {
                    for (int c = 0; c < width; c++) {
                        assertThat(cells.get(e * width + c))
                                .as(as + ": free entry %d cell %d", e, c)
                                .isZero();
                    }
                }
            }
        }
        assertThat(t.size()).as(as + ": tracked").isEqualTo(total);
        return content;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 7, 8, 9, 63, 64, 65, 129})
    void randomOperations_keepTheStructure(int max) throws Exception {
        SplittableRandom random = new SplittableRandom(max * 7919L);
        for (int run = 0; run < 6; run++) {
            OriginTable table = new OriginTable(new Two(), max);
            Map<Long, Long> model = new HashMap<>();
            int keys = 3 * max + 5;
            int ops = Math.min(6000, Math.max(3000, 40 * max));
            for (int i = 0; i < ops; i++) {
                long key = random.nextInt(keys) * 0x10001L; // includes key 0
                int kind = random.nextInt(10);
                String as = "max " + max + " run " + run + " op " + i + " kind " + kind + " key " + key;
                if (kind < 5) {
                    long delta = random.nextInt(8) == 0 ? SAT : 1 + random.nextInt(5);
                    long r = table.apply(key, 0, delta, key, ADD, true);
                    if (r != OriginTable.FULL) {
                        model.merge(key, delta, Long::sum);
                        assertThat(r).as(as).isEqualTo(model.get(key));
                    }
                } else if (kind < 8) {
                    long r = table.apply(key, 0, 0, key, ADD, false);
                    if (r != OriginTable.ABSENT) {
                        assertThat(r).as(as).isEqualTo(model.get(key));
                    }
                } else {
                    // make it idle so that a sweep may free it
                    Long v = model.get(key);
                    long r = table.apply(key, 0, v == null ? 0 : -v, key, ADD, false);
                    if (r != OriginTable.ABSENT) {
                        assertThat(r).as(as).isZero();
                        model.put(key, 0L);
                    }
                }
                Map<Long, Long> content = check(table, as);
                for (Map.Entry<Long, Long> e : content.entrySet()) {
                    assertThat(e.getValue()).as(as + ": value of " + e.getKey()).isEqualTo(model.get(e.getKey()));
                }
                model.keySet().removeIf(k -> {
                    if (!content.containsKey(k)) {
                        assertThat(model.get(k)).as(as + ": dropped key %d", k).isLessThan(SAT);
                        return true;
                    }
                    return false;
                });
            }
            // Hand over (retires the table), peek, read: the structure holds, the values move.
            OriginTable heir = new OriginTable(new Two(), max);
            for (int i = 0; i < 2 * keys; i++) {
                long key = random.nextInt(keys) * 0x10001L;
                String as = "max " + max + " run " + run + " hand-over " + i + " key " + key;
                assertThat(table.peek(key, 0, 0)).as(as).isZero();
                if (random.nextBoolean()) {
                    table.handOver(key, new long[] {0}, 0, heir);
                    model.remove(key);
                } else {
                    long r = table.read(key, 0, 0, key, ADD);
                    if (model.containsKey(key)) {
                        assertThat(r).as(as).isEqualTo(model.get(key));
                    }
                }
                Map<Long, Long> content = check(table, as);
                assertThat(content.keySet()).as(as).isEqualTo(model.keySet());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {520, 2100, 9000})
    void concurrentFlood_acrossSegments_keepsTheStructureAndEveryCount(int max) throws Exception {
        for (int run = 0; run < 3; run++) {
            OriginTable table = new OriginTable(new Two(), max);
            AtomicLong full = new AtomicLong();
            Together.run(8, id -> {
                SplittableRandom random = new SplittableRandom(id * 31L + 7);
                long holder = -1 - id;
                for (int j = 0; j < 60_000; j++) {
                    // a mix of returning clients and new ones: segments fill unevenly, so the
                    // table is full while segments still have free entries
                    long key = random.nextInt(4) == 0 ? random.nextInt(max / 2) * 8L + id : 10_000_000L + j * 8L + id;
                    long r = table.apply(key, 0, 2, key, ADD, true);
                    if (r == OriginTable.FULL) {
                        full.incrementAndGet();
                        continue;
                    }
                    assertThat(r).as("key %d acquire", key).isGreaterThanOrEqualTo(2);
                    if ((j & 15) == 0) {
                        assertThat(table.apply(holder, 0, 1, holder, ADD, true)).isIn(1L, OriginTable.FULL);
                        table.apply(holder, 0, -1, holder, ADD, false);
                    }
                    assertThat(table.apply(key, 0, -1, key, ADD, false))
                            .as("key %d release", key)
                            .isIn(r - 1, OriginTable.ABSENT);
                }
            });
            check(table, "max " + max + " run " + run);
            assertThat(table.evictions())
                    .as("size %d full %d", table.size(), full.get())
                    .isPositive();
            assertThat(table.size()).isEqualTo(max);
        }
    }
}
