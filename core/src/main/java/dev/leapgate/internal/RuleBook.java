package dev.leapgate.internal;

import dev.leapgate.Clock;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.stats.ResourceStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A rule set compiled for enforcement: a {@link Limit} per rule, in the rule set's order, and the
 * statistics of every resource. Compiling against the previous book keeps what a reload must not
 * reset (a reload is not a fresh allowance): a rule whose definition did not change keeps its limit
 * and counters; a changed rule of the same name and resource goes on from what its previous version
 * counted where {@link Limit#continued} says it can (a new limit over the same windows); and a
 * resource keeps its statistics while any rule protects it.
 *
 * <p>A rule that a version of the rules leaves out is <em>retired</em>, not forgotten, for as long
 * as its window could still count anything (its window and a bucket; an in-flight limit, for as
 * long as requests it admitted are still in flight, whose slots go back to it): a rule written
 * back within that time (a rules file read half-written, then whole; a rule commented out and
 * back) takes back its limit and counters, or goes on from them as a changed rule does. A retired
 * limit is held until a later version of the rules no longer needs it, at the latest the first
 * compile after its time.
 *
 * <p>Immutable; the limits and recorders inside are thread-safe.
 */
public final class RuleBook {

    /** A limit whose rule the rules in force left out, kept until {@code untilNanos}. */
    private record Retired(Limit limit, long untilNanos) {}

    private final RuleSet rules;
    private final Limit[] limits;
    private final Map<String, ResourceRecorder> recorders;
    private final List<Retired> retired;
    private final int kept;
    private final int continued;

    private RuleBook(
            RuleSet rules,
            Limit[] limits,
            Map<String, ResourceRecorder> recorders,
            List<Retired> retired,
            int kept,
            int continued) {
        this.rules = rules;
        this.limits = limits;
        this.recorders = recorders;
        this.retired = retired;
        this.kept = kept;
        this.continued = continued;
    }

    /** Compiles {@code rules}, keeping what {@code previous} (null at start) had for unchanged rules. */
    public static RuleBook compile(RuleSet rules, RuleBook previous, Clock clock) {
        return compile(rules, previous, clock, null);
    }

    /**
     * As {@link #compile(RuleSet, RuleBook, Clock)}; shared rules keep their windows in {@code
     * store} (null: no store).
     */
    public static RuleBook compile(RuleSet rules, RuleBook previous, Clock clock, Limit.Store store) {
        long now = clock.nanoTime();
        Map<FlowRule, Limit> reusable = new HashMap<>();
        Map<String, Limit> byName = new HashMap<>();
        Map<String, ResourceRecorder> oldRecorders = new HashMap<>();
        List<Retired> candidates = new ArrayList<>();
        if (previous != null) {
            for (Limit limit : previous.limits) {
                reusable.put(limit.rule, limit);
                byName.put(limit.rule.name(), limit);
                candidates.add(new Retired(limit, now + retention(limit.rule)));
            }
            oldRecorders.putAll(previous.recorders);
            // Names are unique within a book, and a retired name is none of its limits'.
            for (Retired r : previous.retired) {
                if (stillNeeded(r, now)) {
                    reusable.put(r.limit.rule, r.limit);
                    byName.put(r.limit.rule.name(), r.limit);
                    oldRecorders.putIfAbsent(r.limit.rule.resource(), r.limit.recorder);
                    candidates.add(r);
                }
            }
        }
        Map<String, ResourceRecorder> recorders = new HashMap<>();
        List<Limit> limits = new ArrayList<>();
        int kept = 0;
        int continued = 0;
        for (FlowRule rule : rules.rules()) {
            ResourceRecorder recorder = recorders.computeIfAbsent(
                    rule.resource(), r -> oldRecorders.getOrDefault(r, new ResourceRecorder(r, clock)));
            Limit old = reusable.get(rule);
            if (old != null && old.recorder == recorder) {
                limits.add(old);
                kept++;
            } else {
                // A rule of the same name goes on from its previous version, also with another match
                // (its statistics are its resource's, so start with the new one's).
                Limit limit = Limit.create(rule, recorder, now, store, byName.get(rule.name()));
                limits.add(limit);
                continued += limit.continued() ? 1 : 0;
            }
        }
        Set<String> names = new HashSet<>();
        for (FlowRule rule : rules.rules()) {
            names.add(rule.name());
        }
        List<Retired> retired = new ArrayList<>();
        for (Retired r : candidates) {
            if (!names.contains(r.limit.rule.name()) && stillNeeded(r, now)) {
                retired.add(r);
            }
        }
        return new RuleBook(
                rules, limits.toArray(new Limit[0]), Map.copyOf(recorders), List.copyOf(retired), kept, continued);
    }

    /**
     * Whether a limit left out of the rules is still kept: while its window could count anything
     * of the requests it admitted, or while requests it admitted are in flight (they give their
     * slots back to it, so a rule written back meanwhile must count them) or have turns booked on
     * its schedule (a paced rule written back meanwhile must go on after them).
     */
    private static boolean stillNeeded(Retired r, long now) {
        return r.untilNanos - now > 0 || r.limit.holdsRequests(now);
    }

    /**
     * How long a limit left out of the rules is kept for its window: while it could count anything
     * of the requests it admitted (the window and one bucket more); an in-flight limit is kept
     * while it holds requests instead ({@link #stillNeeded}).
     */
    private static long retention(FlowRule rule) {
        if (rule.isInFlight() || rule.window() == null) {
            return 0;
        }
        return rule.window().length().toNanos() + rule.window().bucketNanos();
    }

    public RuleSet rules() {
        return rules;
    }

    /** The limit of each rule, in the rule set's order. Do not modify. */
    public Limit[] limits() {
        return limits;
    }

    /** How many rules kept their counters from the previous book. */
    public int kept() {
        return kept;
    }

    /** How many changed rules went on from what their previous versions counted ({@link Limit#continued}). */
    public int continued() {
        return continued;
    }

    /** The statistics of every resource a rule protects. */
    public Collection<ResourceStats> stats() {
        return List.copyOf(recorders.values());
    }

    /** The statistics of one resource, or null. */
    public ResourceStats stats(String resource) {
        return recorders.get(resource);
    }

    /** The limit of the rule named {@code ruleName}, if one is in force. */
    public Optional<Limit> limit(String ruleName) {
        for (Limit limit : limits) {
            if (limit.rule.name().equals(ruleName)) {
                return Optional.of(limit);
            }
        }
        return Optional.empty();
    }
}
