package dev.leapgate;

/**
 * The one source of time in Leapgate: a monotonic nanosecond counter.
 *
 * <p>Readings are only meaningful relative to each other, like {@link System#nanoTime()}; they are
 * never wall-clock time, so a step of the system clock (NTP, daylight saving, an operator) cannot
 * freeze or corrupt a window. Production code uses {@link #system()}; tests use {@link
 * ManualClock} and advance it by hand. No implementation may start a thread.
 */
@FunctionalInterface
public interface Clock {

    /** Returns the current reading in nanoseconds; successive readings never decrease. */
    long nanoTime();

    /** The monotonic system clock, backed by {@link System#nanoTime()}. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}
