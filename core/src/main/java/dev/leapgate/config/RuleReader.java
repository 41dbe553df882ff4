package dev.leapgate.config;

import dev.leapgate.http.PathPattern;
import dev.leapgate.internal.DurationText;
import dev.leapgate.internal.ListSeparators;
import dev.leapgate.internal.RuleName;
import dev.leapgate.internal.Shown;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.store.FailurePolicy;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Turns {@code rule.<name>.<setting>} settings into {@link FlowRule}s, in the order each name
 * first appears.
 *
 * <p>Every setting is checked on its own first, so that all mistakes of a rule are reported
 * together; only a rule whose settings are all valid is built. Building it is left to {@link
 * FlowRule.Builder}, whose checks of how settings combine (the largest limit of a window, pacing
 * per origin) are the rule's own; their messages are reported under the key they concern.
 */
final class RuleReader {

    static final String PREFIX = "rule.";

    /** The settings of a rule, in the order the documentation lists them. */
    static final List<String> SETTINGS = List.of(
            "match",
            "limit",
            "in-flight",
            "buckets",
            "window",
            "scope",
            "on-excess",
            "max-queue",
            "cold-factor",
            "warm-up",
            "max-wait",
            "max-origins",
            "mode",
            "store",
            "store-on-failure");

    /**
     * The methods clients send: every registered method (GET, PROPFIND, VERSION-CONTROL, M-SEARCH)
     * is letters and '-'. Other token characters ({@code | * + ! .}) make a list or a wildcard that
     * HTTP would read as one method of that name.
     */
    private static final Pattern METHOD = Pattern.compile("[A-Za-z0-9_-]+");

    private static final Map<String, WindowMode> MODES = modes();

    private static final Map<String, OnExcess.Kind> KINDS = kinds();

    /** {@code mode}: whether the rule is enforced, or only watches ({@link FlowRule#shadow}). */
    private static final Map<String, Boolean> ENFORCEMENT = enforcement();

    /** {@code store}: whether the rule uses a configured shared store or stays per instance ({@link FlowRule#local}). */
    private static final Map<String, Boolean> STORES = stores();

    /** A rule's settings as read, before they are understood. */
    private static final class Draft {
        final String name;
        /** Where the rule is reported when no single key is to blame: its first setting. */
        final Setting anchor;

        final Map<String, Setting> settings = new LinkedHashMap<>();
        /** The settings that misspelt keys were probably meant to be; already reported. */
        final Set<String> misspelt = new HashSet<>();
        /** Whether a key of this rule was unknown: what the rule was meant to be is unclear. */
        boolean unknownKey;

        Draft(String name, Setting first) {
            this.name = name;
            this.anchor = new Setting(PREFIX + name, "", first.line());
        }
    }

    private final Problems problems;
    private final Map<String, Draft> drafts = new LinkedHashMap<>();
    private final Set<String> badNames = new HashSet<>();

    RuleReader(Problems problems) {
        this.problems = problems;
    }

    /** Whether {@code name} is a rule's name as keys write it: 1 to 64 letters, digits, '-' or '_'. */
    static boolean isName(String name) {
        return RuleName.isValid(name);
    }

    /** Takes a setting whose key starts with {@code rule.}. */
    void add(Setting s) {
        String rest = s.key().substring(PREFIX.length());
        int dot = rest.lastIndexOf('.');
        if (dot < 0) {
            problems.add(
                    s,
                    "expected " + problems.key("rule.<name>.<setting>") + ", e.g. "
                            + problems.key("rule." + (rest.isEmpty() ? "login" : rest) + ".match")
                            + "; settings are " + ValueSyntax.oneOf(SETTINGS));
            return;
        }
        String name = rest.substring(0, dot);
        String setting = rest.substring(dot + 1);
        if (!isName(name)) {
            if (badNames.add(name)) { // once per name, not once per key
                problems.add(s, "rule name " + Shown.quoted(name) + " must be 1 to 64 letters, digits, '-' or '_'");
            }
            return;
        }
        if (RuleName.isReserved(name)) {
            if (badNames.add(name)) {
                problems.add(s, RuleName.reserved(name));
            }
            return;
        }
        Draft draft = drafts.computeIfAbsent(name, n -> new Draft(n, s));
        if (!SETTINGS.contains(setting)) {
            draft.unknownKey = true;
            String near = Spelling.nearest(setting, SETTINGS);
            if (near != null) {
                draft.misspelt.add(near);
                problems.add(
                        s,
                        "unknown rule setting " + Shown.quoted(setting) + "; did you mean "
                                + problems.key(PREFIX + name + "." + near) + "?");
            } else {
                problems.add(
                        s,
                        "unknown rule setting " + Shown.quoted(setting) + "; rule settings are "
                                + ValueSyntax.oneOf(SETTINGS));
            }
            return;
        }
        draft.settings.put(setting, s);
    }

