package dev.leapgate.rule;

import dev.leapgate.internal.DurationText;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What a request-rate rule does with a request that exceeds it.
 *
 * <ul>
 *   <li>{@link Kind#REJECT} (the default): reject at once.
 *   <li>{@link Kind#PACE}: space admissions evenly, one every {@code W / N}, and let a request wait
 *       on its own thread up to {@code maxQueue} for its turn (a leaky bucket); reject it if its turn
 *       is further away.
 *   <li>{@link Kind#WARM_UP}: after an idle period start at {@code limit / coldFactor} and climb to
 *       the full limit over {@code warmUp}, as Guava's {@code SmoothWarmingUp} does; reject what
 *       exceeds the current rate.
 *   <li>{@link Kind#WARM_UP_PACE}: warm up, and pace within the current rate with {@code maxQueue}.
 *   <li>{@link Kind#BORROW}: a request the window would reject may borrow from the next bucket
 *       and wait until it starts, if that is at most {@code maxWait} away (counted as an occupied
 *       pass).
 * </ul>
 *
 * Settings a kind does not use are {@code null} / 0; the factories fill in the defaults.
 *
 * @param kind the behaviour
 * @param maxQueue longest a request may wait for its turn ({@link Kind#PACE}, {@link
 *     Kind#WARM_UP_PACE})
 * @param coldFactor how much slower than the limit a cold rule starts; greater than 1 ({@link
 *     Kind#WARM_UP}, {@link Kind#WARM_UP_PACE})
 * @param warmUp how long a cold rule takes to reach the full limit under load
 * @param maxWait longest a borrowing request may wait for the next bucket ({@link Kind#BORROW})
 */
public record OnExcess(Kind kind, Duration maxQueue, double coldFactor, Duration warmUp, Duration maxWait) {

    /** The behaviours. */
    public enum Kind {
        REJECT,
        PACE,
        WARM_UP,
        WARM_UP_PACE,
        BORROW
    }

    /**
     * The settings of an on-excess, each used by some kinds only: the one place that says which,
     * for every configuration surface (rules files, init-params, annotations).
     */
    public enum Parameter {
        MAX_QUEUE("max-queue", EnumSet.of(Kind.PACE, Kind.WARM_UP_PACE)),
        COLD_FACTOR("cold-factor", EnumSet.of(Kind.WARM_UP, Kind.WARM_UP_PACE)),
        WARM_UP("warm-up", EnumSet.of(Kind.WARM_UP, Kind.WARM_UP_PACE)),
        MAX_WAIT("max-wait", EnumSet.of(Kind.BORROW));

        private final String key;
        private final Set<Kind> kinds;

        Parameter(String key, Set<Kind> kinds) {
            this.key = key;
            this.kinds = Collections.unmodifiableSet(kinds);
        }

        /** Its name in the configuration: {@code max-queue}, ... */
        public String key() {
            return key;
        }

        /** The kinds that use it. */
        public Set<Kind> kinds() {
            return kinds;
        }

        public boolean appliesTo(Kind kind) {
            return kinds.contains(kind);
        }
    }

    public static final Duration DEFAULT_MAX_QUEUE = Duration.ofMillis(500);
    public static final double DEFAULT_COLD_FACTOR = 3.0;
    public static final Duration DEFAULT_WARM_UP = Duration.ofSeconds(10);
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofMillis(500);
    /** The longest any request may be made to wait. */
    public static final Duration MAX_WAIT_ALLOWED = Duration.ofMinutes(1);

    private static final OnExcess REJECT = new OnExcess(Kind.REJECT, null, 0, null, null);

    public OnExcess {
        Objects.requireNonNull(kind, "kind");
        boolean warms = Parameter.WARM_UP.appliesTo(kind);
        maxQueue = check("max-queue", maxQueue, Parameter.MAX_QUEUE.appliesTo(kind), kind, true);
        maxWait = check("max-wait", maxWait, Parameter.MAX_WAIT.appliesTo(kind), kind, true);
        warmUp = check("warm-up", warmUp, warms, kind, false);
        if (warms) {
            if (!(coldFactor > 1.0) || coldFactor > 100.0 || Double.isNaN(coldFactor)) {
                throw new IllegalArgumentException(
                        "cold-factor must be greater than 1 and at most 100, was " + coldFactor);
            }
        } else if (coldFactor != 0) {
            throw new IllegalArgumentException("cold-factor applies only to warm-up, not to " + name(kind));
        }
    }

    private static Duration check(String setting, Duration value, boolean used, Kind kind, boolean zeroAllowed) {
        if (!used) {
            if (value != null) {
                throw new IllegalArgumentException(setting + " does not apply to on-excess " + name(kind));
            }
            return null;
        }
        Objects.requireNonNull(value, setting);
        boolean tooShort = value.isNegative() || (value.isZero() && !zeroAllowed);
        if (tooShort || value.compareTo(MAX_WAIT_ALLOWED) > 0) {
            throw new IllegalArgumentException(setting
                    + (zeroAllowed ? " must be between 0s and 1m" : " must be longer than 0s and at most 1m")
                    + ", was " + DurationText.format(value));
        }
        return value;
    }

    /**
     * The on-excess of {@code kind} with the settings given: a setting the kind uses that is not
     * given ({@code null}, or 0 for the cold factor) gets its default; one it does not use must not
     * be given.
     *
     * @throws IllegalArgumentException if a setting does not apply to the kind, or is out of range
     */
    public static OnExcess of(Kind kind, Duration maxQueue, double coldFactor, Duration warmUp, Duration maxWait) {
        Objects.requireNonNull(kind, "kind");
        boolean warms = Parameter.WARM_UP.appliesTo(kind);
        return new OnExcess(
                kind,
                maxQueue == null && Parameter.MAX_QUEUE.appliesTo(kind) ? DEFAULT_MAX_QUEUE : maxQueue,
                coldFactor == 0 && warms ? DEFAULT_COLD_FACTOR : coldFactor,
                warmUp == null && warms ? DEFAULT_WARM_UP : warmUp,
                maxWait == null && Parameter.MAX_WAIT.appliesTo(kind) ? DEFAULT_MAX_WAIT : maxWait);
    }

    /** Reject at once. */
    public static OnExcess reject() {
        return REJECT;
    }

    /** Even spacing with a maximum queueing time. */
    public static OnExcess pace(Duration maxQueue) {
        return new OnExcess(Kind.PACE, maxQueue, 0, null, null);
    }

    /** Warm-up from {@code limit / coldFactor} over {@code warmUp}, rejecting the excess. */
    public static OnExcess warmUp(double coldFactor, Duration warmUp) {
        return new OnExcess(Kind.WARM_UP, null, coldFactor, warmUp, null);
    }

    /** Warm-up, pacing the excess with a maximum queueing time. */
    public static OnExcess warmUpPace(double coldFactor, Duration warmUp, Duration maxQueue) {
        return new OnExcess(Kind.WARM_UP_PACE, maxQueue, coldFactor, warmUp, null);
    }

    /** Borrow from the next bucket, waiting at most {@code maxWait}. */
    public static OnExcess borrow(Duration maxWait) {
        return new OnExcess(Kind.BORROW, null, 0, null, maxWait);
    }

    /** The configuration spelling of a kind: {@code reject}, {@code warm-up-pace}, ... */
    public static String name(Kind kind) {
        return kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    @Override
    public String toString() {
        // Durations as the configuration writes them (and WindowSpec shows them): 500ms, not PT0.5S.
        StringBuilder s = new StringBuilder(name(kind));
        if (warmUp != null) {
            s.append(" cold-factor=").append(coldFactor).append(" warm-up=").append(DurationText.format(warmUp));
        }
        if (maxQueue != null) {
            s.append(" max-queue=").append(DurationText.format(maxQueue));
        }
        if (maxWait != null) {
            s.append(" max-wait=").append(DurationText.format(maxWait));
        }
        return s.toString();
    }
}
