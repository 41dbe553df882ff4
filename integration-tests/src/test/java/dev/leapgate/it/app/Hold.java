package dev.leapgate.it.app;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where the slow report servlets hold their requests until the test releases them. The test puts
 * one in the servlet context under {@link #ATTRIBUTE} before the application starts.
 *
 * <p>Rounds: {@link #releaseAll} lets every request held so far go, and the requests that arrive
 * after it wait for the next call.
 *
 * <p>Concurrency: arrivals are counted by a semaphore; the current round is one future behind an
 * atomic reference, completed (by the test) at most once.
 */
public final class Hold {

    public static final String ATTRIBUTE = Hold.class.getName();
    /** A held request gives up after this, so a failing test never leaves requests hanging. */
    public static final Duration MAX_HOLD = Duration.ofSeconds(30);

    private final Semaphore arrivals = new Semaphore(0);
    private final AtomicReference<CompletableFuture<Void>> round = new AtomicReference<>(new CompletableFuture<>());

    /** Called by a servlet when a request arrives: returns what completes when the request may go. */
    CompletableFuture<Void> arrive() {
        CompletableFuture<Void> current = round.get();
        arrivals.release();
        return current;
    }

    /** Waits until {@code requests} more requests have arrived (and are being held). */
    public void awaitArrivals(int requests) throws InterruptedException {
        if (!arrivals.tryAcquire(requests, MAX_HOLD.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError(requests + " requests did not arrive within " + MAX_HOLD);
        }
    }

    /** Lets every held request go. */
    public void releaseAll() {
        round.getAndSet(new CompletableFuture<>()).complete(null);
    }
}
