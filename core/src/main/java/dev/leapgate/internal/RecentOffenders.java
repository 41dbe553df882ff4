package dev.leapgate.internal;

import dev.leapgate.Origin;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The origins a per-origin rule rejected most recently: a {@link TopOrigins} summary of {@value
 * #PLACES} places per minute, the current minute's and the previous one's, so that what is shown
 * covers one to two minutes and an origin that stopped is forgotten. Updated on rejections only.
 *
 * <p>Concurrency: an offer reads one volatile field and offers to the current summary; the one
 * thread that finds the minute over starts the next under this object's lock, once a minute. The
 * two minutes are replaced together, so a reader never sees one minute as both.
 */
public final class RecentOffenders {

    static final int PLACES = 20;
    static final long MINUTE_NANOS = 60_000_000_000L;

    private record Minute(long startNanos, TopOrigins top) {}

    /** The current minute and the one before it (null where there is none yet). */
    private record Minutes(Minute current, Minute previous) {}

    private volatile Minutes minutes = new Minutes(null, null);

    /** Counts a rejection of a request from {@code origin} at {@code nowNanos}. */
    public void offer(Origin origin, long nowNanos) {
        Minute minute = minutes.current;
        if (minute == null || nowNanos - minute.startNanos >= MINUTE_NANOS) {
            minute = next(minute, nowNanos);
        }
        minute.top.offer(origin);
    }

    private synchronized Minute next(Minute seen, long nowNanos) {
        Minutes now = minutes;
        if (now.current == seen) {
            now = new Minutes(new Minute(nowNanos, new TopOrigins(PLACES)), seen);
            minutes = now;
        }
        return now.current;
    }

    /** The {@code n} origins rejected most over the last one to two minutes, most first. */
    public List<TopOrigins.Counted> top(int n, long nowNanos) {
        Map<Long, TopOrigins.Counted> merged = new LinkedHashMap<>();
        Minutes both = minutes;
        for (Minute minute : new Minute[] {both.current, both.previous}) {
            if (minute == null || nowNanos - minute.startNanos >= 2 * MINUTE_NANOS) {
                continue;
            }
            for (TopOrigins.Counted counted : minute.top.top(PLACES, false)) {
                TopOrigins.merge(merged, counted);
            }
        }
        List<TopOrigins.Counted> all = new ArrayList<>(merged.values());
        all.sort(Comparator.comparingLong(TopOrigins.Counted::count).reversed());
        return all.size() > n ? List.copyOf(all.subList(0, n)) : List.copyOf(all);
    }
}