    /** The rules whose settings are all valid, in order; problems with the others are reported. */
    List<FlowRule> rules() {
        List<FlowRule> rules = new ArrayList<>();
        RuleSet.ConflictCheck conflicts = new RuleSet.ConflictCheck();
        for (Draft draft : drafts.values()) {
            FlowRule rule = build(draft);
            if (rule != null) {
                String conflict = conflicts.add(rule);
                if (conflict != null) {
                    problems.add(draft.anchor, conflict);
                } else {
                    rules.add(rule);
                }
            }
        }
        return rules;
    }

    private FlowRule build(Draft d) {
        int problemsBefore = problems.size();
        String key = problems.key(PREFIX + d.name + ".");

        Setting matchSetting = d.settings.get("match");
        PathPattern match = value(matchSetting, RuleReader::pattern);
        if (matchSetting == null && !d.misspelt.contains("match")) {
            problems.add(d.anchor, "needs a match, e.g. " + key + "match=POST /login or " + key + "match=/api/**");
        }

        Setting limitSetting = d.settings.get("limit");
        Setting inFlightSetting = d.settings.get("in-flight");
        ValueSyntax.Limit limit = value(limitSetting, ValueSyntax::limit);
        Long inFlight = value(inFlightSetting, ValueSyntax::count);
        if (limitSetting != null && inFlightSetting != null) {
            Setting later = limitSetting.line() > inFlightSetting.line() ? limitSetting : inFlightSetting;
            problems.add(
                    later,
                    "a rule has either limit (requests per window) or in-flight (requests at once), not both;"
                            + " write a second rule for the other");
        } else if (limitSetting == null
                && inFlightSetting == null
                && !d.misspelt.contains("limit")
                && !d.misspelt.contains("in-flight")) {
            problems.add(
                    d.anchor,
                    "needs a limit, e.g. " + key + "limit=100/10s, or an in-flight limit, e.g. " + key
                            + "in-flight=20");
        }
        boolean concurrency = inFlightSetting != null && limitSetting == null;

        Setting bucketsSetting = d.settings.get("buckets");
        Setting modeSetting = d.settings.get("window");
        if (concurrency) {
            bucketsSetting = notForInFlight(bucketsSetting);
            modeSetting = notForInFlight(modeSetting);
        }
        Integer buckets = value(bucketsSetting, t -> ValueSyntax.integer(t, 1, WindowSpec.MAX_BUCKETS));
        WindowMode mode = value(modeSetting, t -> ValueSyntax.choice(t, MODES));
        WindowSpec window = limit == null ? null : window(limit, limitSetting, buckets, bucketsSetting, mode);

        Setting scopeSetting = d.settings.get("scope");
        Setting maxOriginsSetting = d.settings.get("max-origins");
        Scope scope = scopeSetting == null ? Scope.all() : value(scopeSetting, t -> scope(t, problems));
        Integer maxOrigins = value(maxOriginsSetting, t -> ValueSyntax.integer(t, 1, FlowRule.MAX_ORIGINS_ALLOWED));
        if (maxOriginsSetting != null && scope != null && scope.kind() != Scope.Kind.PER_ORIGIN) {
            problems.add(
                    maxOriginsSetting,
                    "applies only to scope per-origin; this rule's scope is "
                            + (scope.kind() == Scope.Kind.ORIGIN ? problems.origins(scope.toString()) : scope));
        }

        Setting onExcessSetting = d.settings.get("on-excess");
        OnExcess.Kind kind = onExcessSetting == null
                ? OnExcess.Kind.REJECT
                : value(onExcessSetting, t -> ValueSyntax.choice(t, KINDS));
        Duration maxQueue = controlDuration(d, OnExcess.Parameter.MAX_QUEUE, kind, true);
        Duration warmUp = controlDuration(d, OnExcess.Parameter.WARM_UP, kind, false);
        Duration maxWait = controlDuration(d, OnExcess.Parameter.MAX_WAIT, kind, true);
        Setting coldSetting = d.settings.get(OnExcess.Parameter.COLD_FACTOR.key());
        Double coldFactor = value(appliesTo(coldSetting, kind, OnExcess.Parameter.COLD_FACTOR), RuleReader::coldFactor);

        Setting shadowSetting = d.settings.get("mode");
        Boolean shadow = value(shadowSetting, t -> ValueSyntax.choice(t, ENFORCEMENT));
        if (Boolean.TRUE.equals(shadow) && kind != null && kind != OnExcess.Kind.REJECT) {
            problems.add(
                    shadowSetting,
                    "shadow needs on-excess reject (a shadow rule never makes a request wait); this rule's"
                            + " on-excess is " + OnExcess.name(kind));
        }

        Setting storeSetting = d.settings.get("store");
        Boolean local = value(storeSetting, t -> ValueSyntax.choice(t, STORES));
        if (Boolean.FALSE.equals(local) && (concurrency || (kind != null && kind != OnExcess.Kind.REJECT))) {
            problems.add(
                    storeSetting,
                    "only a rate limit with on-excess reject can be shared; this rule's "
                            + (concurrency ? "in-flight limit" : "on-excess " + OnExcess.name(kind))
                            + " is always per instance (remove store, or write local)");
        }
        // As the store's own store-on-failure, which it overrides for this rule; without a store it
        // changes nothing, as store = shared does.
        Setting onFailureSetting = d.settings.get("store-on-failure");
        FailurePolicy onFailure = value(onFailureSetting, t -> ValueSyntax.choice(t, ConfigParser.FAILURE_POLICIES));
        if (onFailure != null
                && (concurrency || Boolean.TRUE.equals(local) || (kind != null && kind != OnExcess.Kind.REJECT))) {
            problems.add(
                    onFailureSetting,
                    ValueSyntax.shown(onFailureSetting.value()) + " applies only to a rule in the shared store (a rate"
                            + " limit with on-excess reject); this rule's "
                            + (concurrency
                                    ? "in-flight limit is always per instance"
                                    : Boolean.TRUE.equals(local)
                                            ? "store is local"
                                            : "on-excess " + OnExcess.name(kind) + " is always per instance")
                            + " (remove store-on-failure)");
        }

        if (problems.size() != problemsBefore || d.unknownKey) {
            return null;
        }
        OnExcess control = OnExcess.of(kind, maxQueue, coldFactor == null ? 0 : coldFactor, warmUp, maxWait);
        // First the limit alone (with borrow, which changes the largest limit), so that its
        // problems are reported under limit / in-flight ...
        boolean limitDependsOnControl = !concurrency && kind == OnExcess.Kind.BORROW;
        FlowRule.Builder alone =
                FlowRule.builder(d.name).match(match).onExcess(limitDependsOnControl ? control : OnExcess.reject());
        FlowRule.Builder full = FlowRule.builder(d.name)
                .match(match)
                .scope(scope)
                .onExcess(control)
                .maxOrigins(or(maxOrigins, FlowRule.DEFAULT_MAX_ORIGINS))
                .shadow(or(shadow, false))
                .local(or(local, false))
                .storeOnFailure(onFailure);
        if (concurrency) {
            alone.inFlight(inFlight);
            full.inFlight(inFlight);
        } else {
            alone.limit(limit.count(), window);
            full.limit(limit.count(), window);
        }
        try {
            alone.build();
        } catch (IllegalArgumentException e) {
            problems.add(concurrency ? inFlightSetting : limitSetting, e.getMessage());
            return null;
        }
        // ... then the combinations, which always involve an on-excess other than reject.
        try {
            return full.build();
        } catch (IllegalArgumentException e) {
            problems.add(onExcessSetting != null ? onExcessSetting : d.anchor, e.getMessage());
            return null;
        }
    }

