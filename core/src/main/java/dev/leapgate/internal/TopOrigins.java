package dev.leapgate.internal;

import dev.leapgate.Origin;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The origins seen most, in a space-saving summary of a fixed number of places: an origin that
 * accounts for more than one in {@code places} of the offers counted is in it, and its count
 * over-estimates its counted offers by at most the smallest count kept, so readers say "about".
 *
 * <p>Concurrency: {@link #offer} only tries the summary's lock; an offer that finds it taken is
 * dropped (the summary is an estimate anyway, and the request path never waits for it). Readers
 * wait for the lock. So offers made at the same moment on several threads, or while a reader
 * holds the summary, are not all counted: against everything offered, a count can be too low as
 * well as too high, and an origin just above one in {@code places} can be missing. Without
 * contention (one thread offering at a time, no reader) nothing is dropped.
 */
public final class TopOrigins {

    /** An origin and about how often it was offered. */
    public record Counted(Origin origin, long count) {}

    private static final VarHandle LOCK;

    static {
        try {
            LOCK = MethodHandles.lookup().findVarHandle(TopOrigins.class, "lock", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through LOCK
    private volatile int lock;

    // Guarded by the lock.
    private final long[] keys;
    private final Origin[] origins;
    private final long[] counts;

    public TopOrigins(int places) {
        keys = new long[places];
        origins = new Origin[places];
        counts = new long[places];
    }

    /** Counts one more for {@code origin}, unless another thread holds the summary right now. */
    public void offer(Origin origin) {
        if (!LOCK.compareAndSet(this, 0, 1)) {
            return;
        }
        try {
            long key = origin.key();
            int least = 0;
            for (int i = 0; i < keys.length; i++) {
                if (origins[i] == null) {
                    keys[i] = key;
                    origins[i] = origin;
                    counts[i] = 1;
                    return;
                }
                if (keys[i] == key) {
                    counts[i]++;
                    return;
                }
                if (counts[i] < counts[least]) {
                    least = i;
                }
            }
            keys[least] = key;
            origins[least] = origin;
            counts[least]++;
        } finally {
            LOCK.setVolatile(this, 0);
        }
    }

    /** The {@code n} origins counted most, most first; with {@code reset}, the summary starts empty. */
    public List<Counted> top(int n, boolean reset) {
        while (!LOCK.compareAndSet(this, 0, 1)) {
            Thread.onSpinWait();
        }
        List<Counted> all = new ArrayList<>(keys.length);
        try {
            for (int i = 0; i < keys.length && origins[i] != null; i++) {
                all.add(new Counted(origins[i], counts[i]));
                if (reset) {
                    origins[i] = null;
                    counts[i] = 0;
                }
            }
        } finally {
            LOCK.setVolatile(this, 0);
        }
        all.sort(Comparator.comparingLong(Counted::count).reversed());
        return all.size() > n ? List.copyOf(all.subList(0, n)) : List.copyOf(all);
    }
}
