package dev.leapgate.boot;

import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.LeapgateConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Leapgate's settings as Spring Boot properties under leapgate.: the same keys, values and
 * defaults as the servlet filter's init-params and the rules files (see the README's configuration
 * reference and CONFIGURATION.md), rules as a map by name (leapgate.rule.login.limit).
 * Values are kept as written and checked by Leapgate's own configuration reader, so that a mistake
 * gets the same message on every surface, naming the property and the value. An unknown key under
 * leapgate. fails the start (a misspelt setting must not be silently ignored).
 */
@ConfigurationProperties(prefix = "leapgate", ignoreUnknownFields = false)
public class LeapgateProperties {

    static final String SOURCE = "Spring properties leapgate.*";

    static final String PREFIX = "leapgate.";

    private static final ConfigurationPropertyName LEAPGATE = ConfigurationPropertyName.of("leapgate");

    private static final ConfigurationPropertyName RULES = ConfigurationPropertyName.of("leapgate.rule");

    private static final ConfigurationPropertyName FILTER_ORDER = ConfigurationPropertyName.of("leapgate.filter-order");

    /** The Spring filter order of Leapgate's filter: by default just before Spring Security's. */
    public static final int DEFAULT_FILTER_ORDER = -110;

    /** Whether Leapgate protects the application (its filter and gate are set up). */
    private boolean enabled = true;

    /**
     * Where Leapgate's filter runs among the servlet filters (lower runs first). The default runs
     * it before Spring Security's filter chain (order -100), so that a flood is limited before any
     * authentication work; with origin = principal (limits per authenticated user) the default runs
     * it just after Spring Security's chain (spring.security.filter.order + 1, so -99), where the
     * user is known.
     */
    private int filterOrder = DEFAULT_FILTER_ORDER;

    /**
     * A properties file holding the rule.*, exempt, allow-wide-exempt and
     * deny keys, reloaded when it changes; a relative path is resolved against the working
     * directory. With it, those keys must not be given as properties.
     */
    private String rulesFile;

    /** How often the rules file is checked for changes, lazily on the request path; 0s never. Default 5s. */
    private String reloadInterval;

    /** CIDR blocks and addresses of proxies whose forwarding headers are believed. Default: none. */
    private String trustedProxies;

    /** Allows trusted-proxies blocks wider than /8 (IPv4) or /7 (IPv6). Default false. */
    private String allowWideTrustedProxies;

    /**
     * The header the trusted proxies write: x-forwarded-for (default), forwarded or prefer-forwarded.
     * Only with trusted-proxies.
     */
    private String forwardedHeader;

    /** IPv6 clients are grouped by this prefix length, 32 to 64. Default 64. */
    private String ipv6Prefix;

    /**
     * IPv6 /96 prefixes in which a translator (NAT64, SIIT-DC) writes IPv4 clients, besides the
     * well-known 64:ff9b::/96: each such client is counted as its IPv4 address. Default none.
     */
    private String nat64Prefixes;

    /** Who a request is from: ip (default), header:<Name> or principal. */
    private String origin;

    /**
     * How the status and the rejection log show a header origin's values: fingerprint (default:
     * sha256: and 12 hex digits, as for an API key) or as-sent. Only with origin = header:<Name>.
     */
    private String headerOriginShown;

    /** Origins no rule applies to: CIDR blocks and addresses (identifiers with origin header: or principal). */
    private String exempt;

    /** Allows exempt blocks wider than /8 (IPv4) or /7 (IPv6). Default false. */
    private String allowWideExempt;

    /** Origins refused on every request, with deny-status. */
    private String deny;

    /** Status code of a rejection by a rule, 400 to 599. Default 429. (Not of a request a shared store could not decide under store-on-failure closed: 503.) */
    private String status;

    /** Status code for a denied origin, 400 to 599. Default 403. */
    private String denyStatus;

    /** RateLimit-Policy/RateLimit on every response (all, the default), only on rejections (rejected), or none. */
    private String rateLimitHeaders;

    /** The body of a rejection: problem (RFC 9457 JSON, the default) or none. */
    private String body;

    /** At most one log line per rule and interval about its rejections; 0s none. Default 10s. */
    private String rejectionLog;