    /**
     * The window of a limit. Its length is checked alone first (one bucket always fits), so that a
     * bad length is reported under limit and a bad bucket count under buckets.
     */
    private WindowSpec window(
            ValueSyntax.Limit limit, Setting limitSetting, Integer buckets, Setting bucketsSetting, WindowMode mode) {
        WindowMode checkedMode = mode == null ? WindowMode.STRICT : mode;
        try {
            new WindowSpec(limit.window(), 1, checkedMode);
        } catch (IllegalArgumentException e) {
            problems.add(limitSetting, e.getMessage());
            return null;
        }
        if (bucketsSetting != null && buckets == null) {
            return null; // already reported
        }
        try {
            return new WindowSpec(limit.window(), or(buckets, WindowSpec.DEFAULT_BUCKETS), checkedMode);
        } catch (IllegalArgumentException e) {
            problems.add(bucketsSetting != null ? bucketsSetting : limitSetting, e.getMessage());
            return null;
        }
    }

    /** Reports a window setting given with an in-flight limit; returns null, as it is not read. */
    private Setting notForInFlight(Setting s) {
        if (s != null) {
            problems.add(s, "applies only to a limit per window (limit), not to in-flight");
        }
        return null;
    }

    /**
     * The setting if it applies to the on-excess {@code kind}; otherwise reports it and returns
     * null. With an invalid on-excess ({@code kind} null) applicability is unknown: the setting is
     * still read, so its own mistakes are reported too.
     */
    private Setting appliesTo(Setting s, OnExcess.Kind kind, OnExcess.Parameter parameter) {
        if (s == null || kind == null || parameter.appliesTo(kind)) {
            return s;
        }
        String names =
                ValueSyntax.oneOf(parameter.kinds().stream().map(OnExcess::name).collect(Collectors.toList()));
        problems.add(s, "applies only to on-excess " + names + "; this rule's on-excess is " + OnExcess.name(kind));
        return null;
    }

