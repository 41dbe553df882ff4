package dev.leapgate.testing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One set of bad settings that every configuration surface must refuse with the same documented
 * problem: the core's init-params map and properties text, rules files (for the cases that can be
 * written in one), the servlet filter's init-params and the JAX-RS provider's {@code leapgate.*}
 * properties. Each surface's test runs every case, so that a check added to one surface and
 * missing from another fails the build.
 *
 * <p>A problem is expected to contain {@link Case#key} (written with the surface's prefix, e.g.
 * {@code leapgate.rule.a.limit}) followed by {@link Case#says}, with {@code {prefix}} in it
 * replaced by that prefix.
 *
 * <p>A case that {@code @RateLimited} can express too names, in {@link Case#annotation}, the
 * class of the JAX-RS tests' {@code BadAnnotations} that says the same with annotations, and in
 * {@link Case#annotationSays} what the application's start must fail with.
 */
public final class BadSettings {

    private BadSettings() {}

    /**
     * A bad configuration: its settings (a valid rule added where the case needs one), the key
     * the problem is reported at, and what the problem says of it.
     *
     * @param inRulesFile whether every key of the case belongs in a rules file, so that the case
     *     applies to rules files too
     */
    public record Case(
            String name,
            Map<String, String> settings,
            String key,
            String says,
            boolean inRulesFile,
            String annotation,
            String annotationSays) {

        /** This case, also written as the annotations of {@code BadAnnotations.<className>}. */
        Case annotated(String className, String says) {
            return new Case(name, settings, key, this.says, inRulesFile, className, says);
        }

        /** The settings as they are written with a key prefix, in order. */
        public Map<String, String> settings(String prefix) {
            Map<String, String> prefixed = new LinkedHashMap<>();
            settings.forEach((k, v) -> prefixed.put(prefix + k, v));
            return prefixed;
        }

        /** The settings as the lines of a properties text. */
        public String propertiesText() {
            return settings.entrySet().stream()
                    .map(e -> e.getKey() + " = " + e.getValue())
                    .collect(Collectors.joining("\n"));
        }

        /** The text a problem of a surface with this key prefix must contain. */
        public String expected(String prefix) {
            return prefix + key + ": " + says.replace("{prefix}", prefix);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static final String[] RULE = {"rule.ok.match", "/ok", "rule.ok.limit", "1/s"};

    public static final List<Case> CASES = List.of(
            rules(
                            "a limit with an unknown unit",
                            "rule.a.limit",
                            "'5/1min' is not a limit",
                            "rule.a.match",
                            "/a",
                            "rule.a.limit",
                            "5/1min")
                    .annotated("UnknownUnit", "window: '1min' is not a duration"),
            rules(
                    "a misspelt rule setting",
                    "rule.a.bucket",
                    "unknown rule setting 'bucket'; did you mean" + " {prefix}rule.a.buckets?",
                    "rule.a.match",
                    "/a",
                    "rule.a.limit",
                    "5/1m",
                    "rule.a.bucket",
                    "5"),
            rules(
                    "a lower-case standard method",
                    "rule.a.match",
                    "invalid path pattern 'post /login': methods are" + " case-sensitive",
                    "rule.a.match",
                    "post /login",
                    "rule.a.limit",
                    "5/1m"),
            rules(
                            "both limit and in-flight",
                            "rule.a.in-flight",
                            "a rule has either limit (requests per window) or" + " in-flight",
                            "rule.a.match",
                            "/a",
                            "rule.a.limit",
                            "5/1m",
                            "rule.a.in-flight",
                            "3")
                    .annotated("Both", "set either limit and window (requests per window) or inFlight"),
            rules(
                            "pace per origin",
                            "rule.a.on-excess",
                            "on-excess pace is not supported with scope per-origin",
                            "rule.a.match",
                            "/a",
                            "rule.a.limit",
                            "5/1m",
                            "rule.a.scope",
                            "per-origin",
                            "rule.a.on-excess",
                            "pace")
                    .annotated("PacePerOrigin", "on-excess pace is not supported with scope per-origin"),
            rules(
                    "a shadow rule that would make requests wait",
                    "rule.a.mode",
                    "shadow needs on-excess reject (a shadow rule never makes a request wait)",
                    "rule.a.match",
                    "/a",
                    "rule.a.limit",
                    "5/1m",
                    "rule.a.on-excess",
                    "pace",
                    "rule.a.mode",
                    "shadow"),
            rules(
                            "one rule under two names",
                            "rule.b",
                            "rule 'b' is the same rule as 'a'",
                            "rule.a.match",
                            "/a",
                            "rule.a.limit",
                            "5/1m",
                            "rule.b.match",
                            "/a",
                            "rule.b.limit",
                            "5/1m")
                    .annotated("Twice", "is the same rule as"),
            rules(
                            "names differing only in case",
                            "rule.a",
                            "rule names 'A' and 'a' differ only in case",
                            "rule.A.match",
                            "/a",
                            "rule.A.limit",
                            "5/1m",
                            "rule.a.match",
                            "/b",
                            "rule.a.limit",
                            "5/1m")
                    .annotated("NamesInCase", "differ only in case"),
            rules(
                    "an exemption of every IPv6 address",
                    "exempt",
                    "'::/0' exempts every IPv6 address",
                    join(RULE, "exempt", "::/0")),
            rules(
                    "a name exempted where clients are addresses",
                    "exempt",
                    "'localhost' is not an IP address or" + " block",
                    join(RULE, "exempt", "localhost")),
            rules(
                    "a space inside a block",
                    "deny",
                    "invalid CIDR '/8': empty; no space is allowed inside a block",
                    join(RULE, "deny", "10.0.0.0 /8")),
            main(
                    "no rule on purpose, given with rules",
                    "rules",
                    "says there is no rule, but {prefix}rule.* settings are given; remove one or the other",
                    join(RULE, "rules", "none")),
            main(
                    "a misspelt key",
                    "trusted-proxis",
                    "unknown key; did you mean {prefix}trusted-proxies?",
                    join(RULE, "trusted-proxis", "10.0.0.0/8")),
            main(
                    "trusting every address",
                    "trusted-proxies",
                    "'0.0.0.0/0' trusts every IPv4 address",
                    join(RULE, "trusted-proxies", "0.0.0.0/0")),
            main(
                    "a success status for a rejection",
                    "status",
                    "must be between 400 and 599, was 200",
                    join(RULE, "status", "200")),
            main(
                    "a deny status out of range",
                    "deny-status",
                    "must be between 400 and 599, was 99",
                    join(RULE, "deny-status", "99")),
            main(
                    "an origin header without a name",
                    "origin",
                    "'header:' names no header",
                    join(RULE, "origin", "header:")));

    private static Case rules(String name, String key, String says, String... keyValues) {
        return new Case(name, map(keyValues), key, says, true, null, null);
    }

    private static Case main(String name, String key, String says, String... keyValues) {
        return new Case(name, map(keyValues), key, says, false, null, null);
    }

    private static String[] join(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }

    private static Map<String, String> map(String... keyValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }
}
