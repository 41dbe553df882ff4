package dev.leapgate;

import dev.leapgate.internal.Admission;
import dev.leapgate.internal.Limit;
import dev.leapgate.internal.ResourceRecorder;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.stats.ResourceStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Limits one thing in code, outside HTTP: a rate limit (permits per window), a concurrency limit
 * (permits held at once), or both, for everyone together or for each origin (a user, an API key, a
 * client address) separately; exact under any concurrency.
 *
 * <pre>{@code
 * Limiter exports = Limiter.builder("report-export")
 *         .rate(100, WindowSpec.of(Duration.ofMinutes(1)))   // 100 per minute
 *         .concurrency(20)                                    // and at most 20 at once
 *         .build();
 *
 * if (exports.tryEnter() instanceof Entry entry) {
 *     return entry.call(() -> export(request));   // closes the entry, counts a failure
 * }
 *
 * Limiter logins = Limiter.builder("login").rate(5, WindowSpec.of(Duration.ofMinutes(1))).perOrigin().build();
 * if (!logins.tryAcquire(Origin.id(userName))) { ... }      // a rate alone needs no entry
 * }</pre>
 *
 * <p>{@link #tryEnter()} admits with an {@link Entry} to close when the work is done (it holds the
 * concurrency permits and measures the response time); {@link #tryAcquire()} admits without one,
 * for a limiter with a rate alone: with the default on-excess (reject) the cheapest call, which
 * allocates nothing.
 *
 * <p>Both return at once unless the rate's on-excess makes a request wait ({@link
 * OnExcess#pace}, {@link OnExcess#warmUpPace}, {@link OnExcess#borrow}): then a call may block
 * its own thread for its turn, at most the on-excess's {@code maxQueue} or {@code maxWait}, through
 * the {@link Builder#sleeper Sleeper}. A thread interrupted while it waits is rejected with reason
 * {@code "interrupted"} ({@code tryAcquire} returns {@code false}) and keeps its interrupt status;
 * the concurrency slot and the window count it took are given back, but not a paced turn: a
 * reservation moves the schedule of every request after it, so those keep their place.
 *
 * <p>Concurrency: thread-safe. Limits everyone shares are lock-free (a decision is a
 * compare-and-swap); a limiter that counts per origin keeps its origins in a table whose segments
 * take a short read lock per decision (a write lock to add or evict an origin), and a per-origin
 * window may lock itself for a few stores while it moves on to a new bucket. No lock is held while a
 * request waits for its turn. See {@link Entry} for closing from any thread.
 */
public final class Limiter {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final String name;
    private final Limit[] limits;
    private final Admission admission;
    private final ResourceRecorder recorder;
    private final boolean perOrigin;
    /** The one rate limit of a limiter without a concurrency limit or a wait: the fast path. */
    private final Limit onlyRate;
    /** Whether {@link #limits} is one limit that decides at once, for every origin: the fast path. */
    private final boolean atOnce;

    private Limiter(Builder b, Limit[] limits, ResourceRecorder recorder) {
        this.name = b.name;
        this.limits = limits;
        this.admission = new Admission(b.clock(), b.sleeper != null ? b.sleeper : Sleeper.system());
        this.recorder = recorder;
        this.perOrigin = b.perOrigin;
        this.onlyRate = b.concurrency == null
                        && (b.onExcess == null || b.onExcess.kind() == OnExcess.Kind.REJECT)
                        && limits.length == 1
                ? limits[0]
                : null;
        // A limiter's rules have scope all or per-origin: they include every origin.
        this.atOnce = limits.length == 1 && limits[0].decidesAtOnce();
    }

    /**
     * Starts a limiter.
     *
     * @param name 1 to 64 letters, digits, {@code .}, {@code -} or {@code _}; the name of its
     *     statistics
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    public String name() {
        return name;
    }

    /** The statistics of the limited thing. */
    public ResourceStats stats() {
        return recorder;
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
     * @throws IllegalStateException if the limiter counts per origin: use {@link #tryEnter(Origin,
     *     int)}
     */
    public Decision tryEnter(int permits) {
        requireShared();
        return decide(Origin.unknown(), checked(permits));
    }

    /** Asks to enter for {@code origin} with one permit. */
    public Decision tryEnter(Origin origin) {
        return tryEnter(origin, 1);
    }

    /**
     * Asks to enter for {@code origin} with {@code permits} permits. For a limiter that does not
     * count per origin, the origin changes nothing.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1
     */
    public Decision tryEnter(Origin origin, int permits) {
        Objects.requireNonNull(origin, "origin");
        return decide(origin, checked(permits));
    }

    /**
     * Takes one permit of the rate limit without entering: nothing to close, nothing held, no
     * response time. For a limiter with a rate and no concurrency limit. May wait for its turn with
     * an on-excess that makes requests wait (see the class comment).
     *
     * @return whether the permit was taken; {@code false} also for a request of more permits than
     *     the limit, and for a thread interrupted while it waited (its interrupt status kept)
     * @throws IllegalStateException if the limiter has a concurrency limit (whose permits must be
     *     given back by closing an entry: use {@link #tryEnter()}), or counts per origin (use
     *     {@link #tryAcquire(Origin)})
     */
    public boolean tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * As {@link #tryAcquire()}, for {@code permits} permits.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1
     */
    public boolean tryAcquire(int permits) {
        requireShared();
        return acquire(Origin.unknown(), checked(permits));
    }

    /**
     * As {@link #tryAcquire()}, for {@code origin}; for a limiter that does not count per origin,
     * the origin changes nothing.
     *
     * @throws IllegalStateException if the limiter has a concurrency limit
     */
    public boolean tryAcquire(Origin origin) {
        return tryAcquire(origin, 1);
    }

    /**
     * As {@link #tryAcquire(Origin)}, for {@code permits} permits.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1
     */
    public boolean tryAcquire(Origin origin, int permits) {
        Objects.requireNonNull(origin, "origin");
        return acquire(origin, checked(permits));
    }

    private Decision decide(Origin origin, int permits) {
        return atOnce ? admission.decideAtOnce(limits, origin, permits) : admission.decide(limits, origin, permits);
    }

    private boolean acquire(Origin origin, int permits) {
        if (onlyRate != null) {
            return admission.acquire(onlyRate, origin, permits);
        }
        if (hasConcurrency()) {
            throw new IllegalStateException("limiter '" + name
                    + "' has a concurrency limit, whose permits are given back when an entry is closed:"
                    + " use tryEnter() and close the entry");
        }
        // A paced or borrowing rate: the general path, which may wait.
        return admission.acquireWaiting(limits, origin, permits);
    }

    private boolean hasConcurrency() {
        for (Limit limit : limits) {
            if (limit.rule().isInFlight()) {
                return true;
            }
        }
        return false;
    }

    private void requireShared() {
        if (perOrigin) {
            throw originNeeded();
        }
    }

    private IllegalStateException originNeeded() {
        return new IllegalStateException(
                "limiter '" + name + "' counts per origin: pass the origin, tryEnter(origin) or tryAcquire(origin)");
    }

    private static int checked(int permits) {
        if (permits < 1) {
            throw tooFewPermits(permits);
        }
        return permits;
    }

    private static IllegalArgumentException tooFewPermits(int permits) {
        return new IllegalArgumentException("permits must be at least 1, was " + permits);
    }

    @Override
    public String toString() {
        List<FlowRule> rules = new ArrayList<>();
        for (Limit limit : limits) {
            rules.add(limit.rule());
        }
        return "Limiter[" + name + ", " + rules + "]";
    }

    /** Builds a {@link Limiter}; at least one limit is required. */
    public static final class Builder {
        private final String name;
        private Clock clock; // null: Clock.system()
        private Sleeper sleeper; // null: Sleeper.system()
        private Long rateLimit;
        private WindowSpec window;
        private Long concurrency;
        private OnExcess onExcess; // null: reject
        private boolean perOrigin;
        private int maxOrigins = FlowRule.DEFAULT_MAX_ORIGINS;

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
            if (rateLimit != null) {
                throw new IllegalStateException("rate limit was already set to " + rateLimit + " per " + this.window);
            }
            this.rateLimit = limit;
            this.window = window;
            return this;
        }

        /** At most {@code limit} permits held at once. */
        public Builder concurrency(long limit) {
            if (concurrency != null) {
                throw new IllegalStateException("concurrency limit was already set to " + concurrency);
            }
            this.concurrency = limit;
            return this;
        }

        /**
         * What the rate limit does with excess: reject (the default), pace, warm up or borrow.
         *
         * @throws IllegalStateException if it was already set
         */
        public Builder onExcess(OnExcess onExcess) {
            Objects.requireNonNull(onExcess, "onExcess");
            if (this.onExcess != null) {
                throw new IllegalStateException("on-excess was already set to " + this.onExcess);
            }
            this.onExcess = onExcess;
            return this;
        }

        /**
         * Each origin gets its own limits, kept for at most {@link FlowRule#DEFAULT_MAX_ORIGINS}
         * origins at once.
         *
         * @throws IllegalStateException if per-origin counting was already set
         */
        public Builder perOrigin() {
            return perOrigin(FlowRule.DEFAULT_MAX_ORIGINS);
        }

        /**
         * Each origin gets its own limits, kept for at most {@code maxOrigins} origins at once.
         *
         * @throws IllegalArgumentException if {@code maxOrigins} is not between 1 and {@link
         *     FlowRule#MAX_ORIGINS_ALLOWED}
         * @throws IllegalStateException if per-origin counting was already set
         */
        public Builder perOrigin(int maxOrigins) {
            if (perOrigin) {
                throw new IllegalStateException("per-origin was already set, with max origins " + this.maxOrigins);
            }
            if (maxOrigins < 1 || maxOrigins > FlowRule.MAX_ORIGINS_ALLOWED) {
                throw new IllegalArgumentException("maxOrigins must be between 1 and " + FlowRule.MAX_ORIGINS_ALLOWED
                        + ", was " + maxOrigins + " (limiter '" + name + "')");
            }
            this.perOrigin = true;
            this.maxOrigins = maxOrigins;
            return this;
        }

        /**
         * The clock to read; {@link Clock#system()} by default.
         *
         * @throws IllegalStateException if it was already set
         */
        public Builder clock(Clock clock) {
            Objects.requireNonNull(clock, "clock");
            if (this.clock != null) {
                throw new IllegalStateException("clock was already set to " + this.clock);
            }
            this.clock = clock;
            return this;
        }

        /**
         * How paced and borrowing calls wait; {@link Sleeper#system()} by default.
         *
         * @throws IllegalStateException if it was already set
         */
        public Builder sleeper(Sleeper sleeper) {
            Objects.requireNonNull(sleeper, "sleeper");
            if (this.sleeper != null) {
                throw new IllegalStateException("sleeper was already set to " + this.sleeper);
            }
            this.sleeper = sleeper;
            return this;
        }

        private Clock clock() {
            return clock != null ? clock : Clock.system();
        }

        /**
         * @throws IllegalStateException if no limit was set, or an {@code onExcess} other than
         *     reject was set without a rate limit, which it applies to
         * @throws IllegalArgumentException for a limit out of range, with the rule's own message
         */
        public Limiter build() {
            if (rateLimit == null && concurrency == null) {
                throw new IllegalStateException("limiter '" + name + "' needs a rate or a concurrency limit");
            }
            OnExcess onExcess = this.onExcess != null ? this.onExcess : OnExcess.reject();
            if (rateLimit == null && onExcess.kind() != OnExcess.Kind.REJECT) {
                throw new IllegalStateException("limiter '" + name + "': on-excess " + OnExcess.name(onExcess.kind())
                        + " applies to a rate limit; set one with rate(limit, window)");
            }
            Scope scope = perOrigin ? Scope.perOrigin() : Scope.all();
            List<FlowRule> rules = new ArrayList<>();
            try {
                // The concurrency limit first: a slot is cheaper to give back than a window count.
                if (concurrency != null) {
                    rules.add(FlowRule.builder("concurrency")
                            .inFlight(concurrency)
                            .scope(scope)
                            .maxOrigins(maxOrigins)
                            .build());
                }
                if (rateLimit != null) {
                    rules.add(FlowRule.builder("rate")
                            .limit(rateLimit, window)
                            .onExcess(onExcess)
                            .scope(scope)
                            .maxOrigins(maxOrigins)
                            .build());
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("limiter '" + name + "': " + e.getMessage(), e);
            }
            Clock clock = clock();
            ResourceRecorder recorder = new ResourceRecorder(name, clock);
            long now = clock.nanoTime();
            return new Limiter(this, Limit.create(rules, recorder, now), recorder);
        }
    }
}
