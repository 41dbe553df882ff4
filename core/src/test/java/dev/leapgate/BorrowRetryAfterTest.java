package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A borrowing rule's {@code Retry-After} is when a retry is admitted without a loan; a retry less
 * than one bucket sooner (and at most {@code max-wait}) is admitted by a loan of the next bucket,
 * and waits for it (as the README and {@link Rejection#retryAfter()} say). 5 per second in 10
 * buckets of 100 ms, loans of at most 300 ms.
 */
class BorrowRetryAfterTest {

    private final ManualClock clock = new ManualClock();
    private final Limiter limiter = Limiter.builder("borrowing")
            .rate(5, WindowSpec.of(Duration.ofSeconds(1), 10))
            .onExcess(OnExcess.borrow(Duration.ofMillis(300)))
            .clock(clock)
            .sleeper(clock::advanceNanos) // a wait moves the clock on by exactly its length
            .build();

    private Duration retryAfterSpendingTheLimit() {
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.tryAcquire()).isTrue();
        }
        Decision rejected = limiter.tryEnter();
        assertThat(rejected).isInstanceOf(Rejection.class);
        return ((Rejection) rejected).retryAfter();
    }

    @Test
    void aRetryAtRetryAfter_isAdmittedWithoutWaiting() {
        Duration retry = retryAfterSpendingTheLimit();
        clock.advance(retry);
        long before = clock.nanoTime();
        assertThat(limiter.tryAcquire()).isTrue();
        assertThat(clock.nanoTime()).as("no wait").isEqualTo(before);
    }

    @Test
    void aRetryLessThanABucketSooner_isAdmittedByALoan_andWaits() {
        Duration retry = retryAfterSpendingTheLimit();
        clock.advance(retry.minusMillis(50));
        long before = clock.nanoTime();
        assertThat(limiter.tryAcquire()).isTrue();
        assertThat(clock.nanoTime() - before)
                .as("waited for the loan's bucket")
                .isPositive()
                .isLessThanOrEqualTo(300_000_000L);
    }

    @Test
    void aRetryMoreThanABucketSooner_isRejected_thoughWithinMaxWait() {
        Duration retry = retryAfterSpendingTheLimit();
        clock.advance(retry.minusMillis(200));
        assertThat(limiter.tryAcquire()).isFalse();
    }
}
