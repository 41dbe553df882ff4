package dev.leapgate;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to: for tests, demos and simulations.
 *
 * <p>Concurrency: the reading is one {@link AtomicLong}, so a driver thread may advance it while
 * other threads read it. It never goes backwards: {@link #advance} rejects negative steps.
 */
public final class ManualClock implements Clock {

    private final AtomicLong nanos;

    /** Starts at 0 ns. */
    public ManualClock() {
        this(0L);
    }

    /** Starts at the given reading; any value is allowed, as with {@link System#nanoTime()}. */
    public ManualClock(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    /**
     * Moves the clock forward by {@code step}; returns the new reading.
     *
     * @throws IllegalArgumentException if {@code step} is negative, or longer than a {@code long} of
     *     nanoseconds holds (about 292 years)
     */
    public long advance(Duration step) {
        Objects.requireNonNull(step, "step");
        if (step.isNegative()) {
            throw new IllegalArgumentException("step must not be negative, was " + step);
        }
        long stepNanos;
        try {
            stepNanos = step.toNanos();
        } catch (ArithmeticException tooLong) {
            throw new IllegalArgumentException(
                    "step must be at most " + Long.MAX_VALUE + "ns (292 years), was " + step);
        }
        return advanceNanos(stepNanos);
    }

    /** Moves the clock forward by {@code stepNanos}; returns the new reading. */
    public long advanceNanos(long stepNanos) {
        if (stepNanos < 0) {
            throw new IllegalArgumentException("step must not be negative, was " + stepNanos + "ns");
        }
        return nanos.addAndGet(stepNanos);
    }

    @Override
    public String toString() {
        return "ManualClock[" + nanos.get() + "ns]";
    }
}
