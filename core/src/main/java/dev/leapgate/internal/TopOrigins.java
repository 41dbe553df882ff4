package dev.leapgate.internal;

import dev.leapgate.Origin;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The origins seen most, in space-saving summaries of a fixed number of places: an origin that
 * accounts for more than one in {@code places} of the offers counted is in it, and its count
 * over-estimates its counted offers by at most the sum of the smallest counts the summaries kept,
 * so readers say "about".
 *
 * <p>Concurrency: one summary per stripe, a thread offering to the stripe of its identifier (a
 * server's threads have consecutive identifiers, so up to {@link #STRIPES} of them have stripes of
 * their own), each stripe made when first offered to. Threads rejecting one abusive client at
 * once then write nothing another thread writes: a single summary for all had its lock and counts
 * move between the processors on every offer, which made each rejection of that client several
 * times dearer on two threads than on one (BENCHMARKS.md). A reader merges the stripes, adding up
 * an origin's counts. {@link #offer} only tries its stripe's lock; an offer that finds it taken
 * is dropped (the summary is an estimate anyway, and the request path never waits for it). Readers
 * wait for each lock in turn. So offers made at the same moment on threads that share a stripe, or
 * while a reader holds it, are not all counted: against everything offered, a count can be too
 * low as well as too high, and an origin just above one in {@code places} can be missing. Offers
 * made one at a time, with no reader, are all counted.
 */
public final class TopOrigins {

    /** An origin and about how often it was offered. */
    public record Counted(Origin origin, long count) {}

    /** Stripes: the processors rounded up to a power of two, at most 16 (a stripe is about 600 bytes). */
    static final int STRIPES =
            Math.min(16, Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 2 - 1)));

    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

    private final int places;
    private final AtomicReferenceArray<Stripe> stripes;

    /** @param places the origins each stripe keeps; at least 1 */
    public TopOrigins(int places) {
        this(places, STRIPES);
    }

    /** With {@code stripes} stripes, a power of two: tests merge several whatever the processors. */
    TopOrigins(int places, int stripes) {
        if (places < 1 || stripes < 1 || Integer.bitCount(stripes) != 1) {
            throw new IllegalArgumentException(
                    "places must be at least 1 and stripes a power of two, were " + places + " and " + stripes);
        }
        this.places = places;
        this.stripes = new AtomicReferenceArray<>(stripes);
    }

    /**
     * Counts one more for {@code origin}, unless another thread holds its stripe right now.
     *
     * @return whether the offer was counted
     */
    @SuppressWarnings("deprecation") // Thread.getId(): threadId() is Java 19+
    public boolean offer(Origin origin) {
        int i = (int) Thread.currentThread().getId() & (stripes.length() - 1);
        Stripe stripe = stripes.getAcquire(i);
        if (stripe == null) {
            Stripe fresh = new Stripe(places);
            Stripe first = stripes.compareAndExchange(i, null, fresh);
            stripe = first == null ? fresh : first;
        }
        return stripe.offer(origin);
    }

    /** The {@code n} origins counted most, most first; with {@code reset}, the summary starts empty. */
    public List<Counted> top(int n, boolean reset) {
        Map<Long, Counted> merged = new LinkedHashMap<>();
        for (int i = 0; i < stripes.length(); i++) {
            Stripe stripe = stripes.getAcquire(i);
            if (stripe != null) {
                stripe.drainTo(merged, reset);
            }
        }
        List<Counted> all = new ArrayList<>(merged.values());
        all.sort(Comparator.comparingLong(Counted::count).reversed());
        return all.size() > n ? List.copyOf(all.subList(0, n)) : List.copyOf(all);
    }

    /** Adds {@code counted} to what {@code merged} holds for its origin. */
    static void merge(Map<Long, Counted> merged, Counted counted) {
        merged.merge(counted.origin().key(), counted, (a, b) -> new Counted(a.origin(), a.count() + b.count()));
    }

    /**
     * One space-saving summary, guarded by its lock. The words its thread writes on every offer
     * (the lock and the counts) are in one array, a cache line away from either end, so that no
     * other object shares their lines: next to the array of stripes, which every thread reads,
     * they moved between the processors as if the threads shared a stripe.
     */
    private static final class Stripe {
        /** Longs on each side of the written words: a cache line. */
        private static final int PAD = 8;

        private static final int LOCK_AT = PAD;

        /** The lock (0 free, 1 taken) at {@link #LOCK_AT}, then each place's key, then its count; guarded by the lock. */
        private final long[] words;
        /** The origin in each place, guarded by the lock. */
        private final Origin[] origins;

        Stripe(int places) {
            words = new long[PAD + 1 + 2 * places + PAD];
            origins = new Origin[places];
        }

        private int key(int place) {
            return LOCK_AT + 1 + place;
        }

        private int count(int place) {
            return LOCK_AT + 1 + origins.length + place;
        }

        boolean offer(Origin origin) {
            if (!WORD.compareAndSet(words, LOCK_AT, 0L, 1L)) {
                return false;
            }
            try {
                long key = origin.key();
                int least = 0;
                for (int i = 0; i < origins.length; i++) {
                    if (origins[i] == null) {
                        words[key(i)] = key;
                        origins[i] = origin;
                        words[count(i)] = 1;
                        return true;
                    }
                    if (words[key(i)] == key) {
                        words[count(i)]++;
                        return true;
                    }
                    if (words[count(i)] < words[count(least)]) {
                        least = i;
                    }
                }
                words[key(least)] = key;
                origins[least] = origin;
                words[count(least)]++;
                return true;
            } finally {
                // A release store suffices to unlock (the next holder's compare-and-set reads it
                // with everything written before it); a volatile store is a full fence here.
                WORD.setRelease(words, LOCK_AT, 0L);
            }
        }

        void drainTo(Map<Long, Counted> merged, boolean reset) {
            for (int spins = 0; !WORD.compareAndSet(words, LOCK_AT, 0L, 1L); spins++) {
                // An offer holds it for a few nanoseconds, unless its thread lost its processor
                // there: then let that thread run.
                if (spins < 100) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
            try {
                for (int i = 0; i < origins.length && origins[i] != null; i++) {
                    merge(merged, new Counted(origins[i], words[count(i)]));
                    if (reset) {
                        origins[i] = null;
                        words[count(i)] = 0;
                    }
                }
            } finally {
                WORD.setRelease(words, LOCK_AT, 0L);
            }
        }
    }
}
