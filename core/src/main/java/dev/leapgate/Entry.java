package dev.leapgate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;

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
 * <p>Concurrency: the whole life of an entry is one {@code long} word changed by CAS. Its two low
 * bits are the state: {@code OPEN} or {@code OPEN_FAILED} until the first close, then {@code
 * CLOSED} or {@code CLOSED_FAILED}; the only move out of a closed state is {@code CLOSED ->
 * CLOSED_FAILED}, by a late {@link #fail}. The CAS that closes also stores the response time in
 * the bits above, so a late {@link #fail} knows when the close happened from the same word.
 */
public final class Entry implements Decision, AutoCloseable {

    /** The limiter that admitted an entry: what closing hands back to, and what reports its quotas. */
    interface Exit {
        /** Called exactly once per entry, by the thread that closed it. */
        void exit(Entry entry, long nowNanos, boolean failed);

        /**
         * The entry, closed as a success at {@code closedNanos}, was failed afterwards: count it as
         * failed instead. Called at most once per entry, after or concurrently with {@link #exit}.
         */
        void failedAfterExit(Entry entry, long closedNanos);

        /** Computes {@link Entry#quotas()}; called at most once per entry (or twice in a race). */
        List<Quota> quotas(Entry entry);
    }

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

    private static final long OPEN = 0;
    private static final long OPEN_FAILED = 1;
    private static final long CLOSED = 2;
    private static final long CLOSED_FAILED = 3;
    private static final long STATE_BITS = 3;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Entry.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Exit exit;
    private final Clock clock;
    private final long startNanos;
    private final int permits;
    /** The limiter's own record of what this entry holds, handed back to {@link Exit}. */
    private final Object held;
    /** Computed on first request; a racing second computation yields an equal list. */
    private volatile List<Quota> quotas;

    /**
     * {@code responseNanos << 2 | state}: the state in the two low bits, and once closed, the time
     * from admission to close (a difference of clock readings, well within 62 bits).
     */
    @SuppressWarnings("unused") // written through STATE
    private volatile long state;

    Entry(Exit exit, Clock clock, long startNanos, int permits, Object held) {
        this.exit = Objects.requireNonNull(exit, "exit");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.startNanos = startNanos;
        this.permits = permits;
        this.held = held;
    }

    @Override
    public boolean admitted() {
        return true;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Computed when first asked for, as of the time of the decision, so that requests whose
     * quotas nobody reads do not pay for them.
     */
    @Override
    public List<Quota> quotas() {
        List<Quota> computed = quotas;
        if (computed == null) {
            computed = exit.quotas(this);
            quotas = computed;
        }
        return computed;
    }

    Object held() {
        return held;
    }

    /** The permits this entry holds. */
    public int permits() {
        return permits;
    }

    /** The clock reading at admission. */
    public long startNanos() {
        return startNanos;
    }

    /**
     * Runs {@code work} as this entry's request and closes the entry: a normal return is counted
     * as a success, an exception or error thrown by the work as a failure, and is rethrown
     * unchanged. The entry is closed however the work ends.
     *
     * @return what the work returned
     * @throws E what the work threw
     */
    public <T, E extends Exception> T call(Work<T, E> work) throws E {
        Objects.requireNonNull(work, "work");
        try {
            return work.run();
        } catch (Exception | Error e) {
            fail(e);
            throw e;
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
    public void fail(Throwable error) {
        Objects.requireNonNull(error, "error");
        fail();
    }

    /**
     * Marks the request as failed without an exception at hand (for example an HTTP response with
     * a 5xx status); see {@link #fail(Throwable)}.
     */
    public void fail() {
        for (; ; ) {
            long word = state;
            long s = word & STATE_BITS;
            if (s == OPEN_FAILED || s == CLOSED_FAILED) {
                return;
            }
            if (STATE.compareAndSet(this, word, word + 1)) { // OPEN -> OPEN_FAILED, CLOSED -> CLOSED_FAILED
                if (s == CLOSED) {
                    exit.failedAfterExit(this, startNanos + (word >> 2));
                }
                return;
            }
        }
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return (state & STATE_BITS) >= CLOSED;
    }

    /** Whether the request was marked failed, before or after it was closed. */
    public boolean isFailed() {
        long s = state & STATE_BITS;
        return s == OPEN_FAILED || s == CLOSED_FAILED;
    }

    /**
     * Records the response time and outcome and releases the entry's permits; only the first call
     * does anything.
     */
    @Override
    public void close() {
        long word = state;
        if ((word & STATE_BITS) >= CLOSED) {
            return;
        }
        long now = clock.nanoTime();
        long closedAt = (now - startNanos) << 2;
        for (; ; ) {
            if (STATE.compareAndSet(this, word, closedAt | (word + CLOSED))) {
                exit.exit(this, now, word == OPEN_FAILED);
                return;
            }
            word = state; // only fail() moves an open entry: OPEN -> OPEN_FAILED
            if ((word & STATE_BITS) >= CLOSED) {
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "Entry[permits=" + permits + ", start=" + startNanos + "ns" + (isClosed() ? ", closed" : "") + "]";
    }
}
