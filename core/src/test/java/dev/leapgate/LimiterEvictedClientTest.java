package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A per-origin limiter at a full table: a client rejected and then evicted by another client
 * (another thread's request, decided before this rejection's response is made) is told the same as
 * if it had stayed: no quota left, and when a retry can succeed.
 */
class LimiterEvictedClientTest {

    @Test
    void rejection_ofAClientEvictedBeforeItIsRead_saysWhenARetryCanSucceed() {
        ManualClock clock = new ManualClock();
        Limiter logins = Limiter.builder("login")
                .rate(5, WindowSpec.of(Duration.ofSeconds(10), 2))
                .perOrigin(1) // one client tracked at a time
                .clock(clock)
                .build();
        Origin ann = Origin.id("ann");
        for (int i = 0; i < 5; i++) {
            assertThat(logins.tryAcquire(ann)).isTrue();
        }
        clock.advance(Duration.ofSeconds(2));
        Rejection rejection = (Rejection) logins.tryEnter(ann);

        // Another thread's new client takes ann's place before the response is made.
        assertThat(logins.tryAcquire(Origin.id("bob"))).isTrue();

        // The admissions' bucket [0, 5s) leaves the strict 10 s window at 15 s.
        assertThat(rejection.retryAfter()).isEqualTo(Duration.ofSeconds(13));
        assertThat(rejection.quota().remaining()).isZero();
        assertThat(rejection.quota().reset()).isEqualTo(Duration.ofSeconds(13));
        // As ann finds it when it comes back:
        Rejection again = (Rejection) logins.tryEnter(ann);
        assertThat(again.retryAfter()).isEqualTo(Duration.ofSeconds(13));
        clock.advance(Duration.ofSeconds(13));
        assertThat(logins.tryAcquire(ann)).isTrue();
    }

    /**
     * A client evicted again and again (a one-client table, two clients taking turns) leaves its
     * count in the memory of evicted clients each time, dated at its newest bucket with a count:
     * dated at each eviction instead, the 5 permits it used at 0 ms never left its window, and it
     * was refused for good.
     */
    @Test
    void aClientChurnedThroughAFullTable_isAdmittedAgainOnceItsCountHasLeftTheWindow() {
        ManualClock clock = new ManualClock();
        Limiter limiter = Limiter.builder("x")
                .rate(5, WindowSpec.of(Duration.ofSeconds(1), 10))
                .perOrigin(1)
                .clock(clock)
                .build();
        Origin a = Origin.id("client-a");
        Origin b = Origin.id("client-b");
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire(a)).isTrue(); // a's limit, at 0 ms
        }
        // From then on a and b take turns in the one-client table every 50 ms; b sends little.
        long lastRejected = -1;
        for (long t = 50; t <= 6_000; t += 50) {
            clock.advanceNanos(50_000_000L);
            if ((t / 50) % 2 == 1) {
                limiter.tryAcquire(b);
            } else if (limiter.tryAcquire(a)) {
                // a's 5 of 0 ms count for 1.1 s; evicted at 50 ms, remembered then: 1.2 s at most.
                assertThat(t).as("a admitted again at %d ms", t).isLessThanOrEqualTo(1_300);
                return;
            } else {
                lastRejected = t;
            }
        }
        throw new AssertionError("client a, which sent 5 at 0 ms and nothing admitted since, is still refused at "
                + lastRejected + " ms");
    }

    /**
     * As above with on-excess borrow, whose window remembered a count as a loan from the bucket
     * after its newest: restored, the loan rolled into that later bucket, so each eviction moved
     * the 5 permits of 0 ms one bucket on and client a was refused for good (each rejection said
     * "retry after 1.1 s").
     */
    @Test
    void aBorrowingClientChurnedThroughAFullTable_isAdmittedAgainOnceItsCountHasLeftTheWindow() {
        ManualClock clock = new ManualClock();
        Limiter limiter = Limiter.builder("x")
                .rate(5, WindowSpec.of(Duration.ofSeconds(1), 10))
                .onExcess(OnExcess.borrow(Duration.ofMillis(300)))
                .perOrigin(1)
                .clock(clock)
                .sleeper(clock::advanceNanos)
                .build();
        Origin a = Origin.id("client-a");
        Origin b = Origin.id("client-b");
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire(a)).isTrue(); // a's limit, at 0 ms
        }
        long lastRejected = -1;
        for (int turn = 1; turn <= 120; turn++) {
            clock.advanceNanos(50_000_000L);
            long t = clock.nanoTime() / 1_000_000;
            if (turn % 2 == 1) {
                limiter.tryAcquire(b);
            } else if (limiter.tryAcquire(a)) {
                // a's 5 of 0 ms count for 1.1 s (bucket [0, 100ms) leaves the strict window then).
                assertThat(t).as("a admitted again at %d ms", t).isLessThanOrEqualTo(1_100);
                return;
            } else {
                lastRejected = t;
            }
        }
        throw new AssertionError("client a, which sent 5 at 0 ms and nothing admitted since, is still refused at "
                + lastRejected + " ms");
    }
}
