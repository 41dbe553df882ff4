package dev.leapgate.internal;

import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.Quota;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The {@link Entry} of a request admitted by one or more {@link Limit}s: what it holds (the
 * limits, the token each returned, its origin) and its life, from admission to close.
 *
 * <p>Concurrency: the whole life of an entry is one {@code long} word changed by CAS. Its two low
 * bits are the state: {@code OPEN} or {@code OPEN_FAILED} until the first close, then {@code
 * CLOSED} or {@code CLOSED_FAILED}; the only move out of a closed state is {@code CLOSED ->
 * CLOSED_FAILED}, by a late {@link #fail}. The CAS that closes also stores the response time in
 * the bits above, so a late {@link #fail} knows the close happened. Everything else is final.
 */
public final class AdmittedEntry extends Entry {

    private static final long OPEN = 0;
    private static final long OPEN_FAILED = 1;
    private static final long CLOSED = 2;
    private static final long CLOSED_FAILED = 3;
    private static final long STATE_BITS = 3;

    private static final Comparator<Quota> TIGHTEST_FIRST = Comparator.comparingLong(Quota::remaining);

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(AdmittedEntry.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The limits that admitted the request, in the order they decided. */
    private final Limit[] limits;
    /** The tokens of {@code limits[0]} and {@code limits[1]}, when there are at most two limits. */
    private final long token0;

    private final long token1;
    /** Every limit's token, when there are more than two limits; else null. */
    private final long[] tokens;

    private final Origin origin;
    private final int permits;
    /** The clock reading at admission: the decision's, or the end of a wait for a turn. */
    private final long startNanos;
    /** Whether the request waited (for a turn or a loan) between the decision and {@link #startNanos}. */
    private final boolean waited;

    /** {@code responseNanos << 2 | state}; see the class comment. */
    @SuppressWarnings("unused") // written through STATE
    private volatile long state;

    AdmittedEntry(
            Limit[] limits,
            long token0,
            long token1,
            long[] tokens,
            Origin origin,
            int permits,
            long startNanos,
            boolean waited) {
        this.limits = limits;
        this.token0 = token0;
        this.token1 = token1;
        this.tokens = tokens;
        this.origin = origin;
        this.permits = permits;
        this.startNanos = startNanos;
        this.waited = waited;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public long startNanos() {
        return startNanos;
    }

    /** How many limits admitted the request. */
    public int limitCount() {
        return limits.length;
    }

    /** The {@code i}-th limit that admitted the request, in the order they decided. */
    public Limit limit(int i) {
        return limits[i];
    }

    /** What the {@code i}-th limit returned when it admitted the request. */
    public long token(int i) {
        return tokens != null ? tokens[i] : i == 0 ? token0 : token1;
    }

    /** Who the request came from. */
    public Origin origin() {
        return origin;
    }

    /**
     * Whether limit {@code i}'s quota is shown ({@link #quotas}, the {@code RateLimit} fields): not
     * a shadow rule's, nor a shared rule's that let the request pass because its store could not
     * decide ({@code store-on-failure = open}): neither limits anything.
     */
    public boolean shown(int i) {
        return limits[i].quotaShown(token(i));
    }

    /** The permits limit {@code i} has left for the request's origin, as its quota says ({@link #quotas}). */
    public long remaining(int i) {
        return waited
                ? limits[i].remainingAfterWait(startNanos, origin, token(i))
                : limits[i].remaining(startNanos, origin, token(i));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Computed when asked for, so that requests whose quotas nobody reads do not pay for them
     * (and their entries stay small), as of the admission ({@link #startNanos()}: after the wait
     * of a paced or borrowing request, when it goes on and its response starts; a quota as of the
     * decision would tell such a client of a schedule or a loan's bucket as they stood before its
     * wait): a window's from its ticket, so that every call gives an equal quota (but for a request
     * that waited: then never more than the window holds as it is read, since others were counted
     * while it waited, loans of the same bucket or admissions while another rule's turn came); an
     * in-flight limit's and a paced or warming-up rule's from what its counter or schedule holds
     * when asked. Shadow rules are not among them, nor shared rules that let the request pass because the store could not decide ({@link #shown}).
     */
    @Override
    public List<Quota> quotas() {
        int enforced = 0;
        for (int i = 0; i < limits.length; i++) {
            enforced += shown(i) ? 1 : 0;
        }
        Quota[] all = new Quota[enforced];
        for (int i = 0, k = 0; i < limits.length; i++) {
            if (shown(i)) {
                all[k++] = limits[i].quota(startNanos, origin, token(i), waited);
            }
        }
        if (all.length > 1) {
            Arrays.sort(all, TIGHTEST_FIRST);
        }
        return List.of(all);
    }

    @Override
    public void fail() {
        for (; ; ) {
            long word = state;
            long s = word & STATE_BITS;
            if (s == OPEN_FAILED || s == CLOSED_FAILED) {
                return;
            }
            if (STATE.compareAndSet(this, word, word + 1)) { // OPEN -> OPEN_FAILED, CLOSED -> CLOSED_FAILED
                if (s == CLOSED) {
                    for (int i = 0; i < limits.length; i++) {
                        if (Admission.firstWithItsRecorder(limits, i)) {
                            limits[i].recorder.onFailedAfterExit();
                        }
                    }
                }
                return;
            }
        }
    }

    @Override
    public boolean isClosed() {
        return (state & STATE_BITS) >= CLOSED;
    }

    @Override
    public boolean isFailed() {
        long s = state & STATE_BITS;
        return s == OPEN_FAILED || s == CLOSED_FAILED;
    }

    @Override
    public void close() {
        if ((state & STATE_BITS) >= CLOSED) {
            return;
        }
        long now;
        try {
            now = limits[0].recorder.clock().nanoTime();
        } catch (Throwable e) {
            // An application's clock that throws (anything, also a checked exception it does not
            // declare): the request has ended all the same, so it gives back what it holds (as of
            // its start: a response time of 0), then the exception goes on to the caller.
            closeAt(startNanos);
            throw e;
        }
        closeAt(now);
    }

    private void closeAt(long now) {
        long closed = (now - startNanos) << 2;
        for (; ; ) {
            long word = state; // only fail() moves an open entry: OPEN -> OPEN_FAILED
            if ((word & STATE_BITS) >= CLOSED) {
                return;
            }
            if (STATE.compareAndSet(this, word, closed | (word + CLOSED))) {
                exit(now, word == OPEN_FAILED);
                return;
            }
        }
    }

    /**
     * Records the completion, then gives back the in-flight slots: the statistics count a request
     * in flight after its slots are taken and stop before they are given back, so they never show
     * more in flight than a limit allows.
     */
    private void exit(long now, boolean failed) {
        long rt = now - startNanos;
        for (int i = 0; i < limits.length; i++) {
            if (Admission.firstWithItsRecorder(limits, i)) {
                limits[i].recorder.onExit(now, rt, failed);
            }
        }
        for (int i = 0; i < limits.length; i++) {
            if (limits[i] instanceof Limit.InFlight && token(i) != Limit.SHADOW_REJECTED) {
                limits[i].release(origin, 1, permits);
            }
        }
    }

    @Override
    public String toString() {
        return "Entry[permits=" + permits + ", start=" + startNanos + "ns" + (isClosed() ? ", closed" : "") + "]";
    }
}
