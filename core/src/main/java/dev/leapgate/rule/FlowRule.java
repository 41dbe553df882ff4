package dev.leapgate.rule;

import dev.leapgate.http.PathPattern;
import dev.leapgate.internal.RuleName;
import dev.leapgate.internal.counter.LeapCounter;
import dev.leapgate.store.FailurePolicy;
import java.util.Objects;

/**
 * One limit: which requests it applies to, what it counts, how much, over which window, for whom,
 * and what happens to the excess. Immutable; validated on construction, with messages that name
 * the rule.
 *
 * <pre>{@code
 * FlowRule login = FlowRule.builder("login")
 *         .match("POST /login")
 *         .limit(5, WindowSpec.of(Duration.ofMinutes(1)))
 *         .scope(Scope.perOrigin())
 *         .build();
 * FlowRule exports = FlowRule.builder("exports").match("POST /reports/*").inFlight(20).build();
 * }</pre>
 *
 * @param name identifies the rule in configuration, logs, decisions and the {@code RateLimit}
 *     headers: letters, digits, {@code -} and {@code _}, at most 64 characters; not {@code deny}
 *     in any case, the name a denied origin's rejection gives (see {@link dev.leapgate.Rejection#rule()})
 * @param match the HTTP requests the rule applies to (its text is the resource name); {@code null}
 *     for a rule of a {@link dev.leapgate.Limiter}, which applies to every call of the limiter
 * @param limit requests per window, or requests in flight when {@code window} is {@code null}
 * @param window the window counted over; {@code null} for a concurrency (in-flight) limit
 * @param scope everyone together, each origin separately, or one origin
 * @param onExcess what happens to the excess; only {@link OnExcess.Kind#REJECT} for in-flight
 *     limits
 * @param maxOrigins the most origins tracked at once for {@link Scope.Kind#PER_ORIGIN}
 * @param shadow whether the rule only watches: it decides as usual and counts what it would have
 *     rejected ({@code shadowRejected} in its statistics), but never rejects, never makes a
 *     request wait and sends no rate-limit fields; only with {@link OnExcess.Kind#REJECT}
 * @param local whether the rule stays per instance when a shared store is configured (see {@link
 *     #isShareable()}); rules that cannot be shared are per instance whatever this says
 * @param storeOnFailure what the rule does while the shared store cannot decide ({@code
 *     store-on-failure}); {@code null} for the store's setting. Only for a rule that {@link
 *     #isShared() is shared}: a login rule may fail closed while a browsing rule fails open
 */
