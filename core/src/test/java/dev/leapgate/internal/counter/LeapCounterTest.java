package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class LeapCounterTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;

    /** 5 per second in 4 buckets of 250 ms. */
    private static LeapCounter counter(WindowMode mode) {
        return new LeapCounter(new WindowSpec(Duration.ofSeconds(1), 4, mode), 5, 0);
    }

    @ParameterizedTest
    @EnumSource(WindowMode.class)
    void tryAcquire_admitsUpToTheLimit_thenRejects(WindowMode mode) {
        LeapCounter c = counter(mode);

        for (int i = 0; i < 5; i++) {
            long ticket = c.tryAcquire(10 * MS, 1);
            assertThat(ticket).isNotNegative();
            assertThat(c.remainingAfter(ticket)).isEqualTo(4 - i);
        }

        assertThat(c.tryAcquire(10 * MS, 1)).isEqualTo(RateCounter.REJECTED);
        assertThat(c.used(10 * MS)).isEqualTo(5);
    }

    @Test
    void strictWindow_keepsCountingTheStraddlingBucket_untilAFullWindowHasPassed() {
        LeapCounter c = counter(WindowMode.STRICT);
        for (int i = 0; i < 5; i++) {
            c.tryAcquire(200 * MS, 1); // bucket [0, 250ms)
        }

        // At 1000 ms the window (1000 - W, 1000] still overlaps bucket [0, 250): strict counts it.
        assertThat(c.tryAcquire(1000 * MS, 1)).isEqualTo(RateCounter.REJECTED);
        assertThat(c.tryAcquire(1249 * MS, 1)).isEqualTo(RateCounter.REJECTED);
        // From 1250 ms on, every admission of that bucket is more than W old.
        assertThat(c.tryAcquire(1250 * MS, 1)).isNotNegative();
    }

    @Test
    void slidingWindow_dropsTheOldestBucketAsSoonAsTheWindowStartsPastIt() {
        LeapCounter c = counter(WindowMode.SLIDING);
        for (int i = 0; i < 5; i++) {
            c.tryAcquire(200 * MS, 1);
        }

        assertThat(c.tryAcquire(999 * MS, 1)).isEqualTo(RateCounter.REJECTED);
        // Only 800 ms after the admissions: the sliding window lets the next 5 through.
        assertThat(c.tryAcquire(1000 * MS, 1)).isNotNegative();
    }

    @ParameterizedTest
    @CsvSource({
        // mode, admitted at (ms), asked at (ms), expected wait (ms)
        "STRICT, 200, 300, 950", // bucket [0,250) leaves the strict window at 1250
        "SLIDING, 200, 300, 700", // ... and the sliding one at 1000
        "STRICT, 200, 1249, 1",
        "SLIDING, 0, 0, 1000",
    })
    void nanosUntilAvailable_isTheTimeUntilTheOldestBucketLeaves(WindowMode mode, long at, long asked, long waitMs) {
        LeapCounter c = counter(mode);
        for (int i = 0; i < 5; i++) {
            c.tryAcquire(at * MS, 1);
        }

        assertThat(c.nanosUntilAvailable(asked * MS, 1)).isEqualTo(waitMs * MS);
        assertThat(c.tryAcquire((asked + waitMs) * MS - 1, 1)).isEqualTo(RateCounter.REJECTED);
        assertThat(c.tryAcquire((asked + waitMs) * MS, 1)).isNotNegative();
    }

    @Test
    void nanosUntilAvailable_walksBucketsOldestFirst_untilEnoughPermitsAreFree() {
        LeapCounter c = counter(WindowMode.STRICT);
        c.tryAcquire(0, 2); // bucket [0, 250)
        c.tryAcquire(300 * MS, 2); // bucket [250, 500)
        c.tryAcquire(600 * MS, 1); // bucket [500, 750)

        assertThat(c.nanosUntilAvailable(700 * MS, 0)).isZero();
        assertThat(c.nanosUntilAvailable(700 * MS, 2)).isEqualTo(550 * MS); // [0,250) leaves at 1250
        assertThat(c.nanosUntilAvailable(700 * MS, 4)).isEqualTo(800 * MS); // [250,500) leaves at 1500
        assertThat(c.nanosUntilAvailable(700 * MS, 5)).isEqualTo(1050 * MS);
        assertThat(c.nanosUntilAvailable(700 * MS, 6)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void permits_areCountedAsOne() {
        LeapCounter c = counter(WindowMode.STRICT);

        assertThat(c.tryAcquire(0, 3)).isNotNegative();
        assertThat(c.tryAcquire(0, 3)).isEqualTo(RateCounter.REJECTED);
        assertThat(c.tryAcquire(0, 2)).isNotNegative();
    }

    @Test
    void refund_returnsThePermitsToTheCurrentBucket() {
        LeapCounter c = counter(WindowMode.STRICT);
        long ticket = c.tryAcquire(0, 5);

        c.refund(ticket, 5);

        assertThat(c.used(0)).isZero();
        assertThat(c.tryAcquire(0, 5)).isNotNegative();
    }

    @Test
    void refund_findsABucketThatHasBeenFrozenIntoTheRing() {
        LeapCounter c = counter(WindowMode.STRICT);
        long ticket = c.tryAcquire(0, 3);
        c.tryAcquire(300 * MS, 1); // the head moves on; bucket 0 is frozen

        c.refund(ticket, 3);

        assertThat(c.used(300 * MS)).isEqualTo(1);
        assertThat(c.tryAcquire(300 * MS, 4)).isNotNegative();
    }

    @Test
    void refund_ofABucketThatLeftTheWindow_changesNothing() {
        LeapCounter c = counter(WindowMode.STRICT);
        long ticket = c.tryAcquire(0, 3);
        c.tryAcquire(2 * S, 5); // a full window later: bucket 0 no longer counts

        c.refund(ticket, 3);

        assertThat(c.used(2 * S)).isEqualTo(5);
    }

    /**
     * A bucket that left the window may still sit in its ring slot until a later bucket takes it:
     * its refund said it was made (true), where the contract says false.
     */
    @Test
    void refund_ofABucketThatLeftTheWindow_whileItsSlotStillHoldsIt_saysSo() {
        LeapCounter c = new LeapCounter(WindowSpec.of(Duration.ofSeconds(1), 2), 5, 0);
        long old = c.tryAcquire(0, 1); // bucket 0
        c.tryAcquire(1_600 * MS, 1); // bucket 3: the window counts buckets 2 and 3

        assertThat(c.used(1_600 * MS)).isEqualTo(1);
        assertThat(c.refund(old, 1)).as("bucket 0 left the window").isFalse();
        assertThat(c.used(1_600 * MS)).isEqualTo(1);
    }

    @Test
    void aReadingOlderThanTheHead_countsIntoTheHead_andNeverBelowIt() {
        LeapCounter c = counter(WindowMode.STRICT);
        long newer = c.tryAcquire(600 * MS, 1); // head at bucket [500, 750)

        long older = c.tryAcquire(100 * MS, 1); // a thread that read the clock before the roll

        assertThat(c.ticketStartNanos(older)).isEqualTo(c.ticketStartNanos(newer));
        assertThat(c.used(600 * MS)).isEqualTo(2);
        // And it is not lost when the window rolls on: it leaves with the head's bucket.
        assertThat(c.used(1 * S + 700 * MS)).isEqualTo(2);
        assertThat(c.used(1 * S + 750 * MS)).isZero();
    }

    @Test
    void originLaterThanTheReading_countsAsTheFirstBucket() {
        LeapCounter c = new LeapCounter(WindowSpec.of(Duration.ofSeconds(1), 4), 2, 5 * S);

        assertThat(c.tryAcquire(4 * S, 1)).isNotNegative();
        assertThat(c.tryAcquire(5 * S + 100 * MS, 1)).isNotNegative();
        assertThat(c.tryAcquire(5 * S + 200 * MS, 1)).isEqualTo(RateCounter.REJECTED);
    }

    @ParameterizedTest
    @CsvSource({
        "PT0.1S, 1, 134217727",
        "PT0.1S, 100, 1048575",
        "PT1S, 10, 134217727",
        "PT1M, 60, 1073741823",
        "PT24H, 24, 2147483647"
    })
    void windowsFrom100msTo24h_admitTheirLimitAndNoMore(String iso, int buckets, long maxLimit) {
        WindowSpec spec = WindowSpec.of(Duration.parse(iso), buckets);
        assertThat(LeapCounter.maxLimit(spec)).isEqualTo(maxLimit);
        int limit = (int) Math.min(maxLimit, 1_000);
        LeapCounter c = new LeapCounter(spec, maxLimit, 0);

        assertThat(c.tryAcquire(0, limit)).isNotNegative();
        if (maxLimit == limit) {
            assertThat(c.tryAcquire(0, 1)).isEqualTo(RateCounter.REJECTED);
        }
        // One bucket before the strict window has passed, it still counts; at W + b it is gone.
        long w = spec.lengthNanos();
        assertThat(c.used(w + spec.bucketNanos() - 1)).isEqualTo(limit);
        assertThat(c.used(w + spec.bucketNanos())).isZero();
        // And a counter many laps later still works (epochs do not wrap).
        long later = 100_000L * w; // 100,000 windows: 100 days of 24 h windows
        assertThat(c.tryAcquire(later, 1)).isNotNegative();
        assertThat(c.used(later)).isEqualTo(1);
    }

    @Test
    void limitOutOfRange_isRejectedWithTheValueAndTheWayOut() {
        WindowSpec ms = WindowSpec.of(Duration.ofMillis(100), 100);
        assertThatThrownBy(() -> new LeapCounter(ms, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be between 1 and 1048575 for buckets of 1ms, was 0");
        assertThatThrownBy(() -> new LeapCounter(ms, 2_000_000, 0))
                .hasMessage("limit must be between 1 and 1048575 for buckets of 1ms, was 2000000;"
                        + " use longer buckets (fewer buckets or a longer window)");
    }

    @Test
    void permitsOutOfRange_areRejectedWithTheValue() {
        LeapCounter c = counter(WindowMode.STRICT);
        assertThatThrownBy(() -> c.tryAcquire(0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("permits must be between 1 and the limit 5, was 0");
        assertThatThrownBy(() -> c.tryAcquire(0, 6)).hasMessage("permits must be between 1 and the limit 5, was 6");
    }

    @Test
    void strictSteadyThroughput_isAboutLimitTimesNOverNPlusOne() {
        // Saturating demand: one request every millisecond for 100 windows of 1 s in 4 buckets.
        LeapCounter c = new LeapCounter(WindowSpec.of(Duration.ofSeconds(1), 4), 100, 0);
        long admitted = 0;
        for (long t = 0; t < 100 * S; t += MS) {
            if (c.tryAcquire(t, 1) >= 0) {
                admitted++;
            }
        }
        // 100 per 5 buckets of 250 ms = 80 per second; the first window admits its 100 at once.
        assertThat(admitted).isBetween(100L * 80 - 100, 100L * 80 + 100);
    }

    @Test
    void slidingSteadyThroughput_isTheLimit() {
        LeapCounter c = new LeapCounter(new WindowSpec(Duration.ofSeconds(1), 4, WindowMode.SLIDING), 100, 0);
        long admitted = 0;
        for (long t = 0; t < 100 * S; t += MS) {
            if (c.tryAcquire(t, 1) >= 0) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(100L * 100);
    }
}
