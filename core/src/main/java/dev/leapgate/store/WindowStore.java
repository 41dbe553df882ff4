package dev.leapgate.store;

import java.util.concurrent.CompletionStage;

/**
 * Rate windows kept outside the process, shared by every instance that uses the same store: the
 * seam between Leapgate's decision layer and a distributed engine such as Redis. The in-process
 * windows answer the same two questions for one instance; the decision layer asks a store only
 * for the rules it shares, and keeps every other policy (several rules per request, statistics,
 * what to do when the store fails) itself.
 *
 * <p>A decision is one atomic step in the store: check that the permits fit in the window of the
 * key at the store's own time, and count them if so. The window's semantics are those of the
 * in-process one ({@link SharedWindow}). A store must not queue decisions while it is
 * disconnected: a decision it cannot make fails at once, and the caller bounds every wait with its
 * time budget. (Until its first connection is made, a store may hold decisions for it, within
 * that budget, and must then send only those still waited for.)
 *
 * <p>Implementations are thread-safe.
 */
public interface WindowStore extends AutoCloseable {

    /**
     * Starts a decision: whether {@code permits} fit in the window {@code key} of shape {@code
     * window}, counting them if so. The stage fails if the store cannot decide. A caller that stops
     * waiting cancels the stage ({@link java.util.concurrent.CompletableFuture#cancel}); permits
     * the store then counts for it anyway should be given back, as a refund.
     *
     * @param key the window's key without the store's prefix, e.g. {@code {o:203.0.113.7}:login}
     */
    CompletionStage<Verdict> tryAcquire(SharedWindow window, String key, int permits);

    /**
     * Gives back the permits of an admission in {@code bucket} (another rule on the same request
     * rejected it), if that bucket is still counted; best effort, never waited for.
     */
    void refund(SharedWindow window, String key, long bucket, int permits);

    /** The instances that share this store now, as far as it knows; at least 1. */
    int instances();

    /** Stops using the store; decisions started afterwards fail. */
    @Override
    void close();
}
