package dev.leapgate;

import dev.leapgate.counter.LeapCounter;
import dev.leapgate.counter.WindowSpec;
import dev.leapgate.metrics.ResourceMetrics;
import dev.leapgate.rule.FlowRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Limits one thing in code, outside HTTP: a rate limit (permits per window), a concurrency limit
 * (permits held at once), or both, exact under any concurrency. A convenience over {@link
 * Leapgate} with rules named {@code rate} and {@code concurrency} that apply to every call.
 *
 * <pre>{@code
 * Limiter exports = Limiter.builder("report-export")
 *         .rate(100, WindowSpec.of(Duration.ofMinutes(1)))
 *         .concurrency(20)
 *         .build();
 * }</pre>
 *
 * <p>Concurrency: as {@link Leapgate}.
 */
public final class Limiter {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final String name;
    private final String path;
    private final Leapgate gate;

    private Limiter(String name, Leapgate gate) {
        this.name = name;
        this.path = "/" + name;
        this.gate = gate;
    }

    /**
     * Starts a limiter. Its statistics are named {@code "/" + name}.
     *
     * @param name 1 to 64 letters, digits, {@code .}, {@code -} or {@code _}
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** The statistics of the limited thing. */
    public ResourceMetrics metrics() {
        return gate.metrics().iterator().next();
    }

    /** Asks to enter with one permit. */
    public Decision tryEnter() {
        return tryEnter(1);
    }

    /**
     * Asks to enter with {@code permits} permits; a request for more permits than a limit is
     * rejected by it.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1
     */
    public Decision tryEnter(int permits) {
        return gate.enter("CALL", path, Origin.unknown(), permits);
    }

    @Override
    public String toString() {
        return "Limiter[" + name + ", " + gate.rules().rules() + "]";
    }

    /** Builds a {@link Limiter}; at least one limit is required. */
    public static final class Builder {
        private final String name;
        private Clock clock = Clock.system();
        private FlowRule rate;
        private FlowRule concurrency;

        private Builder(String name) {
            Objects.requireNonNull(name, "name");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "limiter name must be 1 to 64 letters, digits, '.', '-' or '_', was '" + name + "'");
            }
            this.name = name;
        }

        /** At most {@code limit} permits per {@code window}. */
        public Builder rate(long limit, WindowSpec window) {
            Objects.requireNonNull(window, "window");
            if (rate != null) {
                throw new IllegalStateException(
                        "rate limit was already set to " + rate.limit() + " per " + rate.window());
            }
            long max = LeapCounter.maxLimit(window);
            if (limit < 1 || limit > max) {
                throw new IllegalArgumentException(
                        "rate limit must be between 1 and " + max + " for window " + window + ", was " + limit);
            }
            this.rate = FlowRule.builder("rate")
                    .match("/" + name)
                    .limit(limit, window)
                    .build();
            return this;
        }

        /** At most {@code limit} permits held at once. */
        public Builder concurrency(long limit) {
            if (concurrency != null) {
                throw new IllegalStateException("concurrency limit was already set to " + concurrency.limit());
            }
            if (limit < 1) {
                throw new IllegalArgumentException("concurrency limit must be at least 1, was " + limit);
            }
            this.concurrency = FlowRule.builder("concurrency")
                    .match("/" + name)
                    .inFlight(limit)
                    .build();
            return this;
        }

        /** The clock to read; {@link Clock#system()} by default. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** @throws IllegalStateException if no limit was set */
        public Limiter build() {
            List<FlowRule> rules = new ArrayList<>();
            // The concurrency limit first: a slot is cheaper to give back than a window count.
            if (concurrency != null) {
                rules.add(concurrency);
            }
            if (rate != null) {
                rules.add(rate);
            }
            if (rules.isEmpty()) {
                throw new IllegalStateException("limiter '" + name + "' needs a rate or a concurrency limit");
            }
            Leapgate gate = Leapgate.builder()
                    .rules(new RuleSet(rules, OriginList.empty(), OriginList.empty()))
                    .clock(clock)
                    .build();
            return new Limiter(name, gate);
        }
    }
}
