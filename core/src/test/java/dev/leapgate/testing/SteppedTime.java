package dev.leapgate.testing;

import dev.leapgate.ManualClock;
import dev.leapgate.Sleeper;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A fake clock that threads really sleep on, moved by the test in steps: a {@link Sleeper} whose
 * sleeper stays asleep until the test has moved the clock to the end of its wait, and then reads
 * it there, as a thread woken by the system would. So a request that waits goes on at its
 * decision's time plus its wait (or later), while others are decided meanwhile.
 *
 * <p>The clock moves only while every worker taking part is asleep or at the end of its step
 * ({@link #endStep}): within a step, every thread reads the same time, so no thread's reading is
 * older than a bucket another thread's has already rolled a window to (which a window counts in
 * the later bucket, and a checker over the readings would take for a broken promise).
 *
 * <p>Concurrency: every field is guarded by this object's monitor.
 */
public final class SteppedTime implements Sleeper {

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);

    private final ManualClock clock = new ManualClock();
    private final List<Sleep> asleep = new ArrayList<>();
    /** Workers taking part: asleep, at the end of their step, or running. */
    private int workers;
    /** Workers waiting at the end of their step for the clock to move. */
    private int atStepEnd;
    /** How many times the clock moved. */
    private long moves;

    private static final class Sleep {
        final long untilNanos;
        boolean over;

        Sleep(long untilNanos) {
            this.untilNanos = untilNanos;
        }
    }

    public ManualClock clock() {
        return clock;
    }

    /** The calling test counts one more worker, before that worker starts. */
    public synchronized void join() {
        workers++;
    }

    /** A worker is done: it takes part no more. */
    public synchronized void leave() {
        workers--;
        notifyAll();
    }

    @Override
    public synchronized void sleep(long nanos) throws InterruptedException {
        Sleep sleep = new Sleep(clock.nanoTime() + nanos);
        asleep.add(sleep);
        notifyAll();
        try {
            while (!sleep.over) {
                wait();
            }
        } finally {
            if (!sleep.over) { // interrupted: awake, and running
                asleep.remove(sleep);
                notifyAll();
            }
        }
    }

    /** A worker waits until the clock has moved. */
    public synchronized void endStep() throws InterruptedException {
        long step = moves;
        atStepEnd++;
        notifyAll();
        while (moves == step) {
            wait();
        }
    }

    /** Waits until every worker is asleep, at the end of its step, or gone. */
    public synchronized void awaitQuiet() throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (atStepEnd + asleep.size() < workers) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("workers still running after 20 s: " + workers + " taking part, "
                        + asleep.size() + " asleep, " + atStepEnd + " at the end of a step");
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /**
     * Once every worker is asleep or at the end of its step, moves the clock by {@code nanos} and
     * lets go those whose sleep is over and all at the end of their step.
     *
     * @return whether any worker took part (the clock moves either way)
     */
    public synchronized boolean advance(long nanos) throws InterruptedException {
        awaitQuiet();
        boolean any = workers > 0;
        long now = clock.advanceNanos(nanos);
        moves++;
        atStepEnd = 0;
        asleep.removeIf(sleep -> {
            sleep.over = sleep.untilNanos - now <= 0;
            return sleep.over;
        });
        notifyAll();
        return any;
    }

    /** Moves the clock to {@code nanos} (not back), as {@link #advance}, and waits until all are quiet again. */
    public synchronized void advanceTo(long nanos) throws InterruptedException {
        advance(Math.max(0, nanos - clock.nanoTime()));
        awaitQuiet();
    }
}