    /**
     * A waiting time of the on-excess: at most {@link OnExcess#MAX_WAIT_ALLOWED}, checked here rather
     * than by {@link OnExcess} so the message shows the value as it was written.
     */
    private Duration controlDuration(Draft d, OnExcess.Parameter parameter, OnExcess.Kind kind, boolean zeroAllowed) {
        return value(appliesTo(d.settings.get(parameter.key()), kind, parameter), text -> {
            Duration value = ValueSyntax.duration(text);
            String max = DurationText.format(OnExcess.MAX_WAIT_ALLOWED);
            if (value.compareTo(OnExcess.MAX_WAIT_ALLOWED) > 0 || (!zeroAllowed && value.isZero())) {
                throw new IllegalArgumentException(
                        (zeroAllowed ? "must be between 0s and " : "must be longer than 0s and at most ") + max
                                + ", was " + text);
            }
            return value;
        });
    }

    /**
     * The range is checked on the digits as written, and the message shows them: a double rounds
     * {@code 100.000000000000001} to 100, which would pass, and {@code 1.0000000000000001} to 1,
     * which {@link OnExcess} would refuse as {@code 1.0}, a value other than the one written.
     */
    private static double coldFactor(String text) {
        double factor = ValueSyntax.decimal(text);
        BigDecimal written = new BigDecimal(text);
        if (written.compareTo(BigDecimal.ONE) <= 0 || written.compareTo(MAX_COLD_FACTOR) > 0 || !(factor > 1.0)) {
            throw new IllegalArgumentException("cold-factor must be greater than 1 and at most 100, was " + text
                    + (written.compareTo(BigDecimal.ONE) > 0 && !(factor > 1.0)
                            ? " (too close to 1 to be told apart from it; write e.g. 1.01)"
                            : ""));
        }
        OnExcess.warmUp(factor, OnExcess.DEFAULT_WARM_UP); // OnExcess owns the range; this agrees with it
        return factor;
    }

    private static final BigDecimal MAX_COLD_FACTOR = BigDecimal.valueOf(100);

    /**
     * A rule's {@code match}. An invisible character in it, or a method that is a list or a wildcard
     * ({@code GET|POST}, {@code *}: one method token of that name to HTTP, which no client sends),
     * would make a rule that matches nothing.
     */
    private static PathPattern pattern(String text) {
        ValueSyntax.requireNoInvisible(text, true);
        PathPattern pattern = PathPattern.parse(text);
        String method = pattern.method().orElse(null);
        if (method != null && !METHOD.matcher(method).matches()) {
            String path = text.strip().substring(method.length()).strip();
            throw new IllegalArgumentException(ValueSyntax.shown(text) + " names the method " + Shown.quoted(method)
                    + ", which no client sends (methods are letters, digits, '-' and '_'); a rule names one method,"
                    + " and one without a method matches every method: write " + path
                    + (method.equals("*") ? "" : ", or a rule per method"));
        }
        return pattern;
    }

