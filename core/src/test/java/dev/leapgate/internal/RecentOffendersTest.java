package dev.leapgate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Origin;
import dev.leapgate.net.IpAddress;
import dev.leapgate.testing.Together;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

class RecentOffendersTest {

    /**
     * One rejection per minute, each from another client, while a reader asks for the top list:
     * every client appears with a count of 1, never a minute read twice as both the current and
     * the previous one (which doubles its counts) as the minutes roll over under the reader.
     */
    @Test
    void aReaderDuringTheMinutesRollover_neverCountsOneMinuteTwice() throws Exception {
        RecentOffenders offenders = new RecentOffenders();
        int minutes = 200_000;
        AtomicLong now = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLongArray worst = new AtomicLongArray(1);
        Together.run(2, id -> {
            if (id == 0) {
                for (int m = 0; m < minutes; m++) {
                    long t = m * RecentOffenders.MINUTE_NANOS;
                    now.set(t);
                    offenders.offer(Origin.ip(IpAddress.parse("10.0." + (m >> 8 & 255) + "." + (m & 255)), 64), t);
                }
                done.set(true);
            } else {
                do {
                    for (TopOrigins.Counted counted : offenders.top(RecentOffenders.PLACES, now.get())) {
                        worst.accumulateAndGet(0, counted.count(), Math::max);
                    }
                } while (!done.get());
            }
        });
        assertThat(worst.get(0)).as("the most any client was counted").isEqualTo(1);
    }
}
