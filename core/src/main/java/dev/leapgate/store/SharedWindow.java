package dev.leapgate.store;

import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import java.util.Objects;

/**
 * The shape of one shared rate window, as a store needs it: which rule it belongs to, how long its
 * buckets are, how many past buckets it counts besides the newest, and the limit. Every key of one
 * rule has this shape.
 *
 * <p>The window at bucket {@code e} counts buckets {@code e - span} to {@code e}: {@code span =
 * n} for a {@link WindowMode#STRICT strict} window of {@code n} buckets (the bucket that straddles
 * the window's start counts whole, so no span of the window's length ever holds more than the
 * limit), {@code n - 1} for a {@link WindowMode#SLIDING sliding} one. Buckets are numbered from
 * the store's time origin, the same for every instance.
 *
 * <p>A window of a rule whose {@code window} a reload changed names the shape of the previous
 * version ({@link #previous}), for as long as that one's counts may still count: a key of this
 * shape that holds nothing yet starts from what the key of the previous shape counts (see {@link
 * #previousKey}), as if counted at the end of that window's current bucket, so that the change is
 * no fresh allowance.
 *
 * @param rule the rule's name
 * @param bucketMicros the length of a bucket, in microseconds (at least 1000)
 * @param span past buckets counted besides the newest
 * @param limit the most permits the window admits
 * @param previous the shape of the rule's previous version, whose counts a new key starts from;
 *     null for none
 */
public record SharedWindow(String rule, long bucketMicros, int span, long limit, SharedWindow previous) {

    public SharedWindow {
        Objects.requireNonNull(rule, "rule");
        if (bucketMicros < 1000 || span < 0 || limit < 1) {
            throw new IllegalArgumentException(
                    "invalid shared window: bucket " + bucketMicros + " us, span " + span + ", limit " + limit);
        }
        if (previous != null && previous.previous != null) {
            previous = new SharedWindow(previous.rule, previous.bucketMicros, previous.span, previous.limit, null);
        }
    }

    /** A window that goes on from no previous version. */
    public SharedWindow(String rule, long bucketMicros, int span, long limit) {
        this(rule, bucketMicros, span, limit, null);
    }

    /**
     * The shared window of a rule of {@code limit} per {@code window}. A store counts in whole
     * microseconds (Redis's clock): a bucket that is no whole number of them (100 ms in 64 buckets,
     * 1562.5 us) is rounded up, so that the shared window never counts a permit for less long than
     * the rule's window.
     */
    public static SharedWindow of(String rule, WindowSpec window, long limit) {
        long bucketMicros = (window.bucketNanos() + 999) / 1000;
        int span = window.buckets() - (window.mode() == WindowMode.STRICT ? 0 : 1);
        return new SharedWindow(rule, bucketMicros, span, limit);
    }

    /** This window, going on from the window {@code previous} of the rule's previous version. */
    public SharedWindow after(SharedWindow previous) {
        return new SharedWindow(rule, bucketMicros, span, limit, Objects.requireNonNull(previous, "previous"));
    }

    /** Whether the two windows count alike (the same bucket length and span), whatever their limits. */
    public boolean sameShape(SharedWindow other) {
        return bucketMicros == other.bucketMicros && span == other.span;
    }

    /**
     * The end of every key of this window: {@code :<rule>:<bucket ms>x<span>}, so that a key never
     * meets counts of another shape. A bucket that is no whole number of milliseconds is written
     * with its microseconds ({@code 1.5x100}): two windows whose buckets differ by less than a
     * millisecond number their buckets differently, and one would read the other's newest bucket as
     * far in the past (a fresh window) or far in the future (its counts held for months).
     */
    public String keySuffix() {
        long millis = bucketMicros / 1000;
        int micros = (int) (bucketMicros % 1000);
        String length = Long.toString(millis);
        if (micros != 0) {
            String fraction = Integer.toString(1000 + micros).substring(1); // three digits
            length += "." + fraction.replaceFirst("0+$", "");
        }
        return ":" + rule + ":" + length + "x" + span;
    }

    /**
     * The key in the {@link #previous} window of what {@code key} (a key of this window, ending
     * in its {@link #keySuffix}) counts; null without a previous window.
     */
    public String previousKey(String key) {
        String suffix = keySuffix();
        if (previous == null || !key.endsWith(suffix)) {
            return null;
        }
        return key.substring(0, key.length() - suffix.length()) + previous.keySuffix();
    }

    /** How long a key must outlive its last write: the window and one bucket more. */
    public long ttlMillis() {
        return Math.max(1, (span + 2) * bucketMicros / 1000);
    }
}
