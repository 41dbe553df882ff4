package dev.leapgate.internal;

import java.time.Duration;

/**
 * Renders durations the way operators write them in configuration ({@code 100ms}, {@code 10s},
 * {@code 1m}, {@code 24h}), rather than {@link Duration#toString()}'s {@code PT0.1S}.
 */
public final class DurationText {

    private DurationText() {}

    /** The largest unit that divides {@code d} exactly: {@code 1500ms}, {@code 10s}, {@code 24h}. */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.isNegative()) {
            return "-" + format(d.negated());
        }
        long nanos;
        try {
            nanos = d.toNanos();
        } catch (ArithmeticException tooLong) {
            return d.toHours() + "h";
        }
        long[] units = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
        String[] names = {"h", "m", "s", "ms", "us"};
        for (int i = 0; i < units.length; i++) {
            if (nanos % units[i] == 0) {
                return nanos / units[i] + names[i];
            }
        }
        return nanos + "ns";
    }
}