    /** A path at which the gate's status is answered (a live page to a browser, JSON otherwise). Default: none. */
    private String statusPath;

    /** Who gets the status: CIDR blocks and addresses of the TCP peer. Default 127.0.0.0/8, ::1. */
    private String statusAllow;

    /**
     * Host names the status is answered to besides IP addresses and localhost, as a request's Host
     * names them (a page that DNS rebinding points at this server names its own), comma-separated;
     * * for any. Default: none. Only with status-path.
     */
    private String statusHosts;

    /** Where the shared windows are, e.g. redis://127.0.0.1:6379 (needs leapgate-redis). Default: none, every rule per instance. */
    private String store;

    /** The prefix of every key written to the store. Default leapgate. */
    private String storeKeyPrefix;

    /** The most a decision waits for the store before the failure policy decides. Default 50ms. */
    private String storeTimeout;

    /**
     * What a shared rule does while the store cannot decide: local-share (default), open or closed;
     * a rule's own leapgate.rule.<name>.store-on-failure overrides it.
     */
    private String storeOnFailure;

    /** The instances sharing the store, for local-share: a count, or auto (default) to count those seen in the store. */
    private String storeInstances;

    /**
     * none: there is no rule on purpose, as a rules file says it. Refused together with
     * leapgate.rule.* or leapgate.rules-file (a rules file that holds no rule says rules = none
     * itself). Properties without any rule are accepted without it too (the gate then limits
     * nothing).
     */
    private String rules;

    /** The rules, by name: leapgate.rule.<name>.<setting>. */
    private Map<String, Rule> rule = new LinkedHashMap<>();

    /** One rule's settings; see the README's rule settings. */
    public static class Rule {
        /** The requests it applies to: [METHOD] /path/pattern, e.g. POST /login. */
        private String match;
        /** Requests per window, N/duration, e.g. 5/1m. */
        private String limit;
        /** Requests in flight at once, instead of a limit per window. */
        private String inFlight;
        /** Buckets of the window, 1 to 1000. Default 10. */
        private String buckets;
        /** strict (default: no span of the window holds more than the limit) or sliding. */
        private String window;
        /** all (default), per-origin, or origin:<value>. */
        private String scope;
        /** reject (default), pace, warm-up, warm-up-pace or borrow. */
        private String onExcess;
        /** Longest a paced request may wait for its turn. Default 500ms. */
        private String maxQueue;
        /** How much slower than the limit a cold rule starts (warm-up). Default 3. */
        private String coldFactor;
        /** How long a cold rule takes to reach its limit (warm-up). Default 10s. */
        private String warmUp;
        /** Longest a borrowing request may wait for the next bucket. Default 500ms. */
        private String maxWait;
        /** The most clients a per-origin rule tracks at once. Default 100000. */
        private String maxOrigins;
        /** enforce (default) or shadow: decide and count, never reject. */
        private String mode;
        /** shared (default: in the configured store, if any) or local (per instance). */
        private String store;
        /**
         * What this shared rule does while the store cannot decide: local-share, open or closed.
         * Default: leapgate.store-on-failure.
         */
        private String storeOnFailure;

        public String getMatch() {
            return match;
        }

        public void setMatch(String match) {
            this.match = match;
        }

        public String getLimit() {
            return limit;
        }

        public void setLimit(String limit) {
            this.limit = limit;
        }

        public String getInFlight() {
            return inFlight;
        }

        public void setInFlight(String inFlight) {
            this.inFlight = inFlight;
        }

        public String getBuckets() {
            return buckets;
        }

        public void setBuckets(String buckets) {
            this.buckets = buckets;
        }

        public String getWindow() {
            return window;
        }

        public void setWindow(String window) {
            this.window = window;
        }

        public String getScope() {
            return scope;
        }

        public void setScope(String scope) {
            this.scope = scope;
        }

        public String getOnExcess() {
            return onExcess;
        }

        public void setOnExcess(String onExcess) {
            this.onExcess = onExcess;
        }

        public String getMaxQueue() {
            return maxQueue;
        }

        public void setMaxQueue(String maxQueue) {
            this.maxQueue = maxQueue;
        }

        public String getColdFactor() {
            return coldFactor;
        }

