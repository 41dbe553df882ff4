package dev.leapgate.config;

import dev.leapgate.internal.DurationText;
import dev.leapgate.internal.ListSeparators;
import dev.leapgate.internal.Shown;
import dev.leapgate.net.Cidr;
import dev.leapgate.net.CidrList;
import dev.leapgate.net.ClientIpResolver;
import dev.leapgate.net.ForwardingHeader;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.OriginList;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.store.FailurePolicy;
import dev.leapgate.store.StoreSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Reads Leapgate's configuration format: properties-style keys that are the same in a {@code
 * .properties} file and in the {@code <init-param>}s of a {@code web.xml}. See {@code
 * CONFIGURATION.md} for every key.
 *
 * <p>Nothing is applied until everything has been read: every problem of the input is collected
 * and thrown together in one {@link ConfigException}, each naming its line or key, the value and
 * what is allowed. Unknown keys are problems too, never ignored, so that a typo cannot quietly
 * leave a limit out. So are settings that would quietly weaken protection: a rules file with no
 * rule (unless it says {@code rules = none}), trusted proxies or exemptions that cover nearly every
 * address (unless acknowledged), exemptions and denials that can never match the configured
 * origin, and two rules that are the same rule.
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
            "allow-wide-trusted-proxies",
            "forwarded-header",
            "ipv6-prefix",
            "nat64-prefixes",
            "origin",
            "header-origin-shown",
            "exempt",
            "allow-wide-exempt",
            "deny",
            "status",
            "deny-status",
            "rate-limit-headers",
            "body",
            "rejection-log",
            "status-path",
            "status-allow",
            "status-hosts",
            "store",
            "store-key-prefix",
            "store-timeout",
            "store-on-failure",
            "store-instances");

    /**
     * The keys of the main configuration besides {@code rule.*} and {@code rules}, in documentation
     * order: what a configuration surface that names each setting (the Spring Boot starter's
     * properties) must offer.
     */
    public static List<String> settingKeys() {
        return KEYS;
    }

    /**
     * The main setting that {@code name} was probably meant to be, compared as an environment
     * variable or a relaxed binder spells keys, without dashes, underscores and case ({@code
     * TRUSTEDPROXYS} is {@code trusted-proxies}): within two edits, or a plural for a singular; null
     * if no setting is that near.
     */
    public static String nearestSettingKey(String name) {
        Objects.requireNonNull(name, "name");
        Map<String, String> bare = new LinkedHashMap<>();
        KEYS.forEach(key -> bare.put(key.replace("-", ""), key));
        String near = Spelling.nearest(name.replace("-", "").replace("_", ""), bare.keySet());
        return near == null ? null : bare.get(near);
    }

    /** The settings of a rule ({@code rule.<name>.<setting>}), in documentation order. */
    public static List<String> ruleSettingKeys() {
        return RuleReader.SETTINGS;
    }

    /** The keys a rules file may hold besides {@code rule.*}. */
    static final List<String> RULES_FILE_KEYS = List.of("rules", "exempt", "allow-wide-exempt", "deny");

    /** The settings of a map whose value is a list, where the words of a comment would be entries. */
    private static final Set<String> MAP_LISTS =
            Set.of("exempt", "deny", "trusted-proxies", "status-allow", "status-hosts");

    /** A shorter interval would poll the file system in a busy loop. */
    static final Duration MIN_RELOAD_INTERVAL = Duration.ofMillis(100);
    /** Longer is "never" in practice (write 0s), and bounds what a scheduler is handed. */
    static final Duration MAX_RELOAD_INTERVAL = Duration.ofHours(24);
    /** The shortest {@code rejection-log} interval: a line a second per rule at most. */
    static final Duration MIN_REJECTION_LOG = Duration.ofSeconds(1);

    /**
     * Blocks wider than these (IPv4 shorter than /8, IPv6 shorter than /7) cover nearly every
     * address: 10.0.0.0/8 and fc00::/7, the widest private networks, are still allowed.
     */
    static final int NARROWEST_WIDE_IPV4 = 8;

    static final int NARROWEST_WIDE_IPV6 = 7;

    private static final String BOM = "\uFEFF";

    private static final Map<String, ForwardingHeader> FORWARDED_HEADERS = ordered(
            List.of("x-forwarded-for", "forwarded", "prefer-forwarded"),
            List.of(ForwardingHeader.X_FORWARDED_FOR, ForwardingHeader.FORWARDED, ForwardingHeader.PREFER_FORWARDED));
    private static final Map<String, RateLimitHeaders> HEADERS = ordered(
            List.of("all", "rejected", "none"),
            List.of(RateLimitHeaders.ALL, RateLimitHeaders.REJECTED, RateLimitHeaders.NONE));
    private static final Map<String, Boolean> BODIES = ordered(List.of("problem", "none"), List.of(true, false));
    /** {@code store-on-failure}, of the store and of a rule ({@link RuleReader}): one spelling for both. */
    static final Map<String, FailurePolicy> FAILURE_POLICIES = ordered(
            List.of("local-share", "open", "closed"),
            List.of(FailurePolicy.LOCAL_SHARE, FailurePolicy.OPEN, FailurePolicy.CLOSED));

    private static final Map<String, Boolean> BOOLEANS = ordered(List.of("true", "false"), List.of(true, false));
    /** {@code header-origin-shown}: whether a header's values are shown as sent. */
    private static final Map<String, Boolean> ORIGIN_SHOWN =
            ordered(List.of("fingerprint", "as-sent"), List.of(false, true));

    private final Problems problems;
    private final boolean rulesFileOnly;
    private final Map<String, Setting> seen = new HashMap<>();
    private final List<Setting> ruleSettings = new ArrayList<>();

    // The main configuration as read so far; each starts at its default.
    private Path rulesFile;
    private Setting reloadSetting;
    private Duration reloadInterval = LeapgateConfig.DEFAULT_RELOAD_INTERVAL;
    private Duration rejectionLog = MonitoringSettings.DEFAULT_REJECTION_LOG;
    private String statusPath;
    private Setting statusAllowSetting;
    private CidrList statusAllow = MonitoringSettings.defaults().statusAllow();
    private Setting statusHostsSetting;
    private Set<String> statusHosts = Set.of();
    private final ClientIpResolver.Builder clientIp = ClientIpResolver.builder();
    private Setting trustedSetting;
    private CidrList trusted = CidrList.empty();
    private Setting forwardedHeaderSetting;
    private boolean allowWideProxies;
    private OriginSource origin;
    /** {@code header-origin-shown}, if given: whether a header origin's values are shown as sent. */
    private Setting headerOriginShown;

    private Setting exemptSetting;
    private Setting allowWideExemptSetting;
    private OriginList exempt = OriginList.empty();
    private boolean allowWideExempt;
    private Setting denySetting;
    private OriginList deny = OriginList.empty();
    private Setting rulesNoneSetting;
    private int status = ResponseSettings.DEFAULT_STATUS;
    private int denyStatus = ResponseSettings.DEFAULT_DENY_STATUS;
    private RateLimitHeaders headers = RateLimitHeaders.ALL;
    private boolean problemBody = true;
    private URI store;
    private String storeKeyPrefix = StoreSettings.DEFAULT_KEY_PREFIX;
    private Duration storeTimeout = StoreSettings.DEFAULT_TIMEOUT;
    private FailurePolicy storeOnFailure = FailurePolicy.LOCAL_SHARE;
    private int storeInstances;
    /** The {@code store-*} settings given, which apply only with {@code store}. */
    private final List<Setting> storeOptions = new ArrayList<>();

    /**
     * @param secretOrigins whether the origins that values name are secrets (see {@link
     *     #secretOrigins}), known before any setting is read, so that every problem quoting one shows
     *     it by its fingerprint
     */
    private ConfigParser(
            String source, boolean rulesFileOnly, String keyPrefix, OriginSource origin, boolean secretOrigins) {
        this.problems = new Problems(Objects.requireNonNull(source, "sourceName"), keyPrefix, secretOrigins);
        this.rulesFileOnly = rulesFileOnly;
        this.origin = origin;
    }

    /** Whether {@code origin}'s values are API keys, shown only by their fingerprints. */
    private static boolean secretOrigins(OriginSource origin) {
        return origin.fingerprinted();
    }

    /**
     * Whether the origin that {@code settings} (the main configuration, not yet read) give is a
     * header shown by fingerprints: its settings are looked up first, as values before them may name
     * its keys. A setting that is invalid here is reported when it is read; an invalid {@code
     * header-origin-shown} leaves the default, and an invalid {@code origin = header:...} was meant
     * as one, so its keys are not quoted either.
     */
    private static boolean secretOrigins(List<Setting> settings) {
        Setting originSetting = null;
        Setting shownSetting = null;
        for (Setting s : settings) {
            if (s.key().equals("origin") && originSetting == null) {
                originSetting = s;
            } else if (s.key().equals("header-origin-shown") && shownSetting == null) {
                shownSetting = s;
            }
        }
        try {
            if (shownSetting != null && ValueSyntax.choice(shownSetting.value(), ORIGIN_SHOWN)) {
                return false;
            }
        } catch (IllegalArgumentException reportedWhenRead) {
            // fingerprint, the default
        }
        if (originSetting == null) {
            return false;
        }
        try {
            return secretOrigins(originSource(originSetting.value(), ""));
        } catch (IllegalArgumentException reportedWhenRead) {
            return originSetting.value().startsWith("header:");
        }
    }

    /**
     * Reads the main configuration from a map, such as a filter's init-params. Keys and values are
     * trimmed (a web.xml may spread a {@code <param-name>} over lines); a null value is read as
     * empty. Two keys that are the same once trimmed are reported showing both spellings. A map has
     * no comments: a list (such as {@code exempt}) that holds one after its value is refused.
     *
     * @param sourceName what the map is, for the exception message, e.g. {@code "web.xml
     *     init-params of filter leapgate"}
     * @throws ConfigException with every problem found
     */
    public static LeapgateConfig parse(Map<String, String> settings, String sourceName) {
        return parse(settings, sourceName, "");
    }

    /**
     * As {@link #parse(Map, String)}, for keys the caller has taken a prefix off, such as the
     * JAX-RS provider's {@code leapgate.}: messages name the keys, and suggest keys, with it.
     */
    public static LeapgateConfig parse(Map<String, String> settings, String sourceName, String keyPrefix) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        List<Setting> list = new ArrayList<>();
        settings.forEach((key, value) -> {
            Objects.requireNonNull(key, "settings contains a null key");
            list.add(new Setting(key.strip(), value == null ? "" : value.strip(), 0, key));
        });
        ConfigParser parser = new ConfigParser(sourceName, false, keyPrefix, null, secretOrigins(list));
        return parser.config(list.stream().map(parser::withoutComment).toList());
    }

    /**
     * A setting of a map, with what looks like a comment after its value reported and cut off. A
     * map (init-params, Spring's .properties, a quoted YAML value) has no comments after a value: {@code exempt
     * = monitoring-key # health checks} holds the identifiers {@code #}, {@code health} and {@code
     * checks}, which would exempt any client sending one. A rules file reports the same in {@link
     * PropertiesText}, after which an escaped {@code \#} is the value's own, so the check is here,
     * on the map's values only. Lists and a rule's {@code origin:<identifier>} are checked; other
     * values refuse the words as malformed.
     */
    private Setting withoutComment(Setting s) {
        boolean list = MAP_LISTS.contains(s.key());
        boolean originScope = s.key().startsWith(RuleReader.PREFIX)
                && s.key().endsWith(".scope")
                && s.value().startsWith("origin:");
        int comment = list || originScope ? commentStart(s.value()) : -1;
        if (comment < 0) {
            return s;
        }
        boolean identifiers = s.key().equals("exempt") || s.key().equals("deny");
        problems.add(
                s,
                "'" + problems.shown(s.key(), s.value().substring(0, comment))
                        + Shown.escaped(s.value().substring(comment))
                        + "' holds what looks like a comment, but here a comment after a value is"
                        + " read into it"
                        + (identifiers
                                ? ", and its words would be identifiers that " + s.key() + " a client sending one"
                                : "")
                        + "; put the comment on a line of its own"
                        + (identifiers
                                ? " (an identifier that starts with '"
                                        + s.value().charAt(comment) + "' follows a comma without a blank, e.g. a,"
                                        + s.value().charAt(comment) + "b)"
                                : ""));
        return new Setting(s.key(), s.value().substring(0, comment).strip(), s.line(), s.written());
    }

    /**
     * Where a comment starts in a map's value: a {@code #} or {@code !} after a blank, or one that
     * is an entry of its own ({@code # none yet}, {@code a,# b}); -1 if there is none. One that
     * starts a longer entry after a comma ({@code a,#b}) is the entry's own.
     */
    private static int commentStart(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c != '#' && c != '!') {
                continue;
            }
            boolean afterBlank = i > 0 && Character.isWhitespace(value.charAt(i - 1));
            boolean alone = (i == 0 || value.charAt(i - 1) == ',')
                    && (i + 1 == value.length()
                            || Character.isWhitespace(value.charAt(i + 1))
                            || value.charAt(i + 1) == ',');
            if (afterBlank || alone) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Reads the main configuration from the text of a {@code .properties} file. Problems name
     * their line. A byte-order mark at the start of the text is skipped.
     *
     * @throws ConfigException with every problem found
     */
    public static LeapgateConfig parseProperties(String propertiesText, String sourceName) {
        Objects.requireNonNull(propertiesText, "propertiesText");
        String text = withoutBom(propertiesText);
        // Read twice: the syntax's problems quote values, and whether origins are secret is a setting.
        boolean secretOrigins = secretOrigins(PropertiesText.read(text, new Problems(sourceName, "")));
        ConfigParser parser = new ConfigParser(sourceName, false, "", null, secretOrigins);
        return parser.config(PropertiesText.read(text, parser.problems));
    }

    /**
     * Reads a rules file for an application whose origin is the client IP; see {@link
     * #parseRules(String, String, OriginSource)}.
     */
    public static RuleSet parseRules(String propertiesText, String sourceName) {
        return parseRules(propertiesText, sourceName, OriginSource.ip());
    }

    /**
     * Reads a rules file: {@code rule.<name>.<setting>}, {@code exempt}, {@code allow-wide-exempt},
     * {@code deny}, and {@code rules = none}, which says that a file without rules means it.
     * Problems name their line. A byte-order mark at the start of the text is skipped.
     *
     * @param origin who a request is from in the application, which decides what an {@code exempt}
     *     or {@code deny} entry can match
     * @throws ConfigException with every problem found
     */
    public static RuleSet parseRules(String propertiesText, String sourceName, OriginSource origin) {
        Objects.requireNonNull(propertiesText, "propertiesText");
        Objects.requireNonNull(origin, "origin");
        ConfigParser parser = new ConfigParser(sourceName, true, "", origin, secretOrigins(origin));
        List<Setting> settings = PropertiesText.read(withoutBom(propertiesText), parser.problems);
        settings.forEach(parser::take);
        RuleSet rules = parser.ruleSet();
        parser.requireRulesOrNone();
        parser.checkOriginLists();
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
     * Reads the one origin of a rule's {@code scope = origin:<origin>} as the configuration reads it,
     * with the configuration's checks, for adapters whose rules come from elsewhere (annotations):
     * an address in any spelling is kept canonical; a range, an invisible character, a name where
     * every client is an address ({@code origin = ip}) and an origin that {@code exempt} lists are
     * refused, since the rule could never apply.
     *
     * @param source who a request is from in the application ({@code origin})
     * @param exempt the origins the configuration exempts
     * @param keyPrefix what the keys are written with where the adapter reads them, e.g. {@code
     *     leapgate.}, for the messages
     * @throws IllegalArgumentException naming the value and what to write instead
     */
    public static Scope parseOriginScope(String origin, OriginSource source, OriginList exempt, String keyPrefix) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(exempt, "exempt");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        String text = "origin:" + Objects.requireNonNull(origin, "origin").strip();
        // Shown as the configuration's problems show origins: an API key by its fingerprint.
        Problems shown = new Problems("@RateLimited", keyPrefix, source.fingerprinted());
        Scope scope = RuleReader.scope(text, shown);
        if (source.kind() == OriginSource.Kind.IP && !ListSeparators.isAddress(scope.origin())) {
            throw new IllegalArgumentException(nameWhereClientsAreAddresses(shown.origins(text), keyPrefix + "origin"));
        }
        String listedAs = exemptListing(scope, source, exempt);
        if (listedAs != null) {
            throw new IllegalArgumentException(exemptedOrigin(
                    shown.origins(text), shown.origins(listedAs), shown.origins(scope.origin()), keyPrefix + "exempt"));
        }
        return scope;
    }

    /** Reads a rules file (UTF-8) for an application whose origin is the client IP. */
    public static RuleSet readRulesFile(Path file) {
        return readRulesFile(file, OriginSource.ip());
    }

    /**
     * Reads a rules file (UTF-8) as {@link #parseRules(String, String, OriginSource)} does.
     *
     * @throws ConfigException naming the file if it cannot be read, or with every problem found
     */
    public static RuleSet readRulesFile(Path file, OriginSource origin) {
        Objects.requireNonNull(file, "file");
        return parseRulesFile(file, readRulesBytes(file), origin);
    }

    /**
     * The largest rules file read, in bytes (1 MiB, some ten thousand rules). A reload reads the file
     * on a request's thread: a file that is not one (a directory, {@code /dev/zero}, a named pipe
     * that blocks until someone writes to it) or is far larger than any set of rules must be refused
     * before it can block that thread or fill the heap.
     */
    static final int MAX_RULES_FILE_BYTES = 1 << 20;

    /** A URL's or Spring resource's scheme ({@code classpath:}, {@code file:}); not a drive letter. */
    private static final java.util.regex.Pattern LOCATION_SCHEME =
            java.util.regex.Pattern.compile("[A-Za-z][A-Za-z0-9+.-]+:");

    /**
     * A rules file's bytes: a regular file (a symbolic link to one, as in a Kubernetes ConfigMap, is
     * followed) of at most {@link #MAX_RULES_FILE_BYTES}.
     *
     * @throws ConfigException naming the file if it cannot be read, or is no regular file or too large
     */
    static byte[] readRulesBytes(Path file) {
        return readFileBytes(file, "rules file", "rules-file");
    }

    /**
     * The bytes of the {@code what} ({@code rules file}) that the setting {@code setting} names: a
     * regular file of at most {@link #MAX_RULES_FILE_BYTES}, refused unopened when it is none.
     */
    private static byte[] readFileBytes(Path file, String what, String setting) {
        String problem;
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            if (attributes.isDirectory()) {
                problem = "is a directory; " + setting + " names a file";
            } else if (!attributes.isRegularFile()) {
                // Not opened at all: opening a named pipe blocks until a writer comes.
                problem = "is not a regular file (a device, a named pipe or a socket); " + setting + " names a file";
            } else if (attributes.size() > MAX_RULES_FILE_BYTES) {
                problem = tooLarge(attributes.size() + " bytes, ", what);
            } else {
                try (InputStream in = Files.newInputStream(file)) {
                    byte[] content = in.readNBytes(MAX_RULES_FILE_BYTES + 1); // it may grow while read
                    if (content.length <= MAX_RULES_FILE_BYTES) {
                        return content;
                    }
                    problem = tooLarge("", what);
                }
            }
        } catch (IOException e) {
            problem = reason(e);
        }
        throw new ConfigException(file.toString(), List.of("cannot read " + what + " " + file + ": " + problem));
    }

    private static String tooLarge(String size, String what) {
        return "is " + size + "larger than the 1 MiB (" + MAX_RULES_FILE_BYTES + " bytes) a " + what + " may have";
    }

    /** Parses the bytes read from a rules file (UTF-8) as {@link #readRulesFile} does. */
    static RuleSet parseRulesFile(Path file, byte[] content, OriginSource origin) {
        return parseRules(utf8(file, content, "rules file"), file.toString(), origin);
    }

    /** The text of the {@code what} {@code file} whose bytes are {@code content}. */
    private static String utf8(Path file, byte[] content, String what) {
        ByteBuffer bytes = ByteBuffer.wrap(content);
        CharBuffer text = CharBuffer.allocate(content.length);
        CoderResult result = StandardCharsets.UTF_8.newDecoder().decode(bytes, text, true);
        if (result.isError()) {
            // Where: a file saved in another encoding (Latin-1, Windows-1252) differs from UTF-8
            // only in a few characters, which the operator must find.
            int at = bytes.position();
            int line = 1;
            for (int i = 0; i < at; i++) {
                line += content[i] == '\n' ? 1 : 0;
            }
            throw new ConfigException(
                    file.toString(),
                    List.of("cannot read " + what + " " + file + ": not valid UTF-8 (line " + line + ", byte "
                            + String.format(java.util.Locale.ROOT, "0x%02X", content[at] & 0xFF)
                            + "); save it as UTF-8, or write the character as \\uXXXX"));
        }
        return text.flip().toString();
    }

    /**
     * Reads a {@code .properties} file (UTF-8) with every key of the main configuration, as {@link
     * #parseProperties} does. A relative path is resolved against {@code baseDirectory}, and so is a
     * relative {@code rules-file} named inside it (the JAX-RS provider's {@code leapgate.config-file}). Refused as a
     * rules file is: a directory, a file that is none (a device, a named pipe: never opened), one of
     * more than 1 MiB, or one that is not UTF-8 (with the line).
     *
     * @throws ConfigException naming the file if it cannot be read, or with every problem found
     */
    public static LeapgateConfig readConfigFile(Path file, Path baseDirectory) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(baseDirectory, "baseDirectory");
        Path resolved = baseDirectory.resolve(file);
        String what = "configuration file";
        String text = utf8(resolved, readFileBytes(resolved, what, "leapgate.config-file"), what);
        return parseProperties(text, resolved.toString()).withBaseDirectory(baseDirectory);
    }

    /**
     * The keys among {@code keys} that look like Leapgate settings but do not start with {@code
     * prefix} exactly, where an adapter reads its settings from a shared property map (the JAX-RS
     * provider's {@code leapgate.}): a near miss of the prefix ({@code leapgat.rule.a.match},
     * {@code Leapgate.status}, {@code leapgate-rule...}), or a setting written without it ({@code
     * rule.a.match}, {@code trusted-proxies}). Such a key would otherwise be silently ignored, with
     * the limit it describes. Keys of other libraries are left alone; the plain words among
     * Leapgate's keys ({@code origin}, {@code status}, {@code body}, {@code exempt}, {@code deny})
     * are too common to claim without the prefix.
     *
     * @return one problem per such key, naming it and the key meant: {@code "leapgat.rule.a.match:
     *     ..."}
     */
    public static List<String> misplacedKeys(java.util.Collection<String> keys, String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        String bare = prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix;
        List<String> problems = new ArrayList<>();
        for (String key : keys.stream().sorted().toList()) {
            if (key.startsWith(prefix)) {
                continue;
            }
            int end = 0;
            while (end < key.length() && key.charAt(end) != '.' && key.charAt(end) != '-' && key.charAt(end) != '_') {
                end++;
            }
            String head = key.substring(0, end);
            String rest = end < key.length() ? key.substring(end + 1) : "";
            boolean nearPrefix = head.length() >= bare.length() - 2
                    && (head.equalsIgnoreCase(bare)
                            || Spelling.distance(head.toLowerCase(java.util.Locale.ROOT), bare) <= 2);
            if (nearPrefix && !rest.isEmpty()) {
                problems.add(Shown.escaped(key) + ": looks like a Leapgate setting, but its prefix is not " + prefix
                        + " exactly, so it would be ignored; write " + prefix + rest);
            } else if (isDistinctiveKey(key)) {
                problems.add(Shown.escaped(key) + ": is a Leapgate setting without its prefix, so it would be ignored;"
                        + " write " + prefix + key);
            }
        }
        return problems;
    }

    /** Keys that can only be Leapgate's: a rule setting, or a main key that is not a plain word. */
    private static boolean isDistinctiveKey(String key) {
        if (key.startsWith(RuleReader.PREFIX)) {
            int dot = key.lastIndexOf('.');
            return dot > RuleReader.PREFIX.length()
                    && Spelling.nearest(key.substring(dot + 1), RuleReader.SETTINGS) != null;
        }
        return KEYS.contains(key) && key.indexOf('-') > 0;
    }

    private static String withoutBom(String text) {
        return text.startsWith(BOM) ? text.substring(1) : text;
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
        if (origin == null) {
            origin = OriginSource.ip();
        }
        if (headerOriginShown != null) {
            if (origin.kind() != OriginSource.Kind.HEADER) {
                problems.add(
                        headerOriginShown,
                        "applies only with " + problems.key("origin") + " = header:<Header-Name>, and "
                                + problems.key("origin") + " is " + origin
                                + " (whose values are shown as they are); remove it");
            } else if (ValueSyntax.choice(headerOriginShown.value(), ORIGIN_SHOWN)) {
                origin = origin.valuesShownAsSent();
            }
        }
        RuleSet rules = RuleSet.empty();
        if (rulesNoneSetting != null) {
            // Inline, rules = none says what it says in a rules file: no rule, on purpose. Given with
            // rules, one of the two is a mistake, and a reader could not tell which was meant.
            if (rulesFile != null) {
                problems.add(
                        rulesNoneSetting,
                        "says there is no rule, but " + problems.key("rules-file") + " names a file of rules ("
                                + rulesFile + "); remove one or the other (a rules file that holds no rule on"
                                + " purpose says rules = none itself)");
            } else if (!ruleSettings.isEmpty()) {
                problems.add(
                        rulesNoneSetting,
                        "says there is no rule, but " + problems.key("rule.*") + " settings are given; remove"
                                + " one or the other");
            }
        }
        if (rulesFile != null) {
            // One place for the rules: a reload replaces the file's rules, and inline ones would
            // either be lost or silently outlive it.
            if (!ruleSettings.isEmpty()) {
                problems.add(
                        ruleSettings.get(0),
                        "rules come either inline or from " + problems.key("rules-file") + ", not both; move the "
                                + problems.key("rule.*") + " settings to " + rulesFile + " or remove "
                                + problems.key("rules-file"));
            }
            for (Setting inline : new Setting[] {exemptSetting, allowWideExemptSetting, denySetting}) {
                if (inline != null) {
                    problems.add(
                            inline,
                            "with " + problems.key("rules-file") + ", " + inline.key() + " belongs in the rules file "
                                    + rulesFile + ", so that it is reloaded with the rules");
                }
            }
        } else {
            rules = ruleSet();
            if (reloadSetting != null) {
                problems.add(
                        reloadSetting,
                        "applies only with " + problems.key("rules-file") + "; without one there is nothing to reload");
            }
        }
        if (trustedSetting != null && !allowWideProxies) {
            for (Cidr block : trusted.cidrs()) {
                if (isWide(block)) {
                    problems.add(
                            trustedSetting,
                            Shown.quoted(block.toString()) + " trusts " + coverage(block) + ": any client could then"
                                    + " choose its own address with a forwarding header and escape every per-client"
                                    + " limit; list your proxies' addresses or networks, or, if they can really be"
                                    + " anywhere, say so with " + problems.key("allow-wide-trusted-proxies")
                                    + " = true");
                }
            }
        }
        boolean trustedInvalid = trustedSetting == null && seen.containsKey("trusted-proxies"); // reported
        if (forwardedHeaderSetting != null && trusted.isEmpty() && !trustedInvalid) {
            // Forwarding headers are read only from a trusted proxy: without one the header chosen
            // is never read, and behind a proxy every client counts as the proxy.
            problems.add(
                    forwardedHeaderSetting,
                    "applies only with " + problems.key("trusted-proxies") + ", and no proxy is trusted: the"
                            + " header is never read, and every request counts as from its TCP peer (behind a"
                            + " proxy, every client as the proxy, sharing its per-client limits); list your"
                            + " proxies in " + problems.key("trusted-proxies") + ", or remove "
                            + problems.key("forwarded-header"));
        }
        checkOriginLists();
        for (Setting option : new Setting[] {statusAllowSetting, statusHostsSetting}) {
            if (option != null && statusPath == null) {
                problems.add(
                        option,
                        "applies only with " + problems.key("status-path")
                                + "; without it there is no status to answer");
            }
        }
        if (store == null) {
            for (Setting option : storeOptions) {
                problems.add(
                        option,
                        "applies only with " + problems.key("store") + "; without it every rule is per instance");
            }
        }
        ResponseSettings response = new ResponseSettings(status, denyStatus, headers, problemBody);
        problems.throwIfAny();
        return new LeapgateConfig(
                rules,
                Optional.ofNullable(rulesFile),
                reloadInterval,
                clientIp.build(),
                origin,
                response,
                new MonitoringSettings(rejectionLog, Optional.ofNullable(statusPath), statusAllow, statusHosts),
                Optional.ofNullable(store)
                        .map(uri ->
                                new StoreSettings(uri, storeKeyPrefix, storeTimeout, storeOnFailure, storeInstances)),
                rulesNoneSetting != null);
    }

    /** Exemptions that cover nearly everyone, and entries that can never match the origin. */
    private void checkOriginLists() {
        if (exemptSetting != null && !allowWideExempt) {
            for (Cidr block : exempt.ranges().cidrs()) {
                if (isWide(block)) {
                    problems.add(
                            exemptSetting,
                            Shown.quoted(block.toString()) + " exempts " + coverage(block) + " from every rule;"
                                    + " list the networks to exempt, or, if that is meant, say so with "
                                    + problems.key("allow-wide-exempt") + " = true");
                }
            }
        }
        OriginSource source = origin == null ? OriginSource.ip() : origin;
        checkRulesForExemptOrigins(source);
        if (source.kind() == OriginSource.Kind.IP) {
            // A rule for one origin named by an identifier: no request will ever come from it.
            for (Setting rule : ruleSettings) {
                if (!rule.key().endsWith(".scope") || !rule.value().strip().startsWith("origin:")) {
                    continue;
                }
                Scope scope;
                try {
                    scope = RuleReader.scope(rule.value().strip(), problems);
                } catch (IllegalArgumentException reportedByTheRule) {
                    continue;
                }
                if (!ListSeparators.isAddress(scope.origin())) {
                    problems.add(
                            rule,
                            nameWhereClientsAreAddresses(
                                    problems.origins(rule.value().strip()), problems.key("origin")));
                }
            }
            for (Setting list : new Setting[] {exemptSetting, denySetting}) {
                OriginList entries = list == exemptSetting ? exempt : deny;
                if (list == null || entries.identifiers().isEmpty()) {
                    continue;
                }
                for (String id : entries.identifiers().stream().sorted().toList()) {
                    problems.add(
                            list,
                            "'" + problems.origins(id) + "' is not an IP address or block, and with "
                                    + problems.key("origin")
                                    + " = ip every client is an address, so it can never match; names are not"
                                    + " resolved: write an address, e.g. 127.0.0.1 or ::1 (identifiers apply with "
                                    + problems.key("origin") + " = header:<Name> or principal)");
                }
            }
        }
    }

    /**
     * A rule for one origin that {@code exempt} lists: an exempt origin passes every rule, so the
     * rule can never apply, and the origin it was written to limit is not limited at all.
     */
    private void checkRulesForExemptOrigins(OriginSource source) {
        if (exemptSetting == null || exempt.isEmpty()) {
            return;
        }
        for (Setting rule : ruleSettings) {
            if (!rule.key().endsWith(".scope") || !rule.value().startsWith("origin:")) {
                continue;
            }
            Scope scope;
            try {
                scope = RuleReader.scope(rule.value(), problems);
            } catch (IllegalArgumentException reportedByTheRule) {
                continue;
            }
            String listedAs = exemptListing(scope, source, exempt);
            if (listedAs != null) {
                problems.add(
                        rule,
                        exemptedOrigin(
                                problems.origins(rule.value()),
                                problems.origins(listedAs),
                                problems.origins(scope.origin()),
                                problems.key("exempt")));
            }
        }
    }

    /**
     * The entry of {@code exempt} that the origin of {@code scope} is listed as (a block holding
     * its address, or the identifier), or null; with {@code origin = ip} a name is refused on its own.
     */
    private static String exemptListing(Scope scope, OriginSource source, OriginList exempt) {
        String named = scope.origin();
        if (ListSeparators.isAddress(named)) {
            IpAddress address = IpAddress.parse(named);
            for (Cidr block : exempt.ranges().cidrs()) {
                if (block.contains(address)) {
                    return block.toString();
                }
            }
        } else if (source.kind() != OriginSource.Kind.IP && exempt.identifiers().contains(named)) {
            return named;
        }
        return null;
    }

    /**
     * Why {@code scope = <written>}, an identifier, can never apply with {@code origin = ip};
     * {@code written} as a problem shows it ({@link Problems#origins}).
     */
    private static String nameWhereClientsAreAddresses(String written, String originKey) {
        return "'" + written + "' names no IP address, and with " + originKey
                + " = ip every client is an address, so the rule can never apply; names are not"
                + " resolved: write an address, e.g. origin:203.0.113.7 (identifiers apply with " + originKey
                + " = header:<Name> or principal)";
    }

    /**
     * Why {@code scope = <written>}, naming {@code named}, which exempt lists as {@code listedAs}, can
     * never apply; each as a problem shows it ({@link Problems#origins}).
     */
    private static String exemptedOrigin(String written, String listedAs, String named, String exemptKey) {
        return "'" + written + "' names an origin that " + exemptKey + " lists (" + listedAs
                + "), and an exempt origin passes every rule, so this rule can never apply and "
                + named + " is not limited at all; to limit it, take it out of " + exemptKey
                + " (narrow or split the block), or remove the rule";
    }

    private static boolean isWide(Cidr block) {
        return block.prefixLength() < (block.isIpv4() ? NARROWEST_WIDE_IPV4 : NARROWEST_WIDE_IPV6);
    }

    private static String coverage(Cidr block) {
        return block.prefixLength() == 0
                ? "every " + (block.isIpv4() ? "IPv4" : "IPv6") + " address"
                : "nearly every " + (block.isIpv4() ? "IPv4" : "IPv6") + " address (a prefix shorter than /"
                        + (block.isIpv4() ? NARROWEST_WIDE_IPV4 : NARROWEST_WIDE_IPV6) + ")";
    }

    /** A rules file must hold a rule, or say with {@code rules = none} that it holds none on purpose. */
    private void requireRulesOrNone() {
        if (rulesNoneSetting != null) {
            if (!ruleSettings.isEmpty()) {
                problems.add(
                        rulesNoneSetting,
                        "says the file holds no rule, but it holds " + problems.key("rule.*")
                                + " settings; remove one or the other");
            }
            return;
        }
        if (ruleSettings.isEmpty()) {
            problems.add(
                    0,
                    "the file holds no rule: an empty or half-written file must not lift every limit. If it is"
                            + " meant to hold none, say so with rules = none. (Write rules files atomically: to a"
                            + " new file, then rename it over the old one.)");
        }
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
            String spellings = first.written().equals(s.written())
                    ? ""
                    : " (written " + Shown.quoted(first.written()) + " and " + Shown.quoted(s.written())
                            + ": blanks around a key do not count)";
            problems.add(s, "is set twice" + (first.line() > 0 ? "; first on line " + first.line() : "") + spellings);
            return;
        }
        if (s.key().startsWith(RuleReader.PREFIX)) {
            ruleSettings.add(s);
        } else if (rulesFileOnly && !RULES_FILE_KEYS.contains(s.key())) {
            if (KEYS.contains(s.key())) {
                problems.add(
                        s,
                        "belongs in the main configuration, not in a rules file, which holds only"
                                + " rule.<name>.<setting>, exempt, allow-wide-exempt, deny and rules = none");
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
                // A zero-width space copied along with the path failed as "no such file", the
                // path shown looking right.
                ValueSyntax.requireNoInvisible(value, true);
                if (LOCATION_SCHEME.matcher(value).lookingAt()) {
                    // Spring's way to write a location (classpath:, file:) would be read as a
                    // relative path, and fail as "no such file" without saying why.
                    throw new IllegalArgumentException("must be a path in the file system, was "
                            + ValueSyntax.shown(value)
                            + ": a rules file is read from the file system and watched for changes, so a"
                            + " classpath: resource or a URL cannot be one (write the file's path)");
                }
                rulesFile = Path.of(value);
            }
            case "rejection-log" -> {
                Duration interval = ValueSyntax.duration(value);
                if (!interval.isZero()
                        && (interval.compareTo(MIN_REJECTION_LOG) < 0 || interval.compareTo(MAX_RELOAD_INTERVAL) > 0)) {
                    throw new IllegalArgumentException("must be 0s (no lines) or between "
                            + DurationText.format(MIN_REJECTION_LOG) + " and "
                            + DurationText.format(MAX_RELOAD_INTERVAL)
                            + ", was " + ValueSyntax.shown(value));
                }
                rejectionLog = interval;
            }
            case "status-path" -> {
                String normalized = value.startsWith("/") ? dev.leapgate.http.RequestPath.normalize(value) : null;
                boolean wildcard = value.contains("*") || value.contains("{");
                if (normalized == null || !normalized.equals(value) || wildcard) {
                    // The path is compared with requests' canonical paths: a spelling that is not
                    // its own canonical form would never be asked for.
                    boolean fixable = normalized != null && !wildcard && !normalized.equals("/");
                    throw new IllegalArgumentException("must be a plain path within the application, such as"
                            + " /leapgate/status (starting with '/', no wildcards, no dot segments, no doubled or"
                            + " trailing slashes, no query, no escapes of characters that need none), was "
                            + ValueSyntax.shown(value)
                            + (fixable ? "; did you mean " + normalized + "?" : ""));
                }
                statusPath = value;
            }
            case "status-allow" -> {
                statusAllow = CidrList.parse(value);
                statusAllowSetting = s;
            }
            case "status-hosts" -> {
                statusHosts = hostNames(value);
                statusHostsSetting = s;
            }
            case "reload-interval" -> {
                Duration interval = ValueSyntax.duration(value);
                if (!interval.isZero()
                        && (interval.compareTo(MIN_RELOAD_INTERVAL) < 0
                                || interval.compareTo(MAX_RELOAD_INTERVAL) > 0)) {
                    throw new IllegalArgumentException("must be 0s (never) or between "
                            + DurationText.format(MIN_RELOAD_INTERVAL) + " and "
                            + DurationText.format(MAX_RELOAD_INTERVAL)
                            + ", was " + ValueSyntax.shown(value));
                }
                reloadInterval = interval;
                reloadSetting = s;
            }
            case "trusted-proxies" -> {
                trusted = CidrList.parse(value);
                clientIp.trustedProxies(trusted);
                trustedSetting = s;
            }
            case "allow-wide-trusted-proxies" -> allowWideProxies = ValueSyntax.choice(value, BOOLEANS);
            case "forwarded-header" -> {
                clientIp.forwardingHeader(ValueSyntax.choice(value, FORWARDED_HEADERS));
                forwardedHeaderSetting = s;
            }
            // 32..64 as ClientKey allows; checked here so the message speaks of ipv6-prefix.
            case "ipv6-prefix" -> clientIp.ipv6PrefixLength(ValueSyntax.integer(value, 32, 64));
            case "nat64-prefixes" -> clientIp.nat64Prefixes(CidrList.parse(value));
            case "origin" -> origin = originSource(value, problems.key(""));
            case "header-origin-shown" -> {
                ValueSyntax.choice(value, ORIGIN_SHOWN); // checked now, applied once origin is known
                headerOriginShown = s;
            }
            case "exempt" -> {
                exempt = originList(value);
                exemptSetting = s;
            }
            case "allow-wide-exempt" -> {
                allowWideExempt = ValueSyntax.choice(value, BOOLEANS);
                allowWideExemptSetting = s;
            }
            case "deny" -> {
                deny = originList(value);
                denySetting = s;
            }
            case "rules" -> {
                if (!value.equals("none")) {
                    throw new IllegalArgumentException(ValueSyntax.shown(value) + " is not allowed; rules = none"
                            + " says that " + (rulesFileOnly ? "the file holds" : "there is") + " no rule on"
                            + " purpose, and rules go in " + problems.key("rule.<name>.<setting>"));
                }
                rulesNoneSetting = s;
            }
            case "store" -> store = storeUri(value);
            case "store-key-prefix" -> {
                if (!StoreSettings.KEY_PREFIX.matcher(value).matches()) {
                    throw new IllegalArgumentException(
                            "must be 1 to 64 letters, digits, '_', '.', ':' or '-', was " + ValueSyntax.shown(value));
                }
                storeKeyPrefix = value;
                storeOptions.add(s);
            }
            case "store-timeout" -> {
                Duration timeout = ValueSyntax.duration(value);
                if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(StoreSettings.MAX_TIMEOUT) > 0) {
                    throw new IllegalArgumentException("must be between 1ms and "
                            + DurationText.format(StoreSettings.MAX_TIMEOUT) + ", was " + ValueSyntax.shown(value));
                }
                storeTimeout = timeout;
                storeOptions.add(s);
            }
            case "store-on-failure" -> {
                storeOnFailure = ValueSyntax.choice(value, FAILURE_POLICIES);
                storeOptions.add(s);
            }
            case "store-instances" -> {
                storeInstances = value.equals("auto") ? 0 : instances(value);
                storeOptions.add(s);
            }
            case "status" -> status = ValueSyntax.integer(value, 400, 599);
            case "deny-status" -> denyStatus = ValueSyntax.integer(value, 400, 599);
            case "rate-limit-headers" -> headers = ValueSyntax.choice(value, HEADERS);
            case "body" -> problemBody = ValueSyntax.choice(value, BODIES);
            default -> unknown(s, KEYS);
        }
    }

    /**
     * {@code exempt} or {@code deny}. With secret origins, a list that is refused is quoted with its
     * identifiers by their fingerprints: the list's own message quotes the list, and the entries that
     * are not addresses, which it reads as identifiers. The entries it refuses are those read as
     * addresses, which {@link Problems#origins} shows as written, so the list so shown gives the same
     * message, keys left out; if it does not, the entry refused holds a {@code /} (a base64 key).
     */
    private OriginList originList(String value) {
        String shown = "'" + problems.origins(value) + "'";
        ValueSyntax.requireNoInvisible(value, shown, false);
        try {
            return OriginList.parse(value);
        } catch (IllegalArgumentException e) {
            if (!problems.secretOrigins()) {
                throw e;
            }
            OriginList.parse(problems.fingerprinted(value)); // throws the same message, keys left out
            throw new IllegalArgumentException(shown + " holds an entry with a '/', which is read as an IP block,"
                    + " and is not one; an identifier cannot hold '/'");
        }
    }

    /**
     * Whether {@code name} (lower case) is a DNS host name: labels of letters, digits and inner
     * hyphens, at most 63 characters each, 253 in all; read label by label (one regular expression
     * over the whole name recursed once per label, and overflowed the stack at about 2,000).
     */
    private static boolean isHostName(String name) {
        if (name.isEmpty() || name.length() > 253) {
            return false;
        }
        for (String label : name.split("\\.", -1)) {
            if (label.length() > 63 || !label.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?")) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code status-hosts}: host names, comma-separated (lower-cased, without a trailing dot), or
     * {@code *} alone; empty for none.
     */
    private static Set<String> hostNames(String value) {
        Set<String> names = new java.util.LinkedHashSet<>();
        for (String item : value.split(",", -1)) {
            String name = item.strip().toLowerCase(Locale.ROOT);
            name = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
            if (name.isEmpty() && value.isBlank()) {
                continue;
            }
            boolean any = name.equals(MonitoringSettings.ANY_HOST);
            if (!any && !isHostName(name)) {
                throw new IllegalArgumentException("must be host names such as status.example.com, separated by"
                        + " commas, or * for any (IP addresses and localhost are always answered), was "
                        + ValueSyntax.shown(value)
                        + ": "
                        + (name.isEmpty()
                                ? "an empty name"
                                : ValueSyntax.shown(item.strip()) + (name.matches(".*:[0-9]+") ? " (no port)" : "")
                                        + " is not one"));
            }
            names.add(name);
        }
        if (names.contains(MonitoringSettings.ANY_HOST) && names.size() > 1) {
            throw new IllegalArgumentException("* (any host) stands alone, was " + ValueSyntax.shown(value));
        }
        return names;
    }

    private static int instances(String value) {
        try {
            return ValueSyntax.integer(value, 1, 10_000);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + "; or auto, to count the instances seen in the store");
        }
    }

    /** A store's URI: a scheme and a host, e.g. {@code redis://127.0.0.1:6379}. */
    private static URI storeUri(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            uri = severalIpv6Hosts(text);
            if (uri == null) {
                // Shown without its password: a password with a character a URI must escape is the
                // usual reason, and start-up errors go to the log.
                throw new IllegalArgumentException(ValueSyntax.shown(StoreSettings.withoutPassword(text))
                        + " is not a URI: " + e.getReason() + "; expected e.g. redis://127.0.0.1:6379 (a password's"
                        + " reserved characters percent-encoded)");
            }
        }
        if (uri.getScheme() == null || (uri.getHost() == null && uri.getAuthority() == null)) {
            throw new IllegalArgumentException(ValueSyntax.shown(StoreSettings.withoutPassword(text))
                    + " names no scheme and host; expected e.g. redis://127.0.0.1:6379 or rediss://redis.example:6380");
        }
        return uri;
    }

    /**
     * A URI of several hosts with IPv6 literals ({@code redis-cluster://[::1]:7000,[::1]:7001}), which
     * {@link URI} cannot read (a bracket is an IPv6 host's only, and such a host is alone), with the
     * brackets of its hosts percent-encoded ({@code %5B::1%5D:7000,...}): an authority it reads as
     * written, whose hosts the store decodes. Null if the text is not that, or still no URI.
     */
    private static URI severalIpv6Hosts(String text) {
        int start = text.indexOf("://");
        if (start < 0) {
            return null;
        }
        start += 3;
        int end = start;
        while (end < text.length() && "/?#".indexOf(text.charAt(end)) < 0) {
            end++;
        }
        String authority = text.substring(start, end);
        int hosts = authority.lastIndexOf('@') + 1;
        String hostList = authority.substring(hosts);
        if (hostList.indexOf(',') < 0 || hostList.indexOf('[') < 0) {
            return null;
        }
        try {
            return new URI(text.substring(0, start + hosts)
                    + hostList.replace("[", "%5B").replace("]", "%5D")
                    + text.substring(end));
        } catch (URISyntaxException e) {
            return null;
        }
    }

    private static OriginSource originSource(String text, String keyPrefix) {
        if (text.equals("ip")) {
            return OriginSource.ip();
        }
        if (text.equals("principal")) {
            return OriginSource.principal();
        }
        if (text.startsWith("header:")) {
            String name = text.substring("header:".length()).strip();
            if (name.isEmpty()) {
                throw new IllegalArgumentException(
                        Shown.quoted(text) + " names no header; expected e.g. header:X-Api-Key");
            }
            String forwarding = OriginSource.forwardingList(name, keyPrefix);
            if (forwarding != null) {
                // Said with the text as written (OriginSource refuses it too, for code that builds one).
                throw new IllegalArgumentException(Shown.quoted(text) + " " + forwarding);
            }
            return OriginSource.header(name);
        }
        throw new IllegalArgumentException(
                ValueSyntax.shown(text) + " is not allowed; expected ip, header:<Header-Name>" + " or principal"
                        + Spelling.didYouMean(text, List.of("ip", "principal", "header:")));
    }

    /** Reports an unknown key with the likeliest key meant, written as the user writes keys. */
    private void unknown(Setting s, List<String> keys) {
        String key = s.key();
        if (RuleReader.SETTINGS.contains(key)) {
            problems.add(
                    s,
                    "unknown key; a rule setting is written " + problems.key("rule.<name>." + key) + ", e.g. "
                            + problems.key("rule.login." + key));
            return;
        }
        String meant = meantRuleKey(key);
        if (meant != null) {
            problems.add(s, "unknown key; did you mean " + problems.key(meant) + "?");
            return;
        }
        String near = Spelling.nearest(key, keys);
        problems.add(
                s,
                near != null
                        ? "unknown key; did you mean " + problems.key(near) + "?"
                        : "unknown key; expected " + problems.key("rule.<name>.<setting>") + " or "
                                + ValueSyntax.oneOf(
                                        keys.stream().map(problems::key).toList()));
    }

    /**
     * The rule key that {@code key}, not one, was probably meant to be, or null: {@code
     * rules.login.limit} or {@code rul.login.limit} is {@code rule.login.limit}; {@code
     * rule-login.limit} and {@code rule_login.limit} (the name's dot mistyped) are too, and so is
     * {@code rulelogin.limit}; {@code rul.limit} and {@code rules.limit} are {@code
     * rule.<name>.limit}. Only a key whose last part is a rule setting (or within two edits of one)
     * is taken for a rule's, so the suggestion is one that parses once the name is filled in.
     */
    private static String meantRuleKey(String key) {
        int dot = key.indexOf('.');
        if (dot <= 0) {
            return null;
        }
        String head = key.substring(0, dot);
        String rest = key.substring(dot + 1);
        boolean nearRule = Spelling.nearest(head, List.of("rule")) != null;
        int next = rest.indexOf('.');
        if (next > 0) {
            return nearRule ? "rule." + rest : null;
        }
        String setting = RuleReader.SETTINGS.contains(rest) ? rest : Spelling.nearest(rest, RuleReader.SETTINGS);
        if (setting == null) {
            return null;
        }
        String name = head.regionMatches(true, 0, "rule", 0, 4) ? head.substring(4) : "";
        boolean separated = name.startsWith("-") || name.startsWith("_");
        if (separated) {
            name = name.substring(1);
        }
        // Not "rules.limit" as a rule named "s": a name run on without a separator is two characters or more.
        if (RuleReader.isName(name) && (separated || name.length() > 1)) {
            return "rule." + name + "." + setting;
        }
        return nearRule ? "rule.<name>." + setting : null;
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