    /**
     * {@code address} as a rule for one origin names it; a multicast address is refused: no client
     * sends from one, so the rule could never apply.
     */
    private static String client(IpAddress address, String shown) {
        if (address.isMulticast()) {
            throw new IllegalArgumentException(
                    shown + " names a multicast address, which is never a client's: the rule could never apply");
        }
        return address.toString();
    }

    /**
     * {@code all}, {@code per-origin} or {@code origin:<value>}. The value is an IP address,
     * written canonically because origins are compared by their canonical text, or an identifier,
     * which problems quote as {@link Problems#origins} shows it.
     */
    static Scope scope(String text, Problems problems) {
        if (text.equals("all")) {
            return Scope.all();
        }
        if (text.equals("per-origin")) {
            return Scope.perOrigin();
        }
        String shown = "'" + problems.origins(text) + "'";
        if (text.startsWith("origin:")) {
            ValueSyntax.requireNoInvisible(text, shown, false);
            String origin = text.substring("origin:".length()).strip();
            if (origin.isEmpty()) {
                throw new IllegalArgumentException(
                        shown + " names no origin; expected e.g. origin:203.0.113.7 or origin:batch-job");
            }
            if (origin.indexOf('/') >= 0) {
                throw new IllegalArgumentException(shown + " is a range; origin:<value> takes one IP address or"
                        + " identifier (a rule for a range of addresses is a per-origin rule with exempt)");
            }
            // Several addresses would be one identifier that no client has: with origin = ip they
            // are refused as no address; with a header or principal origin they were taken.
            List<String> parts = List.of(origin.split("[,;|\\s]+"));
            if (parts.size() > 1 && parts.stream().allMatch(ListSeparators::isAddress)) {
                throw new IllegalArgumentException(shown + " names several addresses; origin:<value> takes one:"
                        + " write a rule for each (" + String.join(", ", parts) + ")");
            }
            String misread = ListSeparators.misreadAddress(origin);
            if (misread != null) {
                throw new IllegalArgumentException(shown + ": " + misread);
            }
            // As OriginList does: text meant as an address must not silently become an identifier
            // that no request will ever have.
            if (looksLikeAddress(origin)) {
                return Scope.origin(client(IpAddress.parse(origin), shown));
            }
            // An IPv6 address has letters too; anything else that does not parse is an identifier.
            IpAddress address;
            try {
                address = IpAddress.parse(origin);
            } catch (IllegalArgumentException notAnAddress) {
                return Scope.origin(origin);
            }
            return Scope.origin(client(address, shown));
        }
        throw new IllegalArgumentException((text.isEmpty() ? "the empty value" : shown)
                + " is not allowed; expected all, per-origin or"
                + " origin:<value>" + Spelling.didYouMean(text, List.of("all", "per-origin", "origin:")));
    }

    private static boolean looksLikeAddress(String s) {
        return s.chars().allMatch(c -> Character.isDigit(c) || c == '.' || c == ':')
                && s.chars().anyMatch(c -> c == '.' || c == ':');
    }

    private static Map<String, WindowMode> modes() {
        Map<String, WindowMode> modes = new LinkedHashMap<>(); // ordered, for "expected strict or sliding"
        modes.put("strict", WindowMode.STRICT);
        modes.put("sliding", WindowMode.SLIDING);
        return modes;
    }

    private static Map<String, Boolean> enforcement() {
        Map<String, Boolean> modes = new LinkedHashMap<>(); // ordered, for "expected enforce or shadow"
        modes.put("enforce", false);
        modes.put("shadow", true);
        return modes;
    }

    private static Map<String, Boolean> stores() {
        Map<String, Boolean> stores = new LinkedHashMap<>(); // ordered, for "expected shared or local"
        stores.put("shared", false);
        stores.put("local", true);
        return stores;
    }

    private static Map<String, OnExcess.Kind> kinds() {
        Map<String, OnExcess.Kind> kinds = new LinkedHashMap<>();
        for (OnExcess.Kind kind : OnExcess.Kind.values()) {
            kinds.put(OnExcess.name(kind), kind);
        }
        return kinds;
    }

    /** Parses a setting's value, reporting a problem under its key; null if absent or invalid. */
    private <T> T value(Setting s, Function<String, T> parse) {
        if (s == null) {
            return null;
        }
        try {
            return parse.apply(s.value());
        } catch (IllegalArgumentException e) {
            problems.add(s, e.getMessage());
            return null;
        }
    }

    private static <T> T or(T value, T otherwise) {
        return value != null ? value : otherwise;
    }
}