        public void setColdFactor(String coldFactor) {
            this.coldFactor = coldFactor;
        }

        public String getWarmUp() {
            return warmUp;
        }

        public void setWarmUp(String warmUp) {
            this.warmUp = warmUp;
        }

        public String getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(String maxWait) {
            this.maxWait = maxWait;
        }

        public String getMaxOrigins() {
            return maxOrigins;
        }

        public void setMaxOrigins(String maxOrigins) {
            this.maxOrigins = maxOrigins;
        }

        public String getMode() {
            return mode;
        }

        public void setMode(String mode) {
            this.mode = mode;
        }

        public String getStore() {
            return store;
        }

        public void setStore(String store) {
            this.store = store;
        }

        public String getStoreOnFailure() {
            return storeOnFailure;
        }

        public void setStoreOnFailure(String storeOnFailure) {
            this.storeOnFailure = storeOnFailure;
        }

        /** The rule's settings by their key, in-flight, ..., those set only. */
        Map<String, String> settings() {
            Map<String, String> settings = new LinkedHashMap<>();
            put(settings, "match", match);
            put(settings, "limit", limit);
            put(settings, "in-flight", inFlight);
            put(settings, "buckets", buckets);
            put(settings, "window", window);
            put(settings, "scope", scope);
            put(settings, "on-excess", onExcess);
            put(settings, "max-queue", maxQueue);
            put(settings, "cold-factor", coldFactor);
            put(settings, "warm-up", warmUp);
            put(settings, "max-wait", maxWait);
            put(settings, "max-origins", maxOrigins);
            put(settings, "mode", mode);
            put(settings, "store", store);
            put(settings, "store-on-failure", storeOnFailure);
            return settings;
        }
    }

    /** The settings as Leapgate's keys (trusted-proxies, rule.login.limit, ...), those set only. */
    Map<String, String> settings() {
        Map<String, String> settings = new LinkedHashMap<>();
        put(settings, "rules-file", rulesFile);
        put(settings, "reload-interval", reloadInterval);
        put(settings, "trusted-proxies", trustedProxies);
        put(settings, "allow-wide-trusted-proxies", allowWideTrustedProxies);
        put(settings, "forwarded-header", forwardedHeader);
        put(settings, "ipv6-prefix", ipv6Prefix);
        put(settings, "nat64-prefixes", nat64Prefixes);
        put(settings, "origin", origin);
        put(settings, "header-origin-shown", headerOriginShown);
        put(settings, "exempt", exempt);
        put(settings, "allow-wide-exempt", allowWideExempt);
        put(settings, "deny", deny);
        put(settings, "status", status);
        put(settings, "deny-status", denyStatus);
        put(settings, "rate-limit-headers", rateLimitHeaders);
        put(settings, "body", body);
        put(settings, "rejection-log", rejectionLog);
        put(settings, "status-path", statusPath);
        put(settings, "status-allow", statusAllow);
        put(settings, "status-hosts", statusHosts);
        put(settings, "store", store);
        put(settings, "store-key-prefix", storeKeyPrefix);
        put(settings, "store-timeout", storeTimeout);
        put(settings, "store-on-failure", storeOnFailure);
        put(settings, "store-instances", storeInstances);
        put(settings, "rules", rules);
        rulesByName()
                .forEach((name, r) ->
                        r.settings().forEach((key, value) -> settings.put("rule." + name + "." + key, value)));
        return settings;
    }

    /**
     * The rules by name, without the copy that Boot's relaxed binding makes of a rule whose name
     * has dashes when an environment variable sets one of its settings. An environment variable
     * spells the name without dashes (LEAPGATE_RULE_APIPERIP_LIMIT for the rule api-per-ip of
     * application.yml); Boot compares property names ignoring dashes, so it binds the same
     * properties under both map keys, api-per-ip and apiperip: the second is a copy of the first,
     * not a rule of its own, and is dropped. Keys that differ otherwise (in case) stay, for the
     * reader to report.
     */
    private Map<String, Rule> rulesByName() {
        Map<String, Rule> rules = new LinkedHashMap<>(rule);
        for (String name : rule.keySet()) {
            boolean copy = rule.keySet().stream()
                    .anyMatch(other -> other.indexOf('-') >= 0
                            && other.equals(other.toLowerCase(Locale.ROOT))
                            && other.replace("-", "").equals(name)
                            && rule.get(other).settings().equals(rule.get(name).settings()));
            if (copy) {
                rules.remove(name);
            }
        }
        return rules;
    }

