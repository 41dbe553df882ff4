package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;

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
}
