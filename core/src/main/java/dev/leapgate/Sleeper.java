package dev.leapgate;

import java.util.concurrent.locks.LockSupport;

/**
 * How a paced or borrowing request waits for its turn: on the caller's own thread. Production
 * parks the thread; tests supply a sleeper that advances a {@link ManualClock} instead.
 */
@FunctionalInterface
public interface Sleeper {

    /**
     * Waits {@code nanos} nanoseconds.
     *
     * @throws InterruptedException if the thread is interrupted while waiting (its interrupt status
     *     is then cleared, as by {@link Thread#sleep})
     */
    void sleep(long nanos) throws InterruptedException;

    /** Parks the thread until the time has passed on {@link Clock#system()}. */
    static Sleeper system() {
        return nanos -> {
            long deadline = System.nanoTime() + nanos;
            for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for a paced or borrowed slot");
                }
                LockSupport.parkNanos(left);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for a paced or borrowed slot");
            }
        };
    }
}
