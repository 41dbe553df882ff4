package dev.leapgate.internal.counter;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How the state of a limit passes to the limit made for a changed rule ({@link LeapCounter}, {@link
 * SmoothRate}), while requests that read the rules before the change may still decide on the old
 * one. The new state starts <em>pending</em> and takes the old one over at its first use: the old
 * state is <em>sealed</em> (it never changes again, and whoever decides on it is handed on to the
 * new one), and only then read. So every decision is made either on the old state before the seal,
 * and the new state takes it over, or on the new state: none is lost, however the callers of the
 * two interleave. Until the new limit is used the old one is unchanged, so a limit made for rules
 * that never come into force changes nothing. Every step may be taken by several threads at once
 * and ends in the same state; no locks.
 *
 * <p>One succession belongs to one state, and to every limit that works on that state (a {@link
 * LeapCounter} and one made from it with the same window share their cells).
 *
 * @param <T> the kind of limit
 */
final class Succession<T extends Succession.Party<T>> {

    /** The limit whose state this one takes over at its first use; null once taken (or if none). */
    private volatile T from;

    /** The limit that took this state over; set once, before the state is sealed. */
    private final AtomicReference<T> to = new AtomicReference<>();

    /**
     * The oldest bucket of this state that the limit which took it over carried, in this state's
     * terms ({@link LeapCounter}'s epochs), or {@link Long#MIN_VALUE} before it has: what was
     * counted before it had left the window when the state was taken over, and is not in the new
     * state's count.
     */
    private final AtomicLong carriedFrom = new AtomicLong(Long.MIN_VALUE);

    /** A state of its own ({@code from} null), or one pending until it takes {@code from}'s over. */
    Succession(T from) {
        this.from = from;
    }

    /** The limit that took this state over, or null. */
    T successor() {
        return to.get();
    }

    /**
     * Notes that the taking limit carried this state from bucket {@code epoch} on. Each thread that
     * takes part in the takeover notes what it read, and the newest bucket is kept: never older
     * than what the takeover that counts carried from, so that no refund is handed on for a bucket
     * it did not carry (at worst one it did carry is kept: the strict side).
     */
    void carriedFrom(long epoch) {
        carriedFrom.accumulateAndGet(epoch, Math::max);
    }

    /** The oldest bucket carried (see {@link #carriedFrom(long)}), or {@link Long#MIN_VALUE} if none yet. */
    long carriedFrom() {
        return carriedFrom.get();
    }

    /** A limit in a succession: the state it works on and the three steps of a takeover. */
    abstract static class Party<T extends Party<T>> {

        /** The succession of this limit's state. */
        abstract Succession<T> succession();

        /** Whether the state is neither pending nor sealed: this limit decides on it. */
        abstract boolean decides();

        /** Seals the state, if it is not yet: it never changes after. */
        abstract void seal();

        /**
         * Replaces this limit's pending state with one that goes on from {@code sealed}'s sealed
         * state at {@code nowNanos}, unless another thread already did.
         */
        abstract void goOnFrom(T sealed, long nowNanos);

        /**
         * The limit that decides for this one: this one, once its state is its own (taking the state
         * it goes on from over now, if it is still pending), or the one that took its state over.
         */
        final T current(long nowNanos) {
            @SuppressWarnings("unchecked")
            T self = (T) this;
            for (; ; ) {
                if (decides()) {
                    return self;
                }
                Succession<T> succession = succession();
                T from = succession.from;
                if (from != null) {
                    takeOver(self, from, nowNanos);
                    continue;
                }
                T to = succession.to.get();
                if (to != null) {
                    return to;
                }
                // Pending no more: the state was just set, and `from` cleared after it. Read it again.
            }
        }

        /**
         * Takes {@code from}'s state over: seals it, once it holds its own, then makes this one's
         * state go on from it.
         */
        private static <T extends Party<T>> void takeOver(T self, T from, long nowNanos) {
            Succession<T> own = self.succession();
            T sealed = from;
            for (; ; ) {
                sealed.current(nowNanos); // its own takeover first, if it is still pending
                if (sealed.succession().to.compareAndSet(null, self)) {
                    break;
                }
                T to = sealed.succession().to.get();
                if (to.succession() == own) {
                    break; // taken over by a limit on this state (this one, or one that shares it)
                }
                // A limit for rules that did not come into force took it over (in tests): go on from that one.
                sealed = to;
            }
            sealed.seal();
            self.goOnFrom(sealed, nowNanos);
            own.from = null;
        }
    }
}
