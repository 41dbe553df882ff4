package dev.leapgate;

/**
 * An admitted request. Close it when the work is done: closing records the response time and the
 * outcome, and releases any concurrency permits. The shortest correct form runs the work through
 * the entry, which records a thrown exception as a failure and closes it:
 *
 * <pre>{@code
 * if (limiter.tryEnter() instanceof Entry entry) {
 *     return entry.call(() -> export(request));
 * }
 * }</pre>
 *
 * The try-with-resources form users write anyway works too: the resource is closed <em>before</em>
 * the {@code catch} block runs, so a {@link #fail} after {@link #close()} turns the success that
 * closing recorded into a failure (once), rather than being lost.
 *
 * <pre>{@code
 * try (entry) {
 *     return export(request);
 * } catch (RuntimeException e) {
 *     entry.fail(e);                      // counted as a failure, though the entry is closed
 *     throw e;
 * }
 * }</pre>
 *
 * <p>Closing is idempotent and thread-safe: the first {@link #close()} on any thread does the
 * work, later ones do nothing, so a slot is released exactly once even when several paths (a
 * filter's {@code finally}, an async listener, a response filter) all close the same entry.
 *
 * <p>An entry that is never closed keeps its concurrency permits for good: nothing times it out,
 * and nothing reclaims it when it is garbage-collected. A limiter with a concurrency limit loses
 * the slots of every entry left open, and the statistics count such a request in flight (and its
 * response time unknown) for ever. Close every entry on every path, as both forms above do.
 *
 * <p>Entries are made by Leapgate's limiters; subclassing this class elsewhere is not useful. (It is
 * an abstract class, not an interface, because {@code decision instanceof Entry} is then a
 * constant-time check: the JVM looks an interface up in a list, a class in a table.)
 */
public abstract non-sealed class Entry implements Decision, AutoCloseable {

    /**
     * Work run through an entry by {@link #call}.
     *
     * @param <T> what the work returns
     * @param <E> what it may throw
     */
    @FunctionalInterface
    public interface Work<T, E extends Exception> {
        T run() throws E;
    }

    /** For Leapgate's limiters. */
    protected Entry() {}

    @Override
    public final boolean admitted() {
        return true;
    }

    /** The permits this entry holds; 0 for a request no rule applied to (see {@link #isClosed()}). */
    public abstract int permits();

    /** The clock reading at admission (after any wait for a paced or borrowed turn). */
    public abstract long startNanos();

    /**
     * Runs {@code work} as this entry's request and closes the entry: a normal return is counted
     * as a success, an exception or error thrown by the work as a failure, and is rethrown
     * unchanged. The entry is closed however the work ends.
     *
     * @return what the work returned
     * @throws E what the work threw
     */
    public final <T, E extends Exception> T call(Work<T, E> work) throws E {
        try {
            // Inside the try: a null work fails the request, and the entry is closed all the same.
            return java.util.Objects.requireNonNull(work, "work").run();
        } catch (Throwable e) { // also a Throwable of its own, thrown past the compiler ("sneaky")
            fail(e);
            throw e; // precisely what the work may throw: E, or unchecked
        } finally {
            close();
        }
    }

    /**
     * Marks the request as failed, so that it is counted as an exception instead of a success. The
     * error itself is not kept; the caller rethrows it. Before {@link #close()} it decides what
     * closing records; after a close that recorded a success, it turns that success into a failure
     * (once), so the {@code catch} block of a try-with-resources still counts.
     */
    public final void fail(Throwable error) {
        java.util.Objects.requireNonNull(error, "error");
        fail();
    }

    /**
     * Marks the request as failed without an exception at hand (for example an HTTP response with
     * a 5xx status); see {@link #fail(Throwable)}.
     */
    public abstract void fail();

    /**
     * Whether {@link #close()} has been called. Always {@code false} for the entry of a request no
     * rule applied to (an {@code HttpGate} request that no rule matched, or from an exempt origin):
     * one shared entry that holds nothing, {@linkplain #permits() has no permits} and records
     * nothing, whose {@code close} and {@code fail} do nothing.
     */
    public abstract boolean isClosed();

    /**
     * Whether the request was marked failed, before or after it was closed; always {@code false}
     * for the entry of a request no rule applied to (see {@link #isClosed()}).
     */
    public abstract boolean isFailed();

    /**
     * Records the response time and outcome and releases the entry's permits; only the first call
     * does anything. If the limiter's {@link Clock} throws, the permits are released all the same
     * (the response time recorded as 0) and the clock's exception is thrown.
     */
    @Override
    public abstract void close();
}