    /**
     * The configuration these properties describe, checked by Leapgate's reader, and, for the bean
     * Boot binds, with every check of the starter's own gate ({@link #toConfig(Iterable)}: an
     * application that builds its own gate from them gets what the starter's gate gets, an
     * environment variable overriding a rule named {@code Login} included).
     *
     * @throws dev.leapgate.config.ConfigException with every problem, each naming its leapgate. property
     */
    public LeapgateConfig toConfig() {
        Environment bound = environment;
        if (bound != null) {
            return toConfig(ConfigurationPropertySources.get(bound));
        }
        read = true;
        return ConfigParser.parse(settings(), SOURCE, PREFIX);
    }

    /** The environment the bean was bound from; null for properties made in code. Not a property. */
    private volatile Environment environment;

    /**
     * Given the environment by Spring when it makes the bean (not a {@code set} method: Boot's
     * binder would take one for a property).
     */
    @Autowired(required = false)
    void useEnvironment(Environment environment) {
        this.environment = environment;
    }

    /**
     * Whether a configuration was made of these properties ({@link #toConfig}): the starter's gate,
     * or an application's own built from them. Not a property.
     */
    private volatile boolean read;

    boolean read() {
        return read;
    }

    /**
     * As {@link #toConfig()}, for properties bound from {@code sources} (the environment's, as the
     * starter binds them), which tell what Boot's binding does not: where each value was written.
     * Refused besides the reader's problems: a Leapgate setting outside leapgate., which nothing
     * binds; a setting written twice in one file in spellings Boot reads as one; two rules whose
     * names, written in files, differ only in dashes, underscores or case; a list given beside one
     * value of its setting (a profile's list over the main file's value), which Boot drops; a value of
     * application.yml that YAML 1.1 read as another number or as a boolean from another word than
     * true or false, or a rule name YAML read so ({@link WrittenYaml}; the reader is given a value's
     * text as written); an environment variable or JVM system property of Leapgate's that binds to
     * nothing, which Boot does not report ({@link #ignoredInEnvironment}). The copy Boot
     * binds of a rule under the name an environment variable spells it with is left out.
     *
     * @throws ConfigException with every problem, each naming its leapgate. property
     */
    LeapgateConfig toConfig(Iterable<ConfigurationPropertySource> sources) {
        read = true;
        List<String> problems = misplacedKeys(sources);
        problems.addAll(ignoredInEnvironment(sources));
        problems.addAll(listsBesideOneValue(sources));
        problems.addAll(settingsWrittenTwice(sources));
        Set<String> written = ruleNamesWritten(sources);
        problems.addAll(rulesSharingSettings(written));
        problems.addAll(WrittenYaml.misreadRuleNames(sources));
        Map<String, String> settings = settings();
        // The copy Boot binds of a rule whose name an environment variable spells in its own way
        // (LEAPGATE_RULE_APIOTHER_LIMIT for api_other, LEAPGATE_RULE_LOGIN_LIMIT for Login): the
        // rule itself has the variable's setting.
        for (String name : rule.keySet()) {
            if (!written.contains(name)
                    && written.stream().anyMatch(w -> relaxed(w).equals(relaxed(name)))) {
                settings.keySet().removeIf(key -> key.startsWith("rule." + name + "."));
            }
        }
        for (Map.Entry<String, String> setting : settings.entrySet()) {
            ConfigurationProperty property =
                    WrittenYaml.effective(sources, ConfigurationPropertyName.adapt(PREFIX + setting.getKey(), '.'));
            String misread = property == null ? null : WrittenYaml.misread(PREFIX + setting.getKey(), property);
            if (misread != null) {
                problems.add(misread);
                setting.setValue(WrittenYaml.written(property));
            }
        }
        // Bound by Boot as a number, never read by Leapgate's reader.
        ConfigurationProperty filterOrder = WrittenYaml.effective(sources, FILTER_ORDER);
        String misread = filterOrder == null ? null : WrittenYaml.misread(FILTER_ORDER.toString(), filterOrder);
        if (misread != null) {
            problems.add(misread);
        }
        try {
            LeapgateConfig config = ConfigParser.parse(settings, SOURCE, PREFIX);
            if (problems.isEmpty()) {
                return config;
            }
        } catch (ConfigException e) {
            if (problems.isEmpty()) {
                throw e;
            }
            problems.addAll(e.problems());
        }
        throw new ConfigException(SOURCE, problems);
    }

