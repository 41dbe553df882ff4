package dev.leapgate.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * Runs a body on many threads that start together, and fails the calling test if any of them threw.
 *
 * <p>A raw {@link Thread} that throws only prints its stack trace; the test that started it carries
 * on and may pass vacuously. {@link #run} instead throws an {@link AssertionError} in the calling
 * thread whose cause is the first failure, with the others attached as suppressed exceptions.
 */
public final class Together {

    /** Generous: the heaviest concurrency test takes a few seconds. */
    private static final long TIMEOUT_MINUTES = 2;

    private record Failure(int threadIndex, Throwable error) {}

    private Together() {}

    /**
     * Starts {@code threads} threads that wait on one latch, then run {@code body.accept(i)} with
     * their index {@code i} in {@code [0, threads)}, and waits for all of them.
     *
     * <p>The calling thread sees everything the workers wrote (each is joined).
     *
     * @throws AssertionError if a worker threw, or if the workers have not all finished within two
     *     minutes (those still running are then interrupted and their stacks reported)
     */
    public static void run(int threads, IntConsumer body) throws InterruptedException {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        Objects.requireNonNull(body, "body");
        CountDownLatch start = new CountDownLatch(1);
        Queue<Failure> failures = new ConcurrentLinkedQueue<>(); // in the order they happened
        List<Thread> workers = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread worker = new Thread(
                    () -> {
                        try {
                            start.await();
                            body.accept(index);
                        } catch (Throwable t) {
                            failures.add(new Failure(index, t));
                        }
                    },
                    "together-" + index);
            worker.setDaemon(true); // a stuck worker must not keep the test JVM alive
            workers.add(worker);
        }
        workers.forEach(Thread::start);
        start.countDown();

        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(TIMEOUT_MINUTES);
        List<Thread> stuck = new ArrayList<>();
        for (Thread worker : workers) {
            // join(0) would wait forever, so never less than 1 ms.
            worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (worker.isAlive()) {
                stuck.add(worker);
            }
        }

        List<Failure> failed = List.copyOf(failures); // stuck workers may still add to the queue
        if (failed.isEmpty() && stuck.isEmpty()) {
            return;
        }
        Throwable first = failed.isEmpty() ? null : failed.get(0).error();
        String message;
        if (stuck.isEmpty()) {
            message = "thread " + failed.get(0).threadIndex() + " of " + threads + " threw " + first;
            if (failed.size() > 1) {
                message += " (and " + (failed.size() - 1) + " more, suppressed)";
            }
        } else {
            message = stuck.size() + " of " + threads + " threads still running after " + TIMEOUT_MINUTES + " minutes";
            if (!failed.isEmpty()) {
                message += "; " + failed.size() + " threw, the first is the cause";
            }
        }
        AssertionError error = new AssertionError(message, first);
        for (Failure other : failed.subList(Math.min(1, failed.size()), failed.size())) {
            error.addSuppressed(other.error());
        }
        for (Thread worker : stuck) {
            AssertionError where = new AssertionError(worker.getName() + " was here");
            where.setStackTrace(worker.getStackTrace());
            error.addSuppressed(where);
            worker.interrupt();
        }
        throw error;
    }
}
