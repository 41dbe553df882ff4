package dev.leapgate.rule;

/**
 * How a rate window counts the bucket that straddles its start. See {@link WindowSpec} for the
 * exact guarantee of each mode.
 */
public enum WindowMode {
    /**
     * Counts the {@code n} most recent buckets <em>and</em> the one that straddles the window's
     * start. No span of length {@code W} ever holds more than the limit; steady throughput under
     * saturation is about {@code limit * n / (n + 1)} per {@code W}. The default.
     */
    STRICT,

    /**
     * Counts the {@code n} most recent buckets (the current one included), as Sentinel's leap
     * array does. Any span of length {@code W - W/n} holds at most the limit, but a span of length
     * {@code W} can hold up to about twice the limit; {@code n = 1} is a fixed window.
     */
    SLIDING
}
