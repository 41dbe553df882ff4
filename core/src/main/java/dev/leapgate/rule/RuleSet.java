package dev.leapgate.rule;

import dev.leapgate.net.IpAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Everything a {@link dev.leapgate.http.HttpGate} enforces: its rules, the origins exempt from all
 * of them, and the origins always rejected. Immutable; replaced as a whole on reload.
 *
 * @param rules the rules, in the order they are checked; every rule that matches a request
 *     applies to it
 * @param exempt origins no rule applies to (health checks, internal callers)
 * @param deny origins rejected on every request
 */
public record RuleSet(List<FlowRule> rules, OriginList exempt, OriginList deny) {

    private static final RuleSet EMPTY = new RuleSet(List.of(), OriginList.empty(), OriginList.empty());

    /**
     * @throws IllegalArgumentException if a rule has no match, or rules conflict (see {@link
     *     #conflicts}): every problem is in the message
     */
    public RuleSet {
        rules = List.copyOf(Objects.requireNonNull(rules, "rules"));
        Objects.requireNonNull(exempt, "exempt");
        Objects.requireNonNull(deny, "deny");
        for (FlowRule rule : rules) {
            if (rule.match() == null) {
                throw new IllegalArgumentException("rule '" + rule.name() + "' needs a match: a rule set's rules"
                        + " apply to the HTTP requests their pattern matches");
            }
        }
        List<String> conflicts = conflicts(rules);
        if (!conflicts.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", conflicts));
        }
    }

    /**
     * What is wrong with rules taken together, one message per later rule at fault, in order:
     *
     * <ul>
     *   <li>a name used twice, or two names that differ only in case ({@code Login} and {@code
     *       login}): names identify the policies clients see in {@code RateLimit} fields;
     *   <li>a rule that is another rule under a second name: the same match, limit, window, scope,
     *       on-excess and max-origins count the same requests the same way, so one is a copy that
     *       was probably meant to say something else, and the limit meant for it is missing.
     * </ul>
     */
    public static List<String> conflicts(List<FlowRule> rules) {
        ConflictCheck check = new ConflictCheck();
        List<String> problems = new ArrayList<>();
        for (FlowRule rule : rules) {
            String problem = check.add(rule);
            if (problem != null) {
                problems.add(problem);
            }
        }
        return problems;
    }

    /** Finds the conflicts of {@link #conflicts} among rules taken one at a time, in linear time. */
    public static final class ConflictCheck {
        private final Map<String, FlowRule> byName = new HashMap<>();
        private final Map<FlowRule, FlowRule> byDefinition = new HashMap<>();

        /** What is wrong with {@code rule} given the rules added before it, or null. */
        public String add(FlowRule rule) {
            FlowRule sameName = byName.putIfAbsent(rule.name().toLowerCase(Locale.ROOT), rule);
            if (sameName != null) {
                return sameName.name().equals(rule.name())
                        ? "rule name '" + rule.name() + "' is used twice"
                        : "rule names '" + sameName.name() + "' and '" + rule.name() + "' differ only in case;"
                                + " names must differ ignoring case (clients see them in RateLimit fields)";
            }
            FlowRule unnamed = new FlowRule(
                    "same",
                    rule.match(),
                    rule.limit(),
                    rule.window(),
                    rule.scope(),
                    rule.onExcess(),
                    rule.maxOrigins(),
                    rule.shadow(), // a shadow copy of an enforced rule is not a slip: it watches
                    false, // a local copy of a shared rule is the same limit
                    null); // and so is one that fails otherwise while the store cannot decide
            FlowRule twin = byDefinition.putIfAbsent(unnamed, rule);
            if (twin != null) {
                return "rule '" + rule.name() + "' is the same rule as '" + twin.name() + "' (match, limit, window,"
                        + " scope and on-excess): a copy that was probably meant to say something else; change or"
                        + " remove one";
            }
            return null;
        }
    }

    /** No rules, no exemptions, nothing denied. */
    public static RuleSet empty() {
        return EMPTY;
    }

    /**
     * This rule set with {@code more} rules after its own (rules defined in code, such as
     * annotations'); the same exemptions and denials.
     *
     * @throws IllegalArgumentException if a name is used twice (saying which rule is from code), or one of {@code more} is for an
     *     origin that this set's exemptions list ({@code scope = origin:<value>}): an exempt origin
     *     passes every rule, so the rule could never apply, and the client it was written to limit
     *     would not be limited at all (the configuration refuses its own such rules; these come
     *     from elsewhere, and a rules file may exempt the origin later)
     */
    public RuleSet withRules(List<FlowRule> more) {
        Objects.requireNonNull(more, "more");
        if (more.isEmpty()) {
            return this;
        }
        List<String> problems = new ArrayList<>();
        Set<String> own = new HashSet<>();
        for (FlowRule rule : rules) {
            own.add(rule.name());
        }
        for (FlowRule rule : more) {
            if (own.contains(rule.name())) {
                // Said here, where it is known which rule is which: a reloaded rules file's problem
                // names the file, and its rule looks used once there.
                problems.add("rule name '" + rule.name() + "' is used twice: by a rule of the configuration and"
                        + " by a rule defined in code (an @RateLimited annotation's, or one given to"
                        + " HttpGate.Builder.addRules), which is enforced beside it; rename the configuration's rule");
            }
        }
        for (FlowRule rule : more) {
            if (rule.scope().kind() == Scope.Kind.ORIGIN && exempts(rule.scope().origin())) {
                // The origin is not named: with origins from a header it is an API key.
                problems.add("rule '" + rule.name() + "' is for an origin that exempt lists, and an exempt origin"
                        + " passes every rule, so the rule could never apply and that origin would not be limited"
                        + " at all; take the origin out of exempt, or remove the rule");
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        List<FlowRule> all = new ArrayList<>(rules);
        all.addAll(more);
        return new RuleSet(all, exempt, deny);
    }

    /** Whether {@code origin} (an address or an identifier, as a scope names it) is exempt. */
    private boolean exempts(String origin) {
        IpAddress address;
        try {
            address = IpAddress.parse(origin);
        } catch (IllegalArgumentException notAnAddress) {
            return exempt.identifiers().contains(origin);
        }
        return exempt.ranges().contains(address);
    }

    public static RuleSet of(FlowRule... rules) {
        return new RuleSet(List.of(rules), OriginList.empty(), OriginList.empty());
    }
}