    /**
     * Leapgate settings outside leapgate., which nothing binds: a near miss of the prefix
     * (leapgte.rule.login.match) or a setting without it (rule.login.match, as in a rules file).
     * Ignored, they would leave the application without the protection they describe, or without
     * any. Environment variables are left alone (a process has many, of every program); a prefix
     * that Boot binds as leapgate. (Leapgate, LEAPGATE) is Leapgate's.
     */
    private static List<String> misplacedKeys(Iterable<ConfigurationPropertySource> sources) {
        Set<String> keys = new LinkedHashSet<>();
        for (ConfigurationPropertySource source : sources) {
            if (source.getUnderlyingSource() instanceof EnumerablePropertySource<?> enumerable
                    && !(enumerable instanceof SystemEnvironmentPropertySource)) {
                for (String key : enumerable.getPropertyNames()) {
                    ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
                    if (!LEAPGATE.isAncestorOf(name) && !LEAPGATE.equals(name)) {
                        keys.add(key);
                    }
                }
            }
        }
        // A Boot application's properties are its own too, and some may be named as Leapgate's
        // are (its rule.discount.limit, its status-path): a failed start they could not avoid. A
        // setting without the prefix is reported only as part of a rule, one with a match (which
        // every Leapgate rule has), as when rules are copied from a rules file; a misspelt prefix
        // is always reported.
        keys.removeIf(key -> ConfigParser.settingKeys().contains(key)
                || key.startsWith("rule.")
                        && !keys.contains(key.substring(0, Math.max(key.lastIndexOf('.'), 0)) + ".match"));
        return new ArrayList<>(ConfigParser.misplacedKeys(keys, PREFIX));
    }

