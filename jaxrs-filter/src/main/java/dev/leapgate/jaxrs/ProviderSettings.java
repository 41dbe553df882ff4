package dev.leapgate.jaxrs;

import dev.leapgate.Clock;
import dev.leapgate.Sleeper;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.net.HttpToken;
import jakarta.ws.rs.core.Configuration;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What the provider is configured with, read from the application's {@link Configuration}
 * properties (for a servlet deployment: the init-params of the Jersey servlet in {@code web.xml}).
 *
 * <p>Every key of the configuration format ({@code CONFIGURATION.md}) is written with the prefix
 * {@code leapgate.}: {@code leapgate.rule.login.match}, {@code leapgate.trusted-proxies}. Or
 * {@code leapgate.config-file} names a properties file holding those keys without the prefix. The
 * provider's own keys: {@code leapgate.client-ip-header}, {@code leapgate.max-request-time}, and
 * for tests, the objects {@code leapgate.clock} and {@code leapgate.sleeper}.
 *
 * @param config the configuration in the core's format
 * @param clock the clock
 * @param sleeper how paced requests wait
 * @param clientIpHeader the header standing in for the peer address where there is no servlet
 *     request, or null; safe only behind a proxy that overwrites it on every request
 * @param maxRequestTime after how long an admitted request whose end the runtime did not report is
 *     released all the same ({@link Leases})
 */
