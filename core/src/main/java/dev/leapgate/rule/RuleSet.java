package dev.leapgate.rule;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Everything a {@link Leapgate} enforces: its rules, the origins exempt from all of them, and the
 * origins always rejected. Immutable; replaced as a whole on reload.
 *
 * @param rules the rules, in the order they are checked; every rule that matches a request
 *     applies to it
 * @param exempt origins no rule applies to (health checks, internal callers)
 * @param deny origins rejected on every request
 */
public record RuleSet(List<FlowRule> rules, OriginList exempt, OriginList deny) {

    private static final RuleSet EMPTY = new RuleSet(List.of(), OriginList.empty(), OriginList.empty());

    /** @throws IllegalArgumentException if two rules share a name, or a rule has no match */
    public RuleSet {
        rules = List.copyOf(Objects.requireNonNull(rules, "rules"));
        Objects.requireNonNull(exempt, "exempt");
        Objects.requireNonNull(deny, "deny");
        Set<String> names = new HashSet<>();
        for (FlowRule rule : rules) {
            if (rule.match() == null) {
                throw new IllegalArgumentException("rule '" + rule.name() + "' needs a match: a rule set's rules"
                        + " apply to the HTTP requests their pattern matches");
            }
            if (!names.add(rule.name())) {
                throw new IllegalArgumentException("rule name '" + rule.name() + "' is used twice");
            }
        }
    }

    /** No rules, no exemptions, nothing denied. */
    public static RuleSet empty() {
        return EMPTY;
    }

    /**
     * This rule set with {@code more} rules after its own; the same exemptions and denials.
     *
     * @throws IllegalArgumentException if a name is used twice
     */
    public RuleSet withRules(List<FlowRule> more) {
        Objects.requireNonNull(more, "more");
        if (more.isEmpty()) {
            return this;
        }
        List<FlowRule> all = new ArrayList<>(rules);
        all.addAll(more);
        return new RuleSet(all, exempt, deny);
    }

    public static RuleSet of(FlowRule... rules) {
        return new RuleSet(List.of(rules), OriginList.empty(), OriginList.empty());
    }
}
