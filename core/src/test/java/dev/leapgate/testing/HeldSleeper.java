package dev.leapgate.testing;

import dev.leapgate.ManualClock;
import dev.leapgate.Sleeper;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Sleeper} for one waiting request: it says when the request is asleep, holds it until
 * the test wakes it, then moves the test's clock by the time the request was to sleep. So a test
 * can look at a request while it waits for its turn, without sleeping itself.
 */
public final class HeldSleeper implements Sleeper {

    private final ManualClock clock;
    private final CountDownLatch asleep = new CountDownLatch(1);
    private final CountDownLatch wake = new CountDownLatch(1);

    public HeldSleeper(ManualClock clock) {
        this.clock = clock;
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        asleep.countDown();
        wake.await();
        clock.advanceNanos(nanos);
    }

    /**
     * Waits until a request is asleep.
     *
     * @throws AssertionError if none is within 10 s (the code under test never made it wait)
     */
    public void awaitAsleep() throws InterruptedException {
        if (!asleep.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("no request went to sleep within 10 s");
        }
    }

    /** Lets the sleeping request go on. */
    public void wake() {
        wake.countDown();
    }
}
