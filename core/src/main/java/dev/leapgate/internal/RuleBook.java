package dev.leapgate.internal;

import dev.leapgate.Clock;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.stats.ResourceStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A rule set compiled for enforcement: a {@link Limit} per rule, in the rule set's order, and the
 * statistics of every resource. Compiling against the previous book keeps what a reload must not
 * reset (a reload is not a fresh allowance): a rule whose definition did not change keeps its limit
 * and counters; a changed rule of the same name and resource goes on from what its previous version
 * counted where {@link Limit#continued} says it can (a new limit over the same windows); and a
 * resource keeps its statistics while any rule protects it.
 *
 * <p>Immutable; the limits and recorders inside are thread-safe.
 */
public final class RuleBook {

    private final RuleSet rules;
    private final Limit[] limits;
    private final Map<String, ResourceRecorder> recorders;
    private final int kept;
    private final int continued;

    private RuleBook(RuleSet rules, Limit[] limits, Map<String, ResourceRecorder> recorders, int kept, int continued) {
        this.rules = rules;
        this.limits = limits;
        this.recorders = recorders;
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
        Map<FlowRule, Limit> reusable = new HashMap<>();
        Map<String, Limit> byName = new HashMap<>();
        Map<String, ResourceRecorder> oldRecorders = new HashMap<>();
        if (previous != null) {
            for (Limit limit : previous.limits) {
                reusable.put(limit.rule, limit);
                byName.put(limit.rule.name(), limit);
            }
            oldRecorders.putAll(previous.recorders);
        }
        long now = clock.nanoTime();
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
                Limit earlier = byName.get(rule.name());
                Limit limit = Limit.create(
                        rule, recorder, now, store, earlier != null && earlier.recorder == recorder ? earlier : null);
                limits.add(limit);
                continued += limit.continued() ? 1 : 0;
            }
        }
        return new RuleBook(rules, limits.toArray(new Limit[0]), Map.copyOf(recorders), kept, continued);
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
