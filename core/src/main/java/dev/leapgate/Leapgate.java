package dev.leapgate;

import dev.leapgate.metrics.ResourceMetrics;
import dev.leapgate.rule.FlowRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rule engine: decides whether a request (method, normalized path, origin) may enter, under
 * every rule of a {@link RuleSet} that matches it. Framework-neutral; the servlet filter and the
 * JAX-RS provider are thin adapters around {@link #enter}.
 *
 * <h2>Several rules per request</h2>
 *
 * Every rule whose pattern matches the request and whose scope includes its origin applies, and
 * the request is admitted only if all of them admit it. Rules are tried in two passes: first the
 * rules that decide at once (windows and in-flight limits), in their order in the rule set, then
 * the rules that may make a request wait (pace, warm-up). When a rule rejects, the permits already
 * taken from the rules before it are given back: window counts are refunded and in-flight slots
 * released, so a rejected request leaves nothing consumed in them. The one exception is a
 * pace or warm-up reservation made before a <em>later</em> pace or warm-up rule rejected: a
 * reservation moves the schedule of every request after it and is not taken back. The rejection
 * names the rule that rejected.
 *
 * <p>A request that must wait (paced, or borrowing from the next bucket) waits on the caller's
 * thread through the {@link Sleeper}, for the longest wait any rule asked. If the thread is
 * interrupted meanwhile, its permits are given back as for a rejection, the interrupt status is
 * restored, and the request is rejected with reason {@code "interrupted"}.
 *
 * <h2>Reload</h2>
 *
 * {@link #update} replaces the rule set atomically: a request sees either the old rules or the new
 * ones, never a mix. A rule whose definition is unchanged keeps its counters (a reload does not
 * hand out a fresh allowance); the statistics of a resource carry over while any rule protects it.
 * An entry admitted under the old rules is released into the counters it was admitted by.
 *
 * <p>Concurrency: the compiled rules are one immutable snapshot behind a volatile reference; the
 * counters inside are thread-safe and exact. No locks on the decision path, no background thread.
 */
public final class Leapgate {

    private static final Logger LOG = LoggerFactory.getLogger(Leapgate.class);
    /** The exit of an entry no rule applied to: nothing to release, nothing to report. */
    private static final Entry.Exit NOTHING_HELD = new Entry.Exit() {
        @Override
        public void exit(Entry entry, long nowNanos, boolean failed) {}

        @Override
        public void failedAfterExit(Entry entry, long closedNanos) {}

        @Override
        public List<Quota> quotas(Entry entry) {
            return List.of();
        }
    };

    private static final Comparator<Quota> TIGHTEST_FIRST = Comparator.comparingLong(Quota::remaining);

    private final Clock clock;
    private final Sleeper sleeper;
    private final AtomicReference<Snapshot> snapshot;

    private Leapgate(Builder builder) {
        this.clock = builder.clock;
        this.sleeper = builder.sleeper;
        this.snapshot = new AtomicReference<>(compile(builder.rules, null, clock.nanoTime()));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The rules in force. */
    public RuleSet rules() {
        return snapshot.get().rules;
    }

    /**
     * Replaces the rules atomically. Unchanged rules keep their counters; see the class comment.
     */
    public void update(RuleSet rules) {
        Objects.requireNonNull(rules, "rules");
        Snapshot previous = snapshot.get();
        Snapshot next = compile(rules, previous, clock.nanoTime());
        snapshot.set(next);
        LOG.info(
                "Leapgate rules updated: {} rules ({} kept with their counters), exempt [{}], deny [{}]",
                rules.rules().size(),
                next.kept,
                rules.exempt(),
                rules.deny());
    }

    /** The statistics of every resource a rule protects. */
    public Collection<ResourceMetrics> metrics() {
        return snapshot.get().metrics.values();
    }

    /** The statistics of one resource (a rule pattern's text, e.g. {@code "GET /users/{id}"}). */
    public Optional<ResourceMetrics> metrics(String resource) {
        return Optional.ofNullable(snapshot.get().metrics.get(resource));
    }

    /**
     * How many origins the {@code per-origin} rule named {@code ruleName} tracks now: never more
     * than its {@code max-origins}. Empty when no rule of that name is in force, or the rule has
     * another scope (it keeps no per-origin state).
     */
    public OptionalInt trackedOrigins(String ruleName) {
        Objects.requireNonNull(ruleName, "ruleName");
        for (RuleState state : snapshot.get().states) {
            if (state.rule.name().equals(ruleName)) {
                int tracked = state.trackedOrigins();
                return tracked < 0 ? OptionalInt.empty() : OptionalInt.of(tracked);
            }
        }
        return OptionalInt.empty();
    }

    /** Asks to enter with one permit and no priority. */
    public Decision enter(String method, String normalizedPath, Origin origin) {
        return enter(method, normalizedPath, origin, 1);
    }

    /**
     * Asks to enter.
     *
     * @param method the HTTP method
     * @param normalizedPath the path as {@link dev.leapgate.http.RequestPath#normalize} gives it
     * @param origin who is calling
     * @param permits how much of each limit the request takes, at least 1
     * @return an {@link Entry} to close when the request completes, or a {@link Rejection}
     */
    public Decision enter(String method, String normalizedPath, Origin origin, int permits) {
        Objects.requireNonNull(origin, "origin");
        return decide(method, normalizedPath, origin, null, permits);
    }

    /**
     * Asks to enter, finding out who is calling only if it matters: {@code origin} is called (once)
     * only when a rule's pattern matches the request or some origin is denied. For adapters whose
     * client lookup costs something (forwarding headers, a principal).
     */
    public Decision enter(String method, String normalizedPath, Supplier<Origin> origin, int permits) {
        Objects.requireNonNull(origin, "origin");
        return decide(method, normalizedPath, null, origin, permits);
    }

    /** The decision; the origin is {@code known}, or else asked of {@code lookup} when first needed. */
    private Decision decide(String method, String normalizedPath, Origin known, Supplier<Origin> lookup, int permits) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(normalizedPath, "normalizedPath");
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        Snapshot s = snapshot.get();
        Origin origin = known;
        if (!s.rules.deny().isEmpty()) {
            origin = origin != null ? origin : Objects.requireNonNull(lookup.get(), "origin");
            if (s.rules.deny().contains(origin)) {
                return new Rejection("deny", "origin " + origin + " is denied", null, Duration.ZERO);
            }
        }
        RuleState[] candidates = s.matchPaths(method, normalizedPath);
        if (candidates == null) {
            return unlimited(permits);
        }
        origin = origin != null ? origin : Objects.requireNonNull(lookup.get(), "origin");
        RuleState[] matched = s.forOrigin(candidates, origin);
        if (matched == null) {
            return unlimited(permits);
        }
        long now = clock.nanoTime();
        long[] tokens = new long[matched.length];
        // Pass 1: rules that decide at once; pass 2: rules that may make the request wait.
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < matched.length; i++) {
                RuleState state = matched[i];
                if (state.schedules() != (pass == 1)) {
                    continue;
                }
                if (permits > state.rule.limit()) {
                    giveBack(matched, tokens, i, pass, origin, permits);
                    return reject(matched, state, now, origin, permits, "request needs more permits than the limit");
                }
                long token = state.tryAcquire(now, origin, permits);
                if (token < 0) {
                    giveBack(matched, tokens, i, pass, origin, permits);
                    String reason = token == RuleState.UNTRACKED ? "too many origins tracked" : "limit exceeded";
                    return reject(matched, state, now, origin, permits, reason);
                }
                tokens[i] = token;
            }
        }
        long wait = 0;
        boolean borrowed = false;
        for (int i = 0; i < matched.length; i++) {
            long w = matched[i].waitNanos(now, tokens[i]);
            wait = Math.max(wait, w);
            borrowed |= w > 0 && !matched[i].schedules();
        }
        if (wait > 0) {
            try {
                sleeper.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                giveBack(matched, tokens, matched.length, 1, origin, permits);
                return reject(matched, matched[0], now, origin, permits, "interrupted");
            }
        }
        long admittedAt = wait > 0 ? clock.nanoTime() : now;
        for (int i = 0; i < matched.length; i++) {
            if (firstWithItsMetrics(matched, i)) {
                matched[i].metrics.onPass(admittedAt, borrowed);
            }
        }
        return new Entry(s, clock, admittedAt, permits, new Held(matched, tokens, origin, now));
    }

    private Entry unlimited(int permits) {
        return new Entry(NOTHING_HELD, clock, 0, permits, null);
    }

    /**
     * Gives back what the rules before {@code upTo} in pass {@code pass} (and all of pass 0, when in
     * pass 1) took.
     */
    private static void giveBack(RuleState[] matched, long[] tokens, int upTo, int pass, Origin origin, int permits) {
        for (int p = 0; p <= pass; p++) {
            for (int i = 0; i < matched.length; i++) {
                if (matched[i].schedules() != (p == 1) || (p == pass && i >= upTo)) {
                    continue;
                }
                matched[i].release(origin, tokens[i], permits);
            }
        }
    }

    private Rejection reject(RuleState[] matched, RuleState by, long now, Origin origin, int permits, String reason) {
        for (int i = 0; i < matched.length; i++) {
            if (firstWithItsMetrics(matched, i)) {
                matched[i].metrics.onBlock(now);
            }
        }
        Duration retryAfter = permits > by.rule.limit() ? Duration.ZERO : by.retryAfter(now, origin, permits);
        return new Rejection(by.rule.name(), reason, by.rejectedQuota(now, origin, permits), retryAfter);
    }

    /**
     * Whether {@code matched[i]} is the first of the matched rules with its statistics: rules may
     * share a resource, whose statistics must count a request once. Rule lists are short; no
     * allocation.
     */
    private static boolean firstWithItsMetrics(RuleState[] matched, int i) {
        for (int j = 0; j < i; j++) {
            if (matched[j].metrics == matched[i].metrics) {
                return false;
            }
        }
        return true;
    }

    private static Snapshot compile(RuleSet rules, Snapshot previous, long nowNanos) {
        Map<FlowRule, RuleState> reusable = new HashMap<>();
        Map<String, ResourceMetrics> oldMetrics = new HashMap<>();
        if (previous != null) {
            for (RuleState state : previous.states) {
                reusable.put(state.rule, state);
            }
            oldMetrics.putAll(previous.metrics);
        }
        Map<String, ResourceMetrics> metrics = new HashMap<>();
        List<RuleState> states = new ArrayList<>();
        int kept = 0;
        for (FlowRule rule : rules.rules()) {
            ResourceMetrics m =
                    metrics.computeIfAbsent(rule.resource(), r -> oldMetrics.getOrDefault(r, new ResourceMetrics(r)));
            RuleState old = reusable.get(rule);
            if (old != null && old.metrics == m) {
                states.add(old);
                kept++;
            } else {
                states.add(RuleState.create(rule, m, nowNanos));
            }
        }
        return new Snapshot(rules, states.toArray(new RuleState[0]), Map.copyOf(metrics), kept);
    }

    /**
     * What an entry holds: the rules that admitted it (from the snapshot of its time), what each
     * returned, its origin and the time of the decision.
     */
    private record Held(RuleState[] matched, long[] tokens, Origin origin, long nowNanos) {}

    /** One compiled rule set. Immutable; also the exit of every entry it admitted. */
    private static final class Snapshot implements Entry.Exit {
        final RuleSet rules;
        final RuleState[] states;
        final Map<String, ResourceMetrics> metrics;
        final int kept;

        Snapshot(RuleSet rules, RuleState[] states, Map<String, ResourceMetrics> metrics, int kept) {
            this.rules = rules;
            this.states = states;
            this.metrics = metrics;
            this.kept = kept;
        }

        /** The rules whose pattern matches, in rule-set order, or null if none does. No origin needed. */
        RuleState[] matchPaths(String method, String path) {
            if (states.length > Long.SIZE) {
                List<RuleState> matched = new ArrayList<>();
                for (RuleState state : states) {
                    if (state.matches(method, path)) {
                        matched.add(state);
                    }
                }
                return matched.isEmpty() ? null : matched.toArray(new RuleState[0]);
            }
            // One matching pass; the bit mask sizes the result exactly.
            long mask = 0;
            for (int i = 0; i < states.length; i++) {
                if (states[i].matches(method, path)) {
                    mask |= 1L << i;
                }
            }
            if (mask == 0) {
                return null;
            }
            RuleState[] matched = new RuleState[Long.bitCount(mask)];
            for (int n = 0; mask != 0; mask &= mask - 1) {
                matched[n++] = states[Long.numberOfTrailingZeros(mask)];
            }
            return matched;
        }

        /** Of the rules whose pattern matched, those whose scope includes the origin; null if none or exempt. */
        RuleState[] forOrigin(RuleState[] candidates, Origin origin) {
            if (!rules.exempt().isEmpty() && rules.exempt().contains(origin)) {
                return null;
            }
            int included = 0;
            for (RuleState state : candidates) {
                included += state.includes(origin) ? 1 : 0;
            }
            if (included == candidates.length) {
                return candidates;
            }
            if (included == 0) {
                return null;
            }
            RuleState[] matched = new RuleState[included];
            int n = 0;
            for (RuleState state : candidates) {
                if (state.includes(origin)) {
                    matched[n++] = state;
                }
            }
            return matched;
        }

        @Override
        public void exit(Entry entry, long nowNanos, boolean failed) {
            Held held = (Held) entry.held();
            RuleState[] matched = held.matched();
            // Statistics first, slots second: the in-flight count of the statistics goes up after
            // the slots are taken and down before they are given back, so it never exceeds them
            // and a reported peak never exceeds an in-flight limit.
            for (int i = 0; i < matched.length; i++) {
                if (firstWithItsMetrics(matched, i)) {
                    matched[i].metrics.onComplete(nowNanos, nowNanos - entry.startNanos(), failed);
                }
            }
            for (RuleState state : matched) {
                if (state instanceof RuleState.InFlight) {
                    state.release(held.origin(), 1, entry.permits());
                }
            }
        }

        @Override
        public void failedAfterExit(Entry entry, long closedNanos) {
            RuleState[] matched = ((Held) entry.held()).matched();
            for (int i = 0; i < matched.length; i++) {
                if (firstWithItsMetrics(matched, i)) {
                    matched[i].metrics.onFailedAfterComplete(closedNanos);
                }
            }
        }

        /** Where the entry stands against each rule that admitted it, tightest first; computed on request. */
        @Override
        public List<Quota> quotas(Entry entry) {
            Held held = (Held) entry.held();
            RuleState[] matched = held.matched();
            Quota[] quotas = new Quota[matched.length];
            for (int i = 0; i < matched.length; i++) {
                quotas[i] = matched[i].quota(held.nowNanos(), held.origin(), held.tokens()[i]);
            }
            if (quotas.length > 1) {
                Arrays.sort(quotas, TIGHTEST_FIRST);
            }
            return List.of(quotas);
        }
    }

    /** Builds a {@link Leapgate}. */
    public static final class Builder {
        private RuleSet rules = RuleSet.empty();
        private Clock clock = Clock.system();
        private Sleeper sleeper = Sleeper.system();

        private Builder() {}

        public Builder rules(RuleSet rules) {
            this.rules = Objects.requireNonNull(rules, "rules");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How paced and borrowing requests wait; {@link Sleeper#system()} by default. */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        public Leapgate build() {
            return new Leapgate(this);
        }
    }
}