    /**
     * Leapgate's settings in environment variables and JVM system properties that bind to nothing:
     * Boot leaves these two sources out when it looks for properties left unbound
     * (ignoreUnknownFields = false), and drops them without a word, so a misspelt override
     * (LEAPGATE_RULE_LOGIN_LIMT) left the limit as it was, and a list (LEAPGATE_DENY_0_, as Boot
     * writes a list there) denied no one. Only names that are Leapgate's are reported: a rule's
     * (leapgate.rule.*), those that begin with a setting's name, and those within two edits of one
     * (LEAPGATE_TRUSTEDPROXYS, reported with the setting meant); another program's variable that
     * shares the prefix (LEAPGATE_REDIS_SERVER) is left alone.
     */
    private List<String> ignoredInEnvironment(Iterable<ConfigurationPropertySource> sources) {
        Set<String> bound = new LinkedHashSet<>();
        List<String> settings = new ArrayList<>(ConfigParser.settingKeys());
        settings.addAll(List.of("enabled", "filter-order", "rules"));
        settings.forEach(key -> bound.addAll(uniformForms(PREFIX + key)));
        for (String name : rule.keySet()) {
            ConfigParser.ruleSettingKeys()
                    .forEach(key -> bound.addAll(uniformForms(PREFIX + "rule." + name + "." + key)));
        }
        Set<String> settingNames = new LinkedHashSet<>();
        settings.forEach(key -> settingNames.add(uniform(key)));
        List<String> problems = new ArrayList<>();
        for (ConfigurationPropertySource source : sources) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)
                    || !(source.getUnderlyingSource() instanceof PropertySource<?> underlying)
                    || !SYSTEM_SOURCES.contains(underlying.getName())) {
                continue;
            }
            iterable.stream()
                    .filter(LEAPGATE::isAncestorOf)
                    .filter(name -> !bound.contains(uniform(name)))
                    .forEach(name -> {
                        StringBuilder head = new StringBuilder();
                        for (int i = 1; i < name.getNumberOfElements() && !name.isNumericIndex(i); i++) {
                            head.append(name.getElement(i, ConfigurationPropertyName.Form.UNIFORM));
                        }
                        boolean ofRule = RULES.isAncestorOf(name);
                        String meant = ofRule || settingNames.contains(head.toString())
                                ? null
                                : ConfigParser.nearestSettingKey(head.toString());
                        if (!ofRule && !settingNames.contains(head.toString()) && meant == null) {
                            return; // not Leapgate's, though it shares the prefix
                        }
                        ConfigurationProperty property = iterable.getConfigurationProperty(name);
                        String where = property == null || property.getOrigin() == null
                                ? ""
                                : " (" + property.getOrigin() + ")";
                        problems.add(name + where + ": sets no Leapgate setting, so Spring Boot would ignore it"
                                + (ofRule
                                        ? "; a rule's settings are leapgate.rule.<name>."
                                                + String.join(", ", ConfigParser.ruleSettingKeys())
                                                + " (in an environment variable without dashes:"
                                                + " LEAPGATE_RULE_<NAME>_INFLIGHT)"
                                        : meant != null
                                                ? "; did you mean " + PREFIX + meant + " ("
                                                        + (PREFIX + meant)
                                                                .replace("-", "")
                                                                .replace('.', '_')
                                                                .toUpperCase(Locale.ROOT)
                                                        + " in an environment variable)?"
                                                : "; every setting takes one value: a list's entries go in"
                                                        + " that one value, separated by commas"));
                    });
        }
        return problems;
    }

    /**
     * Lists (YAML items, or indexed properties) given for a setting that is also given one value,
     * such as a profile's deny list over the main file's one address: Boot binds the one value and
     * leaves the list's entries out of its check for unbound properties, so they were dropped
     * without a word. A list alone already fails the binding ({@link LeapgateListFailureAnalyzer},
     * whose explanation this gives); environment variables and JVM system properties are {@link
     * #ignoredInEnvironment}'s. A rule's name is a map key, not an index, also when YAML reads it as
     * a number (a rule 8: is leapgate.rule[8]).
     */
    private static List<String> listsBesideOneValue(Iterable<ConfigurationPropertySource> sources) {
        List<String> problems = new ArrayList<>();
        for (ConfigurationPropertySource source : sources) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)
                    || !(source.getUnderlyingSource() instanceof PropertySource<?> underlying)
                    || SYSTEM_SOURCES.contains(underlying.getName())) {
                continue;
            }
            Map<ConfigurationPropertyName, List<ConfigurationProperty>> lists = new LinkedHashMap<>();
            iterable.stream().filter(LEAPGATE::isAncestorOf).forEach(name -> {
                for (int i = RULES.isAncestorOf(name) ? 3 : 1; i < name.getNumberOfElements(); i++) {
                    if (name.isNumericIndex(i)) {
                        lists.computeIfAbsent(name.chop(i), setting -> new ArrayList<>())
                                .add(iterable.getConfigurationProperty(name));
                        return;
                    }
                }
            });
            lists.forEach((setting, elements) -> problems.add(LeapgateListFailureAnalyzer.problem(setting, elements)));
        }
        return problems;
    }

    /** Where Boot does not look for properties left unbound: environment variables, JVM system properties. */
    private static final Set<String> SYSTEM_SOURCES = Set.of(
            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
            StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);

    /**
     * A property's name as Boot compares names, and as an environment variable may write it with
     * an underscore for each dash (LEAPGATE_RULE_API_PER_IP_LIMIT, which Boot reads as
     * leapgate.rule.api.per.ip.limit and binds to leapgate.rule.api-per-ip.limit).
     */
    private static Set<String> uniformForms(String key) {
        return new LinkedHashSet<>(List.of(
                uniform(ConfigurationPropertyName.adapt(key, '.')),
                uniform(ConfigurationPropertyName.adapt(key.replace('-', '.').replace('_', '.'), '.'))));
    }

    private static String uniform(ConfigurationPropertyName name) {
        List<String> elements = new ArrayList<>();
        for (int i = 0; i < name.getNumberOfElements(); i++) {
            elements.add(name.getElement(i, ConfigurationPropertyName.Form.UNIFORM));
        }
        return String.join(".", elements);
    }

    private static String uniform(String key) {
        return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }

    /**
     * Settings written twice in one file (one property source), in spellings Boot reads as one
     * property (trusted-proxies and trustedProxies, limit and LIMIT): it takes one of the values
     * and ignores the other. A rule's name spelled two ways is {@link #rulesSharingSettings}'s.
     */
    private static List<String> settingsWrittenTwice(Iterable<ConfigurationPropertySource> sources) {
        List<String> problems = new ArrayList<>();
        for (ConfigurationPropertySource source : sources) {
            if (!(source.getUnderlyingSource() instanceof EnumerablePropertySource<?> enumerable)
                    || enumerable instanceof SystemEnvironmentPropertySource) {
                continue;
            }
            Map<ConfigurationPropertyName, List<String>> spellings = new LinkedHashMap<>();
            for (String key : enumerable.getPropertyNames()) {
                ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
                if (LEAPGATE.isAncestorOf(name)) {
                    spellings.computeIfAbsent(name, n -> new ArrayList<>()).add(key);
                }
            }
            spellings.forEach((name, keys) -> {
                boolean oneRuleName = keys.stream()
                                .map(key -> ConfigurationPropertyName.adapt(key, '.'))
                                .map(n -> RULES.isAncestorOf(n) && n.getNumberOfElements() > 2
                                        ? n.getElement(2, ConfigurationPropertyName.Form.ORIGINAL)
                                        : "")
                                .distinct()
                                .count()
                        == 1;
                if (keys.size() > 1 && oneRuleName) {
                    problems.add(keys.get(0) + ": written twice in one file, as "
                            + String.join(" and ", keys)
                            + ", which Spring Boot reads as one property, taking one of the values; keep one");
                }
            });
        }
        return problems;
    }

    /**
     * Rules whose names, as written in the configuration's files (not the environment variables,
     * which cannot spell a dash, see {@link #rulesByName()}), differ only in dashes, underscores or
     * case. Boot compares property names ignoring them, so it binds the settings of either rule to
     * both: api-hello and apihello, the second written without a limit, ran with the first's limit,
     * and a setting the one rule alone has applied to the other too. Names that differ in case
     * alone are left to the reader, which refuses them.
     */
    private List<String> rulesSharingSettings(Set<String> written) {
        List<String> names = rule.keySet().stream().filter(written::contains).toList();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            for (int j = i + 1; j < names.size(); j++) {
                String first = names.get(i);
                String second = names.get(j);
                if (relaxed(first).equals(relaxed(second)) && !first.equalsIgnoreCase(second)) {
                    problems.add(PREFIX + "rule." + second + ": rule names '" + first + "' and '" + second
                            + "' differ only in dashes, underscores or case, which Spring Boot ignores when it"
                            + " binds properties: each rule would silently take settings written for the other;"
                            + " rename one so that the names differ in a letter or digit");
                }
            }
        }
        return problems;
    }

    /**
     * The rule names written in the configuration's files, as written: not in environment
     * variables, which spell a name without dashes or underscores and in capitals.
     */
    private static Set<String> ruleNamesWritten(Iterable<ConfigurationPropertySource> sources) {
        Set<String> written = new LinkedHashSet<>();
        for (ConfigurationPropertySource source : sources) {
            if (source instanceof IterableConfigurationPropertySource iterable
                    && !(source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource)) {
                iterable.stream()
                        .filter(name -> RULES.isAncestorOf(name) && name.getNumberOfElements() > 2)
                        .forEach(name -> written.add(name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL)));
            }
        }
        return written;
    }

    /** A rule name as Boot's relaxed binding compares it. */
    private static String relaxed(String name) {
        return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }

    private static void put(Map<String, String> settings, String key, String value) {
        if (value != null) {
            settings.put(key, value);
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getFilterOrder() {
        return filterOrder;
    }

    public void setFilterOrder(int filterOrder) {
        this.filterOrder = filterOrder;
    }

    public String getRulesFile() {
        return rulesFile;
    }

    public void setRulesFile(String rulesFile) {
        this.rulesFile = rulesFile;
    }

    public String getReloadInterval() {
        return reloadInterval;
    }

    public void setReloadInterval(String reloadInterval) {
        this.reloadInterval = reloadInterval;
    }

    public String getTrustedProxies() {
        return trustedProxies;
    }

    public void setTrustedProxies(String trustedProxies) {
        this.trustedProxies = trustedProxies;
    }

    public String getAllowWideTrustedProxies() {
        return allowWideTrustedProxies;
    }

    public void setAllowWideTrustedProxies(String allowWideTrustedProxies) {
        this.allowWideTrustedProxies = allowWideTrustedProxies;
    }

    public String getForwardedHeader() {
        return forwardedHeader;
    }

    public void setForwardedHeader(String forwardedHeader) {
        this.forwardedHeader = forwardedHeader;
    }

    public String getIpv6Prefix() {
        return ipv6Prefix;
    }

    public void setIpv6Prefix(String ipv6Prefix) {
        this.ipv6Prefix = ipv6Prefix;
    }

    public String getNat64Prefixes() {
        return nat64Prefixes;
    }

    public void setNat64Prefixes(String nat64Prefixes) {
        this.nat64Prefixes = nat64Prefixes;
    }

    public String getOrigin() {
        return origin;
    }

    public void setOrigin(String origin) {
        this.origin = origin;
    }

    public String getHeaderOriginShown() {
        return headerOriginShown;
    }

    public void setHeaderOriginShown(String headerOriginShown) {
        this.headerOriginShown = headerOriginShown;
    }

    public String getExempt() {
        return exempt;
    }

    public void setExempt(String exempt) {
        this.exempt = exempt;
    }

    public String getAllowWideExempt() {
        return allowWideExempt;
    }

    public void setAllowWideExempt(String allowWideExempt) {
        this.allowWideExempt = allowWideExempt;
    }

    public String getDeny() {
        return deny;
    }

    public void setDeny(String deny) {
        this.deny = deny;
    }

    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    public String getDenyStatus() {
        return denyStatus;
    }

    public void setDenyStatus(String denyStatus) {
        this.denyStatus = denyStatus;
    }

    public String getRateLimitHeaders() {
        return rateLimitHeaders;
    }

    public void setRateLimitHeaders(String rateLimitHeaders) {
        this.rateLimitHeaders = rateLimitHeaders;
    }

    public String getBody() {
        return body;
    }

    public void setBody(String body) {
        this.body = body;
    }

    public String getRejectionLog() {
        return rejectionLog;
    }

    public void setRejectionLog(String rejectionLog) {
        this.rejectionLog = rejectionLog;
    }

    public String getStatusPath() {
        return statusPath;
    }

    public void setStatusPath(String statusPath) {
        this.statusPath = statusPath;
    }

    public String getStatusAllow() {
        return statusAllow;
    }

    public void setStatusAllow(String statusAllow) {
        this.statusAllow = statusAllow;
    }

    public String getStatusHosts() {
        return statusHosts;
    }

    public void setStatusHosts(String statusHosts) {
        this.statusHosts = statusHosts;
    }

    public String getStore() {
        return store;
    }

    public void setStore(String store) {
        this.store = store;
    }

    public String getStoreKeyPrefix() {
        return storeKeyPrefix;
    }

    public void setStoreKeyPrefix(String storeKeyPrefix) {
        this.storeKeyPrefix = storeKeyPrefix;
    }

    public String getStoreTimeout() {
        return storeTimeout;
    }

    public void setStoreTimeout(String storeTimeout) {
        this.storeTimeout = storeTimeout;
    }

    public String getStoreOnFailure() {
        return storeOnFailure;
    }

    public void setStoreOnFailure(String storeOnFailure) {
        this.storeOnFailure = storeOnFailure;
    }

    public String getStoreInstances() {
        return storeInstances;
    }

    public void setStoreInstances(String storeInstances) {
        this.storeInstances = storeInstances;
    }

    public String getRules() {
        return rules;
    }

    public void setRules(String rules) {
        this.rules = rules;
    }

    public Map<String, Rule> getRule() {
        return rule;
    }

    public void setRule(Map<String, Rule> rule) {
        this.rule = rule;
    }
}
