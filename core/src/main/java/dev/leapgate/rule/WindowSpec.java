package dev.leapgate.rule;

import dev.leapgate.internal.DurationText;
import java.time.Duration;
import java.util.Objects;

/**
 * The shape of a time window: its length {@code W}, the number {@code n} of buckets it is cut
 * into (each {@code b = W / n} long), and the {@link WindowMode mode} that decides which buckets
 * count.
 *
 * <h2>The exact guarantee</h2>
 *
 * A request admitted at time {@code s} falls into the bucket {@code [k·b, (k+1)·b)} that contains
 * {@code s}, and keeps counting against the limit for as long as that bucket is part of the
 * window:
 *
 * <ul>
 *   <li>{@link WindowMode#SLIDING}: until {@code (k + n)·b}, that is between {@code W - b} and
 *       {@code W} after {@code s}. Hence <em>any span of length {@code W - b} holds at most the
 *       limit</em>; a span of length {@code W} may hold up to about twice the limit (the limit at
 *       the end of one bucket, and the limit again when that bucket has left the window, just
 *       under {@code W} later).
 *   <li>{@link WindowMode#STRICT}: until {@code (k + n + 1)·b}, that is between {@code W} and
 *       {@code W + b} after {@code s}. Hence <em>no span of length {@code W} ever holds more than
 *       the limit</em>. The price is that the window is conservative by up to one bucket: under
 *       constant saturation the admitted rate is about {@code limit · n / (n + 1)} per {@code W}.
 * </ul>
 *
 * <p>More buckets tighten both modes at a cost of 8 bytes of admission state per bucket.
 *
 * <p>Limits on the values: the length is between 100 ms and 24 h, the bucket count between 1 and
 * 1000, each bucket at least 1 ms long, and the length an exact multiple of the bucket count in
 * nanoseconds (so that {@code n·b = W} holds exactly and the guarantee above is exact).
 *
 * @param length the window length {@code W}
 * @param buckets the number of buckets {@code n}
 * @param mode which buckets count, {@link WindowMode#STRICT} by default
 */
public record WindowSpec(Duration length, int buckets, WindowMode mode) {

    /** The shortest window allowed. */
    public static final Duration MIN_LENGTH = Duration.ofMillis(100);
    /** The longest window allowed. */
    public static final Duration MAX_LENGTH = Duration.ofHours(24);
    /** The most buckets a window may have. */
    public static final int MAX_BUCKETS = 1000;
    /** The shortest bucket allowed. */
    public static final Duration MIN_BUCKET_LENGTH = Duration.ofMillis(1);
    /** The bucket count used when none is given. */
    public static final int DEFAULT_BUCKETS = 10;

    /** Validates every component; the messages name the setting, the value and what is allowed. */
    public WindowSpec {
        Objects.requireNonNull(length, "length");
        Objects.requireNonNull(mode, "mode");
        if (length.compareTo(MIN_LENGTH) < 0 || length.compareTo(MAX_LENGTH) > 0) {
            throw new IllegalArgumentException(
                    "window must be between 100ms and 24h, was " + DurationText.format(length));
        }
        if (buckets < 1 || buckets > MAX_BUCKETS) {
            throw new IllegalArgumentException("buckets must be between 1 and " + MAX_BUCKETS + ", was " + buckets);
        }
        long lengthNanos = length.toNanos();
        if (lengthNanos % buckets != 0) {
            throw new IllegalArgumentException("window " + DurationText.format(length)
                    + " cannot be cut into " + buckets
                    + " buckets of equal whole-nanosecond length; choose a bucket count that divides it");
        }
        if (lengthNanos / buckets < MIN_BUCKET_LENGTH.toNanos()) {
            throw new IllegalArgumentException("buckets must be at least 1ms long, but window "
                    + DurationText.format(length) + " with " + buckets + " buckets gives "
                    + DurationText.format(Duration.ofNanos(lengthNanos / buckets))
                    + "; use at most " + (lengthNanos / MIN_BUCKET_LENGTH.toNanos()) + " buckets");
        }
    }

    /** A {@link WindowMode#STRICT} window of {@link #DEFAULT_BUCKETS} buckets. */
    public static WindowSpec of(Duration length) {
        return new WindowSpec(length, DEFAULT_BUCKETS, WindowMode.STRICT);
    }

    /** A {@link WindowMode#STRICT} window of {@code buckets} buckets. */
    public static WindowSpec of(Duration length, int buckets) {
        return new WindowSpec(length, buckets, WindowMode.STRICT);
    }

    /** The window length {@code W} in nanoseconds. */
    public long lengthNanos() {
        return length.toNanos();
    }

    /** The bucket length {@code b = W / n} in nanoseconds. */
    public long bucketNanos() {
        return length.toNanos() / buckets;
    }

    /**
     * The span within which at most the limit is ever admitted: {@code W} for a strict window,
     * {@code W - b} for a sliding one.
     */
    public Duration guaranteedSpan() {
        return mode == WindowMode.STRICT ? length : length.minusNanos(bucketNanos());
    }

    @Override
    public String toString() {
        return DurationText.format(length) + " in " + buckets + " buckets, "
                + mode.name().toLowerCase();
    }
}
