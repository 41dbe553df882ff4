package dev.leapgate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;

/**
 * An admitted request. Close it when the work is done, ideally with try-with-resources: closing
 * records the response time and the outcome, and releases any concurrency permits.
 *
 * <p>Closing is idempotent and thread-safe: the first {@link #close()} on any thread does the
 * work, later ones do nothing, so a slot is released exactly once even when several paths (a
 * filter's {@code finally}, an async listener, a response filter) all close the same entry. Mark
 * the request as failed with {@link #fail} before closing to count it as an exception.
 *
 * <p>Concurrency: {@code closed} flips once by CAS; {@code failed} is volatile and read by the
 * thread that wins the close.
 */
public final class Entry implements Decision, AutoCloseable {

    /** The limiter that admitted an entry: what closing hands back to, and what reports its quotas. */
    interface Exit {
        /** Called exactly once per entry, by the thread that closed it. */
        void exit(Entry entry, long nowNanos, boolean failed);

        /** Computes {@link Entry#quotas()}; called at most once per entry (or twice in a race). */
        List<Quota> quotas(Entry entry);
    }

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(Entry.class, "closed", boolean.class);
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

    @SuppressWarnings("unused") // written through CLOSED
    private volatile boolean closed;

    private volatile boolean failed;

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
     * Marks the request as failed, so that closing counts an exception instead of a success. The
     * error itself is not kept; the caller rethrows it. Has no effect after {@link #close()}.
     */
    public void fail(Throwable error) {
        Objects.requireNonNull(error, "error");
        failed = true;
    }

    /**
     * Marks the request as failed without an exception at hand (for example an HTTP response with
     * a 5xx status). Has no effect after {@link #close()}.
     */
    public void fail() {
        failed = true;
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Records the response time and outcome and releases the entry's permits; only the first call
     * does anything.
     */
    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, false, true)) {
            exit.exit(this, clock.nanoTime(), failed);
        }
    }

    @Override
    public String toString() {
        return "Entry[permits=" + permits + ", start=" + startNanos + "ns" + (closed ? ", closed" : "") + "]";
    }
}
