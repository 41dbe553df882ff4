package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.testing.Together;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

class EntryTest {

    private final ManualClock clock = new ManualClock();
    private final Limiter limiter =
            Limiter.builder("work").concurrency(1_000_000).clock(clock).build();

    private StatsSnapshot minute() {
        return limiter.stats().lastMinute();
    }

    private Entry enter() {
        return (Entry) limiter.tryEnter();
    }

    @Test
    void call_returnsWhatTheWorkReturns_countsASuccess_andCloses() {
        Entry entry = enter();

        String result = entry.call(() -> {
            clock.advance(Duration.ofMillis(40));
            return "done";
        });

        assertThat(result).isEqualTo("done");
        assertThat(entry.isClosed()).isTrue();
        assertThat(entry.isFailed()).isFalse();
        assertThat(minute().succeeded()).isEqualTo(1);
        assertThat(minute().failed()).isZero();
        assertThat(minute().averageResponseMillis()).isEqualTo(40.0);
        assertThat(minute().inFlight()).isZero();
    }

    @Test
    void call_rethrowsACheckedException_unchanged_andCountsAFailure() {
        Entry entry = enter();
        IOException thrown = new IOException("disk full");

        assertThatThrownBy(() -> entry.call(() -> {
                    throw thrown;
                }))
                .isSameAs(thrown);

        assertThat(entry.isClosed()).isTrue();
        assertThat(minute().succeeded()).isZero();
        assertThat(minute().failed()).isEqualTo(1);
        assertThat(minute().inFlight()).isZero();
    }

    @Test
    void call_countsAnErrorAsAFailure() {
        Entry entry = enter();

        assertThatThrownBy(() -> entry.call(() -> {
                    throw new StackOverflowError();
                }))
                .isInstanceOf(StackOverflowError.class);

        assertThat(minute().failed()).isEqualTo(1);
    }

    /** A Throwable of its own, thrown past the compiler's checks, was counted as a success. */
    @Test
    void call_countsAThrowableOfItsOwnAsAFailure() {
        Entry entry = enter();
        Throwable odd = new Throwable("neither an exception nor an error");

        assertThatThrownBy(() -> entry.call(() -> {
                    throw EntryTest.<RuntimeException>sneaky(odd);
                }))
                .isSameAs(odd);

        assertThat(entry.isClosed()).isTrue();
        assertThat(minute().succeeded()).isZero();
        assertThat(minute().failed()).isEqualTo(1);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T sneaky(Throwable t) throws T {
        throw (T) t;
    }

    /** A null work left the entry open, its slot held (found by a review helper). */
    @Test
    void call_withoutWork_failsTheRequest_andClosesTheEntry() {
        Entry entry = enter();

        assertThatThrownBy(() -> entry.call(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("work");

        assertThat(entry.isClosed()).isTrue();
        assertThat(minute().failed()).isEqualTo(1);
        assertThat(minute().inFlight()).isZero();
    }

    @Test
    void failBeforeClose_isCountedAsAFailure() {
        Entry entry = enter();
        entry.fail(new IllegalStateException("x"));
        entry.close();

        assertThat(minute().succeeded()).isZero();
        assertThat(minute().failed()).isEqualTo(1);
    }

    @Test
    void failAfterClose_turnsTheRecordedSuccessIntoAFailure_once() {
        Entry entry = enter();
        clock.advance(Duration.ofMillis(10));
        entry.close();
        assertThat(minute().succeeded()).isEqualTo(1);
        clock.advance(Duration.ofMillis(5)); // the catch block runs a little later

        entry.fail(new IllegalStateException("x"));
        entry.fail();

        assertThat(entry.isFailed()).isTrue();
        assertThat(minute().succeeded()).isZero();
        assertThat(minute().failed()).isEqualTo(1);
        assertThat(minute().averageResponseMillis())
                .as("the response time is the close's")
                .isEqualTo(10.0);
        assertThat(limiter.stats().lastSecond().failed()).isEqualTo(1);
    }

    @Test
    void failAfterAFailedClose_changesNothing() {
        Entry entry = enter();
        entry.fail();
        entry.close();
        entry.fail();
        entry.close();

        assertThat(minute().failed()).isEqualTo(1);
        assertThat(minute().succeeded()).isZero();
        assertThat(minute().admitted()).isEqualTo(1);
    }

    @Test
    void failRacingClose_onManyEntries_countsEachExactlyOnce_asAFailure() throws Exception {
        int entries = 20_000;
        Entry[] all = new Entry[entries];
        for (int i = 0; i < entries; i++) {
            all[i] = enter();
        }
        CyclicBarrier pair = new CyclicBarrier(2);

        // Thread 0 closes each entry while thread 1 fails it: whichever comes first, the entry ends
        // failed, closed once, and counted once.
        Together.run(2, t -> {
            for (Entry entry : all) {
                await(pair);
                if (t == 0) {
                    entry.close();
                } else {
                    entry.fail();
                }
            }
        });

        StatsSnapshot s = minute();
        assertThat(s.failed()).isEqualTo(entries);
        assertThat(s.succeeded()).isZero();
        assertThat(s.inFlight()).isZero();
        for (Entry entry : all) {
            assertThat(entry.isClosed() && entry.isFailed()).isTrue();
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
