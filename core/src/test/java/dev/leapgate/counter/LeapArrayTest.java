package dev.leapgate.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LeapArrayTest {

    /** A second in 4 buckets of 250 ms. */
    private final LeapArray<LongAdder> array = new LeapArray<>(WindowSpec.of(Duration.ofSeconds(1), 4), LongAdder::new);

    private static final long MS = 1_000_000L;

    @ParameterizedTest(name = "t={0}ns -> epoch {1}, slot {2}, start {3}")
    @CsvSource({
        "0, 0, 0, 0",
        "1, 0, 0, 0",
        "249999999, 0, 0, 0",
        "250000000, 1, 1, 250000000",
        "999999999, 3, 3, 750000000",
        "1000000000, 4, 0, 1000000000",
        "1250000001, 5, 1, 1250000000",
        "-1, -1, 3, -250000000",
        "-250000000, -1, 3, -250000000",
        "-250000001, -2, 2, -500000000",
        "9223372036854775807, 36893488147, 3, 9223372036750000000",
    })
    void indexAndStartArithmetic_atBucketBoundaries(long t, long epoch, int slot, long start) {
        assertThat(array.epochAt(t)).isEqualTo(epoch);
        assertThat(array.indexAt(t)).isEqualTo(slot);
        assertThat(array.bucketStartAt(t)).isEqualTo(start);
    }

    @ParameterizedTest
    @CsvSource({"PT0.1S, 1", "PT0.1S, 100", "PT1S, 2", "PT1M, 60", "PT1H, 60", "PT24H, 24", "PT24H, 1000"})
    void windowsFrom100msTo24h_countEveryBucketUntilItIsDeprecated(String iso, int buckets) {
        WindowSpec spec = WindowSpec.of(Duration.parse(iso), buckets);
        LeapArray<LongAdder> a = new LeapArray<>(spec, LongAdder::new);
        long b = spec.bucketNanos();
        long start = 123 * b; // an arbitrary lap

        for (int i = 0; i < buckets; i++) {
            a.add(start + i * b, LongAdder::add, 1);
        }

        long last = start + (buckets - 1) * b;
        assertThat(a.sum(last, LongAdder::sum)).isEqualTo(buckets);
        assertThat(a.sum(last + b, LongAdder::sum))
                .as("the oldest bucket is deprecated")
                .isEqualTo(buckets - 1);
        assertThat(a.sum(last + buckets * b, LongAdder::sum))
                .as("a whole window later")
                .isZero();
    }

    @Test
    void staleBucket_isReplacedByAnEmptyOne_notAddedTo() {
        array.add(0, LongAdder::add, 5);

        array.add(1000 * MS, LongAdder::add, 1); // same slot, next lap

        assertThat(array.bucketAt(1000 * MS).value().sum()).isEqualTo(1);
        assertThat(array.bucketAt(1000 * MS).startNanos()).isEqualTo(1000 * MS);
        assertThat(array.sum(1000 * MS, LongAdder::sum)).isEqualTo(1);
    }

    @Test
    void readingOlderThanTheSlot_countsIntoTheNewerLiveBucket_notAnOrphan() {
        array.add(1000 * MS, LongAdder::add, 1); // slot 0 now holds epoch 4

        array.add(10 * MS, LongAdder::add, 1); // a thread that read the clock long ago: epoch 0, slot 0

        LeapArray.Bucket<LongAdder> live = array.bucketAt(10 * MS);
        assertThat(live.epoch()).isEqualTo(4);
        assertThat(live.value().sum()).isEqualTo(2);
        assertThat(array.sum(1000 * MS, LongAdder::sum)).isEqualTo(2);
    }

    @Test
    void sum_excludesDeprecatedBuckets_andKeepsLiveOnes() {
        array.add(0, LongAdder::add, 1); // epoch 0
        array.add(300 * MS, LongAdder::add, 10); // epoch 1
        array.add(800 * MS, LongAdder::add, 100); // epoch 3

        assertThat(array.sum(999 * MS, LongAdder::sum)).isEqualTo(111);
        assertThat(array.sum(1000 * MS, LongAdder::sum)).isEqualTo(110); // epoch 0 deprecated
        assertThat(array.sum(1250 * MS, LongAdder::sum)).isEqualTo(100); // epoch 1 deprecated
        assertThat(array.buckets(999 * MS)).extracting(LeapArray.Bucket::epoch).containsExactly(0L, 1L, 3L);
    }

    @Test
    void reduce_returnsIdentityWhenTheWindowIsEmpty() {
        assertThat(array.reduce(0, LongAdder::sum, Long.MAX_VALUE, Math::min)).isEqualTo(Long.MAX_VALUE);
        array.add(0, LongAdder::add, 7);
        array.add(300 * MS, LongAdder::add, 3);
        assertThat(array.reduce(300 * MS, LongAdder::sum, Long.MAX_VALUE, Math::min))
                .isEqualTo(3);
    }

    /**
     * Eight threads add to the array while a driver thread moves the clock across many laps. A
     * listener bucket type remembers every bucket ever created; at the end, the sum over all of
     * them must equal the number of adds: no add was lost to a double reset or an orphan.
     */
    @Test
    void rolloverUnderContention_losesNoCount() throws Exception {
        int threads = 8;
        int addsPerThread = 250_000;
        List<LongAdder> created = java.util.Collections.synchronizedList(new ArrayList<>());
        WindowSpec spec = new WindowSpec(Duration.ofMillis(100), 4, WindowMode.SLIDING);
        LeapArray<LongAdder> contended = new LeapArray<>(spec, () -> {
            LongAdder adder = new LongAdder();
            created.add(adder);
            return adder;
        });
        AtomicLong clock = new AtomicLong();
        Together.run(threads, id -> {
            for (int j = 0; j < addsPerThread; j++) {
                if (id == 0 && j % 32 == 0) {
                    clock.addAndGet(spec.bucketNanos() / 7); // worker 0 also drives the clock
                }
                contended.add(clock.get(), LongAdder::add, 1);
            }
        });

        // Only the buckets that lost a creation race are discarded unused; count what was added.
        long total = created.stream().mapToLong(LongAdder::sum).sum();
        long laps = clock.get() / spec.lengthNanos();
        assertThat(laps)
                .as("the clock crossed many laps, so slots were replaced")
                .isGreaterThan(10);
        // Every add is in some bucket; an add whose bucket was replaced under it is counted again
        // in the live bucket, so the total may exceed the adds by those rare re-adds, never fall short.
        assertThat(total).isGreaterThanOrEqualTo((long) threads * addsPerThread);
        assertThat(total - (long) threads * addsPerThread).isLessThan(threads * 100L);
    }

    @Test
    void concurrentCreationOfOneBucket_installsExactlyOne() throws Exception {
        int threads = 8;
        AtomicReferenceArray<LeapArray.Bucket<LongAdder>> seen = new AtomicReferenceArray<>(threads);
        Together.run(threads, id -> {
            LeapArray.Bucket<LongAdder> b = array.bucketAt(5000 * MS);
            b.value().increment();
            seen.set(id, b);
        });

        for (int i = 1; i < threads; i++) {
            assertThat(seen.get(i)).isSameAs(seen.get(0));
        }
        assertThat(array.sum(5000 * MS, LongAdder::sum)).isEqualTo(threads);
    }
}
