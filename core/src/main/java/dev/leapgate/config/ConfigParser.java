package dev.leapgate.config;

import dev.leapgate.internal.DurationText;
import dev.leapgate.net.CidrList;
import dev.leapgate.net.ClientIpResolver;
import dev.leapgate.net.ForwardingHeader;
import dev.leapgate.rule.OriginList;
import dev.leapgate.rule.RuleSet;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads Leapgate's configuration format: properties-style keys that are the same in a {@code
 * .properties} file and in the {@code <init-param>}s of a {@code web.xml}. See {@code
 * CONFIGURATION.md} for every key.
 *
 * <p>Nothing is applied until everything has been read: every problem of the input is collected
 * and thrown together in one {@link ConfigException}, each naming its line or key, the value and
 * what is allowed. Unknown keys are problems too, never ignored, so that a typo cannot quietly
 * leave a limit out.
 *
 * <p>Rules are checked in the order their names first appear, so the input's order matters: pass
 * an insertion-ordered map (a {@link LinkedHashMap}) to {@link #parse(Map, String)}.
 */
public final class ConfigParser {

    /** The keys of the main configuration, besides {@code rule.*}, in documentation order. */
    static final List<String> KEYS = List.of(
            "rules-file",
            "reload-interval",
            "trusted-proxies",
            "forwarded-header",
            "ipv6-prefix",
            "origin",
            "exempt",
            "deny",
            "status",
            "rate-limit-headers",
            "body");

    /** The keys a rules file may hold besides {@code rule.*}. */
    static final List<String> RULES_FILE_KEYS = List.of("exempt", "deny");

    /** A shorter interval would poll the file system in a busy loop. */
    static final Duration MIN_RELOAD_INTERVAL = Duration.ofMillis(100);
    /** Longer is "never" in practice (write 0s), and bounds what a scheduler is handed. */
    static final Duration MAX_RELOAD_INTERVAL = Duration.ofHours(24);

    private static final Map<String, ForwardingHeader> FORWARDED_HEADERS = ordered(
            List.of("x-forwarded-for", "forwarded", "prefer-forwarded"),
            List.of(ForwardingHeader.X_FORWARDED_FOR, ForwardingHeader.FORWARDED, ForwardingHeader.PREFER_FORWARDED));
    private static final Map<String, RateLimitHeaders> HEADERS = ordered(
            List.of("all", "rejected", "none"),
            List.of(RateLimitHeaders.ALL, RateLimitHeaders.REJECTED, RateLimitHeaders.NONE));
    private static final Map<String, Boolean> BODIES = ordered(List.of("problem", "none"), List.of(true, false));

    private final Problems problems;
    private final boolean rulesFileOnly;
    private final Map<String, Setting> seen = new HashMap<>();
    private final List<Setting> ruleSettings = new ArrayList<>();

    // The main configuration as read so far; each starts at its default.
    private Path rulesFile;
    private Setting reloadSetting;
    private Duration reloadInterval = LeapgateConfig.DEFAULT_RELOAD_INTERVAL;
    private final ClientIpResolver.Builder clientIp = ClientIpResolver.builder();
    private OriginSource origin = OriginSource.ip();
    private Setting exemptSetting;
    private OriginList exempt = OriginList.empty();
    private Setting denySetting;
    private OriginList deny = OriginList.empty();
    private int status = ResponseSettings.DEFAULT_STATUS;
    private RateLimitHeaders headers = RateLimitHeaders.ALL;
    private boolean problemBody = true;

    private ConfigParser(String source, boolean rulesFileOnly) {
        this.problems = new Problems(Objects.requireNonNull(source, "sourceName"));
        this.rulesFileOnly = rulesFileOnly;
    }

    /**
     * Reads the main configuration from a map, such as a filter's init-params. Keys and values are
     * trimmed; a null value is read as empty.
     *
     * @param sourceName what the map is, for the exception message, e.g. {@code "web.xml
     *     init-params of filter leapgate"}
     * @throws ConfigException with every problem found
     */
    public static LeapgateConfig parse(Map<String, String> settings, String sourceName) {
        Objects.requireNonNull(settings, "settings");
        ConfigParser parser = new ConfigParser(sourceName, false);
        List<Setting> list = new ArrayList<>();
        settings.forEach((key, value) -> list.add(new Setting(
                Objects.requireNonNull(key, "settings contains a null key").strip(),
                value == null ? "" : value.strip(),
                0)));
        return parser.config(list);
    }

    /**
     * Reads the main configuration from the text of a {@code .properties} file. Problems name
     * their line.
     *
     * @throws ConfigException with every problem found
     */
    public static LeapgateConfig parseProperties(String propertiesText, String sourceName) {
        Objects.requireNonNull(propertiesText, "propertiesText");
        ConfigParser parser = new ConfigParser(sourceName, false);
        return parser.config(PropertiesText.read(propertiesText, parser.problems));
    }

    /**
     * Reads a rules file: {@code rule.<name>.<setting>}, {@code exempt} and {@code deny} only.
     * Problems name their line.
     *
     * @throws ConfigException with every problem found
     */
    public static RuleSet parseRules(String propertiesText, String sourceName) {
        Objects.requireNonNull(propertiesText, "propertiesText");
        ConfigParser parser = new ConfigParser(sourceName, true);
        List<Setting> settings = PropertiesText.read(propertiesText, parser.problems);
        settings.forEach(parser::take);
        RuleSet rules = parser.ruleSet();
        parser.problems.throwIfAny();
        return rules;
    }

    /**
     * Reads a duration as the configuration writes it: a whole number and a unit {@code ms},
     * {@code s}, {@code m} or {@code h}, e.g. {@code 250ms}, {@code 10s}, {@code 1m}, {@code 24h}.
     * For adapters whose settings come from elsewhere (annotations) but share the syntax.
     *
     * @throws IllegalArgumentException naming the text and the expected form
     */
    public static Duration parseDuration(String text) {
        return ValueSyntax.duration(Objects.requireNonNull(text, "text").strip());
    }

    /**
     * Reads a rules file (UTF-8) as {@link #parseRules} does.
     *
     * @throws ConfigException naming the file if it cannot be read, or with every problem found
     */
    public static RuleSet readRulesFile(Path file) {
        Objects.requireNonNull(file, "file");
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException(file.toString(), List.of("cannot read rules file " + file + ": " + reason(e)));
        }
        return parseRules(text, file.toString());
    }

    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "access denied";
        }
        if (e instanceof MalformedInputException) {
            return "not valid UTF-8";
        }
        return e.toString();
    }

    private LeapgateConfig config(List<Setting> settings) {
        settings.forEach(this::take);
        RuleSet rules = RuleSet.empty();
        if (rulesFile != null) {
            // One place for the rules: a reload replaces the file's rules, and inline ones would
            // either be lost or silently outlive it.
            if (!ruleSettings.isEmpty()) {
                problems.add(
                        ruleSettings.get(0),
                        "rules come either inline or from rules-file, not both; move the rule.* settings to "
                                + rulesFile + " or remove rules-file");
            }
            for (Setting inline : new Setting[] {exemptSetting, denySetting}) {
                if (inline != null) {
                    problems.add(
                            inline,
                            "with rules-file, " + inline.key() + " belongs in the rules file " + rulesFile
                                    + ", so that it is reloaded with the rules");
                }
            }
        } else {
            rules = ruleSet();
            if (reloadSetting != null) {
                problems.add(reloadSetting, "applies only with rules-file; without one there is nothing to reload");
            }
        }
        ResponseSettings response = new ResponseSettings(status, headers, problemBody);
        problems.throwIfAny();
        return new LeapgateConfig(
                rules, Optional.ofNullable(rulesFile), reloadInterval, clientIp.build(), origin, response);
    }

    private RuleSet ruleSet() {
        RuleReader reader = new RuleReader(problems);
        ruleSettings.forEach(reader::add);
        return new RuleSet(reader.rules(), exempt, deny);
    }

    /** Sorts one setting: a rule's (read later, once it is known whether rules are allowed), or not. */
    private void take(Setting s) {
        Setting first = seen.putIfAbsent(s.key(), s);
        if (first != null) {
            // A properties file keeps the last of two; one of them is a mistake either way.
            problems.add(s, "is set twice" + (first.line() > 0 ? "; first on line " + first.line() : ""));
            return;
        }
        if (s.key().startsWith(RuleReader.PREFIX)) {
            ruleSettings.add(s);
        } else if (rulesFileOnly && !RULES_FILE_KEYS.contains(s.key())) {
            if (KEYS.contains(s.key())) {
                problems.add(
                        s,
                        "belongs in the main configuration, not in a rules file, which holds only"
                                + " rule.<name>.<setting>, exempt and deny");
            } else {
                unknown(s, RULES_FILE_KEYS);
            }
        } else {
            try {
                read(s);
            } catch (IllegalArgumentException e) {
                problems.add(s, e.getMessage());
            }
        }
    }

    private void read(Setting s) {
        String value = s.value();
        switch (s.key()) {
            case "rules-file" -> {
                if (value.isEmpty()) {
                    throw new IllegalArgumentException("the empty value is not a file path");
                }
                rulesFile = Path.of(value);
            }
            case "reload-interval" -> {
                Duration interval = ValueSyntax.duration(value);
                if (!interval.isZero()
                        && (interval.compareTo(MIN_RELOAD_INTERVAL) < 0
                                || interval.compareTo(MAX_RELOAD_INTERVAL) > 0)) {
                    throw new IllegalArgumentException("must be 0s (never) or between "
                            + DurationText.format(MIN_RELOAD_INTERVAL) + " and "
                            + DurationText.format(MAX_RELOAD_INTERVAL)
                            + ", was " + value);
                }
                reloadInterval = interval;
                reloadSetting = s;
            }
            case "trusted-proxies" -> clientIp.trustedProxies(CidrList.parse(value));
            case "forwarded-header" -> clientIp.forwardingHeader(ValueSyntax.choice(value, FORWARDED_HEADERS));
            // 32..64 as ClientKey allows; checked here so the message speaks of ipv6-prefix.
            case "ipv6-prefix" -> clientIp.ipv6PrefixLength(ValueSyntax.integer(value, 32, 64));
            case "origin" -> origin = originSource(value);
            case "exempt" -> {
                exempt = OriginList.parse(value);
                exemptSetting = s;
            }
            case "deny" -> {
                deny = OriginList.parse(value);
                denySetting = s;
            }
            case "status" -> status = ValueSyntax.integer(value, 400, 599);
            case "rate-limit-headers" -> headers = ValueSyntax.choice(value, HEADERS);
            case "body" -> problemBody = ValueSyntax.choice(value, BODIES);
            default -> unknown(s, KEYS);
        }
    }

    private static OriginSource originSource(String text) {
        if (text.equals("ip")) {
            return OriginSource.ip();
        }
        if (text.equals("principal")) {
            return OriginSource.principal();
        }
        if (text.startsWith("header:")) {
            String name = text.substring("header:".length()).strip();
            if (name.isEmpty()) {
                throw new IllegalArgumentException("'" + text + "' names no header; expected e.g. header:X-Api-Key");
            }
            return OriginSource.header(name);
        }
        throw new IllegalArgumentException(
                ValueSyntax.shown(text) + " is not allowed; expected ip, header:<Header-Name>" + " or principal"
                        + Spelling.didYouMean(text, List.of("ip", "principal", "header:")));
    }

    /** Reports an unknown key with the likeliest key meant. */
    private void unknown(Setting s, List<String> keys) {
        String key = s.key();
        if (RuleReader.SETTINGS.contains(key)) {
            problems.add(s, "unknown key; a rule setting is written rule.<name>." + key + ", e.g. rule.login." + key);
            return;
        }
        int dot = key.indexOf('.');
        if (dot > 0 && Spelling.nearest(key.substring(0, dot), List.of("rule")) != null) {
            problems.add(s, "unknown key; did you mean rule." + key.substring(dot + 1) + "?");
            return;
        }
        String near = Spelling.nearest(key, keys);
        problems.add(
                s,
                near != null
                        ? "unknown key; did you mean " + near + "?"
                        : "unknown key; expected rule.<name>.<setting> or " + ValueSyntax.oneOf(keys));
    }

    /** The spellings of a choice mapped to their values, in the order messages list them. */
    private static <T> Map<String, T> ordered(List<String> names, List<T> values) {
        Map<String, T> map = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            map.put(names.get(i), values.get(i));
        }
        return map;
    }
}
