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
 * @param rule the rule's name
 * @param bucketMicros the length of a bucket, in microseconds (at least 1000)
 * @param span past buckets counted besides the newest
 * @param limit the most permits the window admits
 */
public record SharedWindow(String rule, long bucketMicros, int span, long limit) {

    public SharedWindow {
        Objects.requireNonNull(rule, "rule");
        if (bucketMicros < 1000 || span < 0 || limit < 1) {
            throw new IllegalArgumentException(
                    "invalid shared window: bucket " + bucketMicros + " us, span " + span + ", limit " + limit);
        }
    }

    /** The shared window of a rule of {@code limit} per {@code window}. */
    public static SharedWindow of(String rule, WindowSpec window, long limit) {
        long bucketMicros = window.bucketNanos() / 1000;
        int span = window.buckets() - (window.mode() == WindowMode.STRICT ? 0 : 1);
        return new SharedWindow(rule, bucketMicros, span, limit);
    }

    /** How long a key must outlive its last write: the window and one bucket more. */
    public long ttlMillis() {
        return Math.max(1, (span + 2) * bucketMicros / 1000);
    }
}
