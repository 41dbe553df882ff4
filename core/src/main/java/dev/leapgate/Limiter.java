package dev.leapgate;

import dev.leapgate.counter.InFlightCounter;
import dev.leapgate.counter.LeapCounter;
import dev.leapgate.counter.RateCounter;
import dev.leapgate.counter.WindowSpec;
import dev.leapgate.metrics.ResourceMetrics;
import java.time.Duration;
import java.util.Objects;

/**
 * Limits one resource: a rate limit (permits per window), a concurrency limit (requests in
 * flight), or both, with the resource's statistics. Both limits are exact under any concurrency.
 *
 * <pre>{@code
 * Limiter exports = Limiter.builder("POST /reports/export")
 *         .rate(100, WindowSpec.of(Duration.ofMinutes(1)))
 *         .concurrency(20)
 *         .build();
 * }</pre>
 *
 * <p>Concurrency: immutable configuration over thread-safe counters; see {@link LeapCounter} and
 * {@link InFlightCounter}. A rejected request holds nothing: a concurrency slot taken before the
 * rate limit rejects is given back at once.
 */
public final class Limiter {

    private final String resource;
    private final Clock clock;
    private final RateCounter rate; // null when there is no rate limit
    private final InFlightCounter concurrency; // null when there is no concurrency limit
    private final ResourceMetrics metrics;
    private final Entry.Exit exit = this::exit;

    private Limiter(Builder builder) {
        this.resource = builder.resource;
        this.clock = builder.clock;
        this.rate =
                builder.window == null ? null : new LeapCounter(builder.window, builder.rateLimit, clock.nanoTime());
        this.concurrency = builder.concurrencyLimit == 0 ? null : new InFlightCounter(builder.concurrencyLimit);
        this.metrics = new ResourceMetrics(resource);
    }

    /** Starts a limiter for the named resource. */
    public static Builder builder(String resource) {
        return new Builder(resource);
    }

    public String resource() {
        return resource;
    }

    /** This resource's statistics. */
    public ResourceMetrics metrics() {
        return metrics;
    }

    /** Asks to enter with one permit. */
    public Decision tryEnter() {
        return tryEnter(1);
    }

    /**
     * Asks to enter with {@code permits} permits.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1 or above a limit (it could
     *     never be admitted)
     */
    public Decision tryEnter(int permits) {
        checkPermits(permits);
        long now = clock.nanoTime();
        if (concurrency != null && !concurrency.tryAcquire(permits)) {
            metrics.onBlock(now);
            long free = Math.max(0, concurrency.limit() - concurrency.inFlight());
            return new Rejection(resource + " concurrency", concurrency.limit(), free, Duration.ZERO);
        }
        long limit;
        long remaining;
        if (rate != null) {
            long ticket = rate.tryAcquire(now, permits);
            if (ticket == RateCounter.REJECTED) {
                if (concurrency != null) {
                    concurrency.release(permits);
                }
                metrics.onBlock(now);
                long left = Math.max(0, rate.limit() - rate.used(now));
                return new Rejection(
                        resource + " rate",
                        rate.limit(),
                        left,
                        Duration.ofNanos(rate.nanosUntilAvailable(now, permits)));
            }
            limit = rate.limit();
            remaining = rate.remainingAfter(ticket);
        } else {
            limit = concurrency.limit();
            remaining = concurrency.limit() - concurrency.inFlight();
        }
        metrics.onPass(now, false);
        return new Entry(exit, clock, now, permits, limit, Math.max(0, remaining));
    }

    private void exit(Entry entry, long nowNanos, boolean failed) {
        if (concurrency != null) {
            concurrency.release(entry.permits());
        }
        metrics.onComplete(nowNanos, nowNanos - entry.startNanos(), failed);
    }

    /** Requests in flight under the concurrency limit (0 without one). */
    public long inFlight() {
        return concurrency == null ? 0 : concurrency.inFlight();
    }

    private void checkPermits(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        if (rate != null && permits > rate.limit()) {
            throw new IllegalArgumentException("permits must not exceed the rate limit " + rate.limit() + " of '"
                    + resource + "', was " + permits);
        }
        if (concurrency != null && permits > concurrency.limit()) {
            throw new IllegalArgumentException("permits must not exceed the concurrency limit " + concurrency.limit()
                    + " of '" + resource + "', was " + permits);
        }
    }

    @Override
    public String toString() {
        return "Limiter[" + resource + (rate == null ? "" : ", " + rate)
                + (concurrency == null ? "" : ", " + concurrency) + "]";
    }

    /** Builds a {@link Limiter}; at least one limit is required. */
    public static final class Builder {
        private final String resource;
        private Clock clock = Clock.system();
        private WindowSpec window;
        private long rateLimit;
        private long concurrencyLimit;

        private Builder(String resource) {
            Objects.requireNonNull(resource, "resource");
            if (resource.isBlank()) {
                throw new IllegalArgumentException("resource must not be blank");
            }
            this.resource = resource;
        }

        /** At most {@code limit} permits per {@code window}. */
        public Builder rate(long limit, WindowSpec window) {
            Objects.requireNonNull(window, "window");
            if (this.window != null) {
                throw new IllegalStateException("rate limit was already set to " + rateLimit + " per " + this.window);
            }
            long max = LeapCounter.maxLimit(window);
            if (limit < 1 || limit > max) {
                throw new IllegalArgumentException(
                        "rate limit must be between 1 and " + max + " for window " + window + ", was " + limit);
            }
            this.rateLimit = limit;
            this.window = window;
            return this;
        }

        /** At most {@code limit} permits held at once. */
        public Builder concurrency(long limit) {
            if (concurrencyLimit != 0) {
                throw new IllegalStateException("concurrency limit was already set to " + concurrencyLimit);
            }
            if (limit < 1) {
                throw new IllegalArgumentException("concurrency limit must be at least 1, was " + limit);
            }
            this.concurrencyLimit = limit;
            return this;
        }

        /** The clock to read; {@link Clock#system()} by default. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** @throws IllegalStateException if no limit was set */
        public Limiter build() {
            if (window == null && concurrencyLimit == 0) {
                throw new IllegalStateException("limiter '" + resource + "' needs a rate or a concurrency limit");
            }
            return new Limiter(this);
        }
    }
}