public record FlowRule(
        String name,
        PathPattern match,
        long limit,
        WindowSpec window,
        Scope scope,
        OnExcess onExcess,
        int maxOrigins,
        boolean shadow,
        boolean local,
        FailurePolicy storeOnFailure) {

    /** Origins tracked per rule unless configured otherwise. */
    public static final int DEFAULT_MAX_ORIGINS = 100_000;
    /** The largest {@code maxOrigins}. */
    public static final int MAX_ORIGINS_ALLOWED = 100_000_000;

    public FlowRule {
        RuleName.checked(Objects.requireNonNull(name, "name"));
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(onExcess, "onExcess");
        String rule = " (rule '" + name + "')";
        if (window == null) {
            if (limit < 1 || limit > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(
                        "in-flight limit must be between 1 and " + Integer.MAX_VALUE + ", was " + limit + rule);
            }
            if (onExcess.kind() != OnExcess.Kind.REJECT) {
                throw new IllegalArgumentException("on-excess " + OnExcess.name(onExcess.kind())
                        + " needs a request rate; an in-flight limit can only reject" + rule);
            }
        } else {
            boolean borrows = onExcess.kind() == OnExcess.Kind.BORROW;
            long max = LeapCounter.maxLimit(window, borrows);
            if (limit < 1 || limit > max) {
                throw new IllegalArgumentException("limit must be between 1 and " + max + " for window " + window
                        + (borrows ? " with on-excess borrow" : "") + ", was " + limit + rule);
            }
            boolean smooth = onExcess.kind() != OnExcess.Kind.REJECT && onExcess.kind() != OnExcess.Kind.BORROW;
            if (smooth && scope.kind() == Scope.Kind.PER_ORIGIN) {
                throw new IllegalArgumentException("on-excess " + OnExcess.name(onExcess.kind())
                        + " is not supported with scope per-origin; use reject or borrow" + rule);
            }
        }
        if (shadow && onExcess.kind() != OnExcess.Kind.REJECT) {
            throw new IllegalArgumentException("mode shadow needs on-excess reject: a shadow rule never makes a"
                    + " request wait, so it cannot " + OnExcess.name(onExcess.kind()) + rule);
        }
        if (maxOrigins < 1 || maxOrigins > MAX_ORIGINS_ALLOWED) {
            throw new IllegalArgumentException(
                    "max-origins must be between 1 and " + MAX_ORIGINS_ALLOWED + ", was " + maxOrigins + rule);
        }
        // The parameters: the fields, which isShared() reads, are not assigned yet.
        if (storeOnFailure != null && (window == null || onExcess.kind() != OnExcess.Kind.REJECT || local)) {
            throw new IllegalArgumentException("store-on-failure " + policyName(storeOnFailure)
                    + " applies only to a rule in the shared store; this rule's "
                    + (window == null
                            ? "in-flight limit is always per instance"
                            : onExcess.kind() != OnExcess.Kind.REJECT
                                    ? "on-excess " + OnExcess.name(onExcess.kind()) + " is always per instance"
                                    : "store is local")
                    + rule);
        }
    }

    /** A failure policy as the configuration writes it: {@code local-share}, {@code open} or {@code closed}. */
    private static String policyName(FailurePolicy policy) {
        return policy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** Starts a rule; see {@link Builder} for the defaults. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Whether this rule limits requests in flight rather than requests per window. */
    public boolean isInFlight() {
        return window == null;
    }

    /**
     * Whether the rule's window can live in a shared store: a rate limit that rejects its excess
     * (shared or per origin, enforced or shadow). In-flight limits, pacing, warm-up and borrowing
     * are always per instance: an in-flight slot is held by a request of this instance, and a
     * schedule or a loan makes a request wait on this instance's clock.
     */
    public boolean isShareable() {
        return window != null && onExcess.kind() == OnExcess.Kind.REJECT;
    }

    /** Whether the rule uses a shared store when one is configured: shareable and not {@link #local}. */
    public boolean isShared() {
        return !local && isShareable();
    }

    /** The resource this HTTP rule protects: its pattern's canonical text; the name without a pattern. */
    public String resource() {
        return match == null ? name : match.toString();
    }

    @Override
    public String toString() {
        return "rule '" + name + "': " + (match == null ? "" : match + ", ")
                + (window == null ? limit + " in flight" : limit + " per " + window) + ", " + scope + ", " + onExcess
                + (scope.kind() == Scope.Kind.PER_ORIGIN ? ", max-origins " + maxOrigins : "")
                + (shadow ? ", shadow" : "") + (local ? ", local" : "")
                + (storeOnFailure == null ? "" : ", store-on-failure " + policyName(storeOnFailure));
    }

    /**
     * Builds a {@link FlowRule}. Required: either a limit per window or an in-flight limit, and a
     * match for a rule of a {@link dev.leapgate.rule.RuleSet} (HTTP requests). Defaults: scope
     * {@link Scope#all()}, on-excess {@link OnExcess#reject()}, max-origins {@link
     * #DEFAULT_MAX_ORIGINS}, enforced (not shadow), shared when a store is configured (not local),
     * and while the store cannot decide, the store's {@code store-on-failure}.
     */
    public static final class Builder {
        private final String name;
        private PathPattern match;
        private long limit;
        private WindowSpec window;
        private boolean inFlight;
        private Scope scope = Scope.all();
        private OnExcess onExcess = OnExcess.reject();
        private int maxOrigins = DEFAULT_MAX_ORIGINS;
        private boolean shadow;
        private boolean local;
        private FailurePolicy storeOnFailure;

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
        }

        /** The requests the rule applies to, e.g. {@code "GET /users/{id}"} or {@code "/api/**"}. */
        public Builder match(String pattern) {
            return match(PathPattern.parse(pattern));
        }

        public Builder match(PathPattern pattern) {
            this.match = Objects.requireNonNull(pattern, "pattern");
            return this;
        }

        /** At most {@code limit} requests per {@code window}. */
        public Builder limit(long limit, WindowSpec window) {
            requireNoLimitYet();
            this.limit = limit;
            this.window = Objects.requireNonNull(window, "window");
            return this;
        }

        /** At most {@code limit} requests in flight at once. */
        public Builder inFlight(long limit) {
            requireNoLimitYet();
            this.limit = limit;
            this.inFlight = true;
            return this;
        }

        public Builder scope(Scope scope) {
            this.scope = Objects.requireNonNull(scope, "scope");
            return this;
        }

        public Builder onExcess(OnExcess onExcess) {
            this.onExcess = Objects.requireNonNull(onExcess, "onExcess");
            return this;
        }

        public Builder maxOrigins(int maxOrigins) {
            this.maxOrigins = maxOrigins;
            return this;
        }

        /**
         * Whether the rule only watches (see {@link FlowRule#shadow}): it counts what it would
         * reject, and rejects nothing. Off by default.
         */
        public Builder shadow(boolean shadow) {
            this.shadow = shadow;
            return this;
        }

        /**
         * Whether the rule stays per instance when a shared store is configured (see {@link
         * FlowRule#local}). Off by default: a shareable rule is shared.
         */
        public Builder local(boolean local) {
            this.local = local;
            return this;
        }

        /**
         * What the rule does while the shared store cannot decide (see {@link
         * FlowRule#storeOnFailure}); {@code null}, the default, for the store's setting. Only for a
         * rule in the shared store: {@link #build} refuses it on another.
         */
        public Builder storeOnFailure(FailurePolicy policy) {
            this.storeOnFailure = policy;
            return this;
        }

        private void requireNoLimitYet() {
            if (window != null || inFlight) {
                throw new IllegalStateException("rule '" + name + "' already has a limit: "
                        + (inFlight ? limit + " in flight" : limit + " per " + window));
            }
        }

        /**
         * @throws IllegalStateException if the limit is missing
         * @throws IllegalArgumentException if a value is out of range, or settings do not go
         *     together (such as a failure policy on a rule that is not shared)
         */
        public FlowRule build() {
            if (window == null && !inFlight) {
                throw new IllegalStateException("rule '" + name + "' needs a limit per window or an in-flight limit");
            }
            return new FlowRule(name, match, limit, window, scope, onExcess, maxOrigins, shadow, local, storeOnFailure);
        }
    }
}
