package dev.leapgate.http;

import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Finds rules that can never match, where an adapter knows enough about the application to tell,
 * and says why: a rule that starts silently and limits nothing is a limit the operator believes is
 * there. Adapters run these checks when the gate starts and at every reload ({@link
 * HttpGate.Builder#check}), and the gate logs what they find at WARN.
 */
public final class RuleChecks {

    private RuleChecks() {}

    /**
     * Rules written with a path prefix that requests never carry: the servlet filter keys a request
     * by its path below the context path, so a rule for {@code POST /app/login} in an application
     * deployed at {@code /app} matches {@code /app/app/login}, not {@code /app/login}. A rule is
     * reported when its pattern begins with {@code prefix} and the application serves nothing
     * below it (per {@code served}, given the path below the context path), since then the rule
     * can only have been meant for the path without the prefix.
     *
     * @param prefix the path requests are keyed below, e.g. the context path {@code /app}; nothing
     *     is reported for the root
     * @param what what the prefix is, for the message: {@code "the context path"}
     * @param served whether the application serves a path (below the prefix), e.g. {@code /app/x}
     */
    public static List<String> writtenWithPrefix(RuleSet rules, String prefix, String what, Predicate<String> served) {
        Objects.requireNonNull(rules, "rules");
        List<String> problems = new ArrayList<>();
        String key = RequestPath.normalize(prefix);
        if (key.equals("/")) {
            return problems;
        }
        for (FlowRule rule : rules.rules()) {
            String path = rule.match().path();
            if ((path.equals(key) || path.startsWith(key + "/")) && !served.test(path)) {
                String fixed = path.equals(key) ? "/" : path.substring(key.length());
                String method = rule.match().method().map(m -> m + " ").orElse("");
                problems.add("rule '" + rule.name() + "' (" + rule.match() + ") can never match: rules match the"
                        + " path below " + what + " " + key + ", so it applies to " + key + key
                        + (fixed.equals("/") ? "" : fixed) + "; write " + method + fixed);
            }
        }
        return problems;
    }

    /**
     * Rules whose pattern matches none of an application's routes: the JAX-RS provider keys a
     * request by its route template ({@code GET /users/{id}}), so a rule written for a concrete URL
     * ({@code GET /users/42}) or with the servlet's mapping ({@code /api/users/**}) matches nothing.
     *
     * @param routes every route, as method and template: {@code "GET /users/{id}"}
     * @param hint what to add to each message, e.g. how templates are written
     */
    public static List<String> matchingNoRoute(RuleSet rules, Collection<String> routes, String hint) {
        Objects.requireNonNull(rules, "rules");
        List<String> problems = new ArrayList<>();
        for (FlowRule rule : rules.rules()) {
            boolean matches = false;
            for (String route : routes) {
                int space = route.indexOf(' ');
                String method = route.substring(0, space);
                String key = RequestPath.normalize(route.substring(space + 1));
                if (rule.match().matches(method, key)) {
                    matches = true;
                    break;
                }
            }
            if (!matches) {
                problems.add("rule '" + rule.name() + "' (" + rule.match() + ") matches none of the application's "
                        + routes.size() + " routes, so it can never apply" + hint);
            }
        }
        return problems;
    }
}