record ProviderSettings(
        LeapgateConfig config, Clock clock, Sleeper sleeper, String clientIpHeader, Duration maxRequestTime) {

    static final String PREFIX = "leapgate.";
    static final String CONFIG_FILE = PREFIX + "config-file";
    static final String CLIENT_IP_HEADER = PREFIX + "client-ip-header";
    static final String CLOCK = PREFIX + "clock";
    static final String SLEEPER = PREFIX + "sleeper";
    static final String MAX_REQUEST_TIME = PREFIX + "max-request-time";

    static final Duration DEFAULT_MAX_REQUEST_TIME = Duration.ofMinutes(10);
    private static final Duration SHORTEST_MAX_REQUEST_TIME = Duration.ofSeconds(1);
    private static final Duration LONGEST_MAX_REQUEST_TIME = Duration.ofDays(1);

    private static final List<String> OWN_KEYS =
            List.of(CONFIG_FILE, CLIENT_IP_HEADER, CLOCK, SLEEPER, MAX_REQUEST_TIME);

    ProviderSettings {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(maxRequestTime, "maxRequestTime");
    }

    /**
     * Reads the settings.
     *
     * @param given a configuration passed in code, or null to read it from the properties
     * @throws ConfigException with every problem found
     */
    static ProviderSettings read(Configuration configuration, LeapgateConfig given) {
        Map<String, Object> properties = configuration.getProperties();
        // Sorted: a properties map has no order, and the rules' order must not vary between starts.
        Map<String, String> settings = new LinkedHashMap<>();
        for (Map.Entry<String, Object> property : new TreeMap<>(properties).entrySet()) {
            String key = property.getKey();
            if (key.startsWith(PREFIX) && !OWN_KEYS.contains(key) && property.getValue() != null) {
                settings.put(key.substring(PREFIX.length()), String.valueOf(property.getValue()));
            }
        }
        String source = "JAX-RS properties " + PREFIX + "*";
        // The provider's own keys are read first, so that their problems are reported together
        // with the configuration's: an operator fixing a start should not have to start once per mistake.
        List<String> own = new ArrayList<>();
        Clock clock = object(properties, CLOCK, Clock.class, Clock.system(), own);
        Sleeper sleeper = object(properties, SLEEPER, Sleeper.class, Sleeper.system(), own);
        String clientIpHeader = header(properties.get(CLIENT_IP_HEADER), own);
        Duration maxRequestTime = maxRequestTime(properties.get(MAX_REQUEST_TIME), own);
        Object file = properties.get(CONFIG_FILE);
        List<String> conflicts = new ArrayList<>(ConfigParser.misplacedKeys(properties.keySet(), PREFIX));
        if (given != null && file != null) {
            conflicts.add(CONFIG_FILE + ": the configuration is given in code; remove this property");
        }
        Path path = null;
        if (file != null) {
            try {
                if (file.toString().isBlank()) {
                    throw new InvalidPathException(file.toString(), "the value is empty");
                }
                path = Path.of(file.toString().strip()).toAbsolutePath();
            } catch (InvalidPathException e) {
                // The reason alone: the value may hold characters a log should not carry.
                conflicts.add(CONFIG_FILE + ": names no file (" + e.getReason()
                        + "); give the path of a .properties file, or remove the property");
            }
        }
        if ((given != null || file != null) && !settings.isEmpty()) {
            conflicts.add(PREFIX + settings.keySet().iterator().next() + ": the configuration is given "
                    + (given != null ? "in code" : "in " + CONFIG_FILE + " " + file)
                    + "; write every setting there, not as " + PREFIX + "* properties");
        }
        if (!conflicts.isEmpty()) {
            conflicts.addAll(own);
            throw new ConfigException(source, conflicts);
        }
        LeapgateConfig config;
        try {
            if (given != null) {
                config = given;
            } else if (path != null) {
                // A relative rules-file named in the file is read from the file's directory.
                config = ConfigParser.readConfigFile(path, path.getParent());
            } else {
                config = ConfigParser.parse(settings, source, PREFIX);
            }
        } catch (ConfigException e) {
            if (own.isEmpty()) {
                throw e;
            }
            List<String> all = new ArrayList<>();
            // A file's problems name the file, which the properties' source does not.
            e.problems().forEach(problem -> all.add(e.source().equals(source) ? problem : e.source() + ", " + problem));
            all.addAll(own);
            throw new ConfigException(source, all);
        }
        if (!own.isEmpty()) {
            throw new ConfigException(source, own);
        }
        return new ProviderSettings(config, clock, sleeper, clientIpHeader, maxRequestTime);
    }

    /**
     * The {@code leapgate.*} keys among {@code applicationProperties} ({@code
     * Application.getProperties()}) that {@code configuration} lacks, sorted: settings the provider
     * never sees (RESTEasy applies the application's properties after it configures a provider named
     * in {@code resteasy.providers}).
     */
    static List<String> unseen(Map<String, Object> applicationProperties, Configuration configuration) {
        Map<String, Object> seen = configuration.getProperties();
        return applicationProperties.keySet().stream()
                .filter(key -> key.startsWith(PREFIX) && !seen.containsKey(key))
                .sorted()
                .toList();
    }

    /** {@code leapgate.max-request-time}; on a problem, adds it to {@code problems} and returns the default. */
    private static Duration maxRequestTime(Object value, List<String> problems) {
        if (value == null) {
            return DEFAULT_MAX_REQUEST_TIME;
        }
        Duration time;
        try {
            time = ConfigParser.parseDuration(value.toString().strip());
        } catch (IllegalArgumentException e) {
            problems.add(MAX_REQUEST_TIME + ": " + e.getMessage());
            return DEFAULT_MAX_REQUEST_TIME;
        }
        if (time.compareTo(SHORTEST_MAX_REQUEST_TIME) < 0 || time.compareTo(LONGEST_MAX_REQUEST_TIME) > 0) {
            problems.add(MAX_REQUEST_TIME + ": '" + value + "' is out of range; from 1s to 24h (default 10m):"
                    + " the longest a request may take before its slot is released without its end being seen");
            return DEFAULT_MAX_REQUEST_TIME;
        }
        return time;
    }

    /** An object property; on a problem, adds it to {@code problems} and returns {@code absent}. */
    private static <T> T object(
            Map<String, Object> properties, String key, Class<T> type, T absent, List<String> problems) {
        Object value = properties.get(key);
        if (value == null) {
            return absent;
        }
        if (!type.isInstance(value)) {
            problems.add(key + ": must be a " + type.getName() + " object, was "
                    + value.getClass().getName());
            return absent;
        }
        return type.cast(value);
    }

    /** {@code leapgate.client-ip-header}; on a problem, adds it to {@code problems} and returns null. */
    private static String header(Object value, List<String> problems) {
        if (value == null) {
            return null;
        }
        String name = value.toString().strip();
        if (!HttpToken.isToken(name)) {
            problems.add(CLIENT_IP_HEADER + ": '" + value + "' is not a header name (an RFC 9110 token, e.g."
                    + " X-Real-IP)");
            return null;
        }
        if (name.equalsIgnoreCase("X-Forwarded-For") || name.equalsIgnoreCase("Forwarded")) {
            problems.add(CLIENT_IP_HEADER + ": '" + name + "' is a list that each proxy appends to, not a header"
                    + " that the proxy in front overwrites: its value is no one address (every client would count"
                    + " as 'unknown'), and a client that reaches the application directly writes it itself; name"
                    + " a header the proxy sets to the peer on every request, such as nginx's X-Real-IP");
            return null;
        }
        return name;
    }
}
