package dev.leapgate.internal.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * A rate made for a changed rule ({@link SmoothRate#continueFrom}) goes on after the schedule of
 * the previous one: the requests it scheduled keep their slots, new ones queue behind them, and a
 * request still decided on the previous rate reserves on the new one. A reload is no fresh start.
 */
class SmoothRateTakeOverTest {

    private static final long MS = 1_000_000L;

    /** {@code limit} per second, waiting up to 500 ms. */
    private static SmoothRate pace(long limit, long originNanos) {
        return SmoothRate.pace(limit, Duration.ofSeconds(1), Duration.ofMillis(500), originNanos);
    }

    @Test
    void theNewSchedule_startsWhereThePreviousOneIsFree() {
        SmoothRate previous = pace(10, 0);
        for (int i = 0; i < 6; i++) {
            previous.tryReserve(0, 1); // proceed at 0, 100, ..., 500 ms: free from 600 ms on
        }
        SmoothRate next = pace(5, 0).continueFrom(previous);

        assertThat(next.tryReserve(0, 1)).as("600 ms > max-queue").isEqualTo(SmoothRate.REJECTED);
        assertThat(next.nanosUntilAvailable(0, 1)).isEqualTo(100 * MS);
        assertThat(next.tryReserve(100 * MS, 1)).isEqualTo(500 * MS);
        assertThat(next.tryReserve(100 * MS, 1)).as("then 200 ms apart").isEqualTo(SmoothRate.REJECTED);
        assertThat(next.tryReserve(300 * MS, 1)).isEqualTo(500 * MS);
    }

    /**
     * A reservation pays its price after it (pay later): the last one on a slow rate holds the
     * schedule for a whole old interval. A raised limit went on from there: a pace of 1 an hour
     * raised to 1000 a second admitted nothing for an hour, though nobody waited.
     */
    @Test
    void aRaisedLimit_goesOnAfterTheLastTurnAtTheNewPrice() {
        SmoothRate hourly = SmoothRate.pace(1, Duration.ofHours(1), Duration.ofMinutes(1), 0);
        assertThat(hourly.tryReserve(0, 1)).isZero(); // free again after an hour
        SmoothRate raised = SmoothRate.pace(1000, Duration.ofSeconds(1), Duration.ofMillis(500), 0)
                .continueFrom(hourly);

        assertThat(raised.tryReserve(1_000 * MS, 1)).isZero();
        assertThat(raised.tryReserve(1_000 * MS, 1)).isEqualTo(1 * MS);

        SmoothRate busy = pace(10, 0);
        for (int i = 0; i < 6; i++) {
            busy.tryReserve(0, 1); // turns at 0, 100, ..., 500 ms
        }
        SmoothRate faster = pace(100, 0).continueFrom(busy);
        assertThat(faster.nanosUntilFree(0))
                .as("the turns booked keep their slots: the next 10 ms after the last")
                .isEqualTo(510 * MS);
    }

    /** Two changes before any request (a reload settles each new version at once): the same. */
    @Test
    void aRaisedLimit_afterAnIntermediateChange_goesOnAfterTheLastTurnAtTheNewPrice() {
        SmoothRate hourly = SmoothRate.pace(1, Duration.ofHours(1), Duration.ZERO, 0);
        assertThat(hourly.tryReserve(0, 1)).isZero();
        SmoothRate queued = SmoothRate.pace(1, Duration.ofHours(1), Duration.ofSeconds(1), 0)
                .continueFrom(hourly);
        queued.settle(2_000 * MS);
        SmoothRate raised = SmoothRate.pace(1000, Duration.ofSeconds(1), Duration.ofMillis(500), 0)
                .continueFrom(queued);

        assertThat(raised.tryReserve(3_000 * MS, 1)).isZero();
    }

    /**
     * The new price of a reservation far above the new limit is more than a long holds: it wrapped,
     * and the schedule started free, beside the turns still booked.
     */
    @Test
    void aLoweredLimit_afterAReservationFarAboveIt_keepsTheTurnsBooked() {
        SmoothRate fast = SmoothRate.pace(1_000_000, Duration.ofSeconds(1), Duration.ofHours(1), 0);
        fast.tryReserve(0, 1);
        fast.tryReserve(1_000 * MS, 200_000); // free again 200 ms later
        SmoothRate daily =
                SmoothRate.pace(1, Duration.ofHours(24), Duration.ofHours(1), 0).continueFrom(fast);

        assertThat(daily.nanosUntilFree(1_000 * MS)).isEqualTo(200 * MS);
    }

    @Test
    void originsApart_theScheduleKeepsItsInstant() {
        SmoothRate previous = pace(10, 0);
        SmoothRate other = pace(10, 0);
        for (int i = 0; i < 6; i++) {
            previous.tryReserve(0, 1); // free from 600 ms on
            other.tryReserve(0, 1);
        }
        SmoothRate later = pace(10, 400 * MS).continueFrom(previous);
        SmoothRate muchLater = pace(10, 900 * MS).continueFrom(other);

        assertThat(later.tryReserve(400 * MS, 1)).isEqualTo(200 * MS);
        assertThat(muchLater.tryReserve(900 * MS, 1)).as("free since 600 ms").isZero();
    }

    @Test
    void aReadingFromBeforeTheChange_onAnIdleSchedule_goesAtOnce() {
        SmoothRate previous = SmoothRate.pace(10, Duration.ofSeconds(1), Duration.ZERO, 0);
        SmoothRate next = SmoothRate.pace(10, Duration.ofSeconds(1), Duration.ZERO, 1_000 * MS)
                .continueFrom(previous);

        assertThat(next.tryReserve(900 * MS, 1))
                .as("read the clock at 900 ms, then the rules made at 1 s")
                .isZero();
        assertThat(next.tryReserve(950 * MS, 1))
                .as("the next slot is at 1 s; max-queue 0")
                .isEqualTo(SmoothRate.REJECTED);
    }

    @Test
    void aRequestStillOnThePreviousRate_reservesOnTheNewOne() {
        SmoothRate previous = pace(10, 0);
        SmoothRate next = pace(5, 0).continueFrom(previous);
        assertThat(next.tryReserve(0, 1)).isZero();

        assertThat(previous.tryReserve(0, 1)).as("at the new interval").isEqualTo(200 * MS);
        assertThat(next.tryReserve(0, 1)).isEqualTo(400 * MS);
        assertThat(previous.nanosUntilAvailable(0, 1)).isEqualTo(100 * MS);
    }

    @Test
    void requestsOnThePreviousRate_beforeTheNewOneIsUsed_areTakenOver() {
        SmoothRate previous = pace(10, 0);
        SmoothRate next = pace(10, 0).continueFrom(previous);
        assertThat(previous.tryReserve(0, 1)).isZero();
        assertThat(previous.tryReserve(0, 1)).isEqualTo(100 * MS);

        assertThat(next.tryReserve(0, 1)).isEqualTo(200 * MS);
    }

    @Test
    void permitsAboveTheNewLimit_areRejected() {
        SmoothRate previous = pace(10, 0);
        SmoothRate next = pace(2, 0).continueFrom(previous);
        next.nanosUntilAvailable(0, 1);

        assertThat(previous.tryReserve(0, 3)).isEqualTo(SmoothRate.REJECTED);
        assertThat(previous.tryReserve(0, 2)).isZero();
    }

    @Test
    void aRateThatIsNeverUsed_changesNothing() {
        SmoothRate previous = pace(10, 0);
        pace(1, 0).continueFrom(previous); // made for rules that never come into force

        assertThat(previous.tryReserve(0, 1)).isZero();
        assertThat(previous.tryReserve(0, 1)).isEqualTo(100 * MS);
    }

    @Test
    void twoChanges_beforeAnyUse_passTheScheduleAlongTheChain() {
        SmoothRate first = pace(10, 0);
        first.tryReserve(0, 1);
        SmoothRate second = pace(10, 0).continueFrom(first); // never used directly
        SmoothRate third = pace(10, 0).continueFrom(second);

        assertThat(third.tryReserve(0, 1)).isEqualTo(100 * MS);
        assertThat(first.tryReserve(0, 1))
                .as("first hands on to second, second to third")
                .isEqualTo(200 * MS);
        assertThat(second.tryReserve(0, 1)).isEqualTo(300 * MS);
    }

    /**
     * Half the threads reserve on the previous rate, as requests that read the rules before a
     * reload do, half on the new one, whose first use takes over; both pace at 1 ms and time stands
     * still. Every admitted request gets a slot of its own: the waits are exactly 0, 1, ..., 500 ms.
     */
    @Test
    void previousAndNewRateUnderContention_giveEachSlotOnce() throws Exception {
        int threads = 8;
        for (int round = 0; round < 100; round++) {
            SmoothRate previous = pace(1000, 0);
            SmoothRate next = pace(1000, 0).continueFrom(previous);
            List<List<Long>> waits = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                waits.add(new ArrayList<>());
            }

            Together.run(threads, id -> {
                SmoothRate rate = id % 2 == 0 ? previous : next;
                for (int i = 0; i < 200; i++) {
                    long wait = rate.tryReserve(0, 1);
                    if (wait != SmoothRate.REJECTED) {
                        waits.get(id).add(wait);
                    }
                }
            });

            List<Long> all = new ArrayList<>();
            waits.forEach(all::addAll);
            Collections.sort(all);
            assertThat(all)
                    .as("round %d", round)
                    .containsExactlyElementsOf(LongStream.rangeClosed(0, 500)
                            .map(ms -> ms * MS)
                            .boxed()
                            .toList());
        }
    }
}
