package dev.leapgate.internal;

import java.math.BigInteger;
import java.time.Duration;

/**
 * Renders durations the way operators write them in configuration ({@code 100ms}, {@code 10s},
 * {@code 1m}, {@code 24h}), rather than {@link Duration#toString()}'s {@code PT0.1S}.
 */
public final class DurationText {

    private DurationText() {}

    private static final long[] UNITS = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
    private static final String[] NAMES = {"h", "m", "s", "ms", "us"};

    /**
     * The largest unit that divides {@code d} exactly: {@code 1500ms}, {@code 10s}, {@code 24h}; any
     * duration, those beyond what a {@code long} of nanoseconds holds (about 292 years) and the
     * most negative one included, shown as the value it is.
     */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        long nanos;
        try {
            nanos = d.toNanos();
        } catch (ArithmeticException tooLong) {
            return formatExactly(d);
        }
        if (nanos == Long.MIN_VALUE) {
            return formatExactly(d);
        }
        String sign = nanos < 0 ? "-" : "";
        nanos = Math.abs(nanos);
        for (int i = 0; i < UNITS.length; i++) {
            if (nanos % UNITS[i] == 0) {
                return sign + nanos / UNITS[i] + NAMES[i];
            }
        }
        return sign + nanos + "ns";
    }

    /** {@link #format} of a duration whose nanoseconds, or their negation, do not fit a {@code long}. */
    private static String formatExactly(Duration d) {
        BigInteger nanos = BigInteger.valueOf(d.getSeconds())
                .multiply(BigInteger.valueOf(1_000_000_000L))
                .add(BigInteger.valueOf(d.getNano()));
        String sign = nanos.signum() < 0 ? "-" : "";
        nanos = nanos.abs();
        for (int i = 0; i < UNITS.length; i++) {
            BigInteger[] quotient = nanos.divideAndRemainder(BigInteger.valueOf(UNITS[i]));
            if (quotient[1].signum() == 0) {
                return sign + quotient[0] + NAMES[i];
            }
        }
        return sign + nanos + "ns";
    }
}
