package dev.leapgate.config;

import dev.leapgate.Origin;
import dev.leapgate.net.ClientIpResolver;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.store.StoreSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the servlet filter and the JAX-RS provider are configured with, as read by {@link
 * ConfigParser}. Immutable.
 *
 * @param rules the rules given inline; {@link RuleSet#empty()} when they come from {@code
 *     rulesFile}, which the caller reads with {@link ConfigParser#readRulesFile} (and reads again
 *     when it changes)
 * @param rulesFile the properties file holding the rules, exemptions and denials, if any
 * @param reloadInterval how often {@code rulesFile} is checked for changes; zero for never
 * @param clientIp how the client address is found behind proxies
 * @param origin who a request is from
 * @param response how a rejection is answered
 * @param monitoring the rejection log and the status endpoint
 * @param store the store that shares the windows of shareable rules between instances; empty for
 *     none (every rule per instance, the default)
 * @param rulesNone whether the configuration says {@code rules = none}: that it has no rule on
 *     purpose. Without it, a gate built with no rule, no rules file and no {@code deny} warns that
 *     it limits nothing.
 */
public record LeapgateConfig(
        RuleSet rules,
        Optional<Path> rulesFile,
        Duration reloadInterval,
        ClientIpResolver clientIp,
        OriginSource origin,
        ResponseSettings response,
        MonitoringSettings monitoring,
        Optional<StoreSettings> store,
        boolean rulesNone) {

    /** How often a rules file is checked for changes unless configured otherwise. */
    public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(5);

    private static final LeapgateConfig DEFAULTS = new LeapgateConfig(
            RuleSet.empty(),
            Optional.empty(),
            DEFAULT_RELOAD_INTERVAL,
            ClientIpResolver.builder().build(),
            OriginSource.ip(),
            ResponseSettings.defaults(),
            MonitoringSettings.defaults(),
            Optional.empty(),
            false);

    public LeapgateConfig {
        Objects.requireNonNull(rules, "rules");
        Objects.requireNonNull(rulesFile, "rulesFile");
        Objects.requireNonNull(reloadInterval, "reloadInterval");
        Objects.requireNonNull(clientIp, "clientIp");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(response, "response");
        Objects.requireNonNull(monitoring, "monitoring");
        Objects.requireNonNull(store, "store");
        if (reloadInterval.isNegative()) {
            throw new IllegalArgumentException("reloadInterval must not be negative, was " + reloadInterval);
        }
        // Two sources of rules would leave it unclear which one a reload replaces.
        if (rulesFile.isPresent() && !rules.equals(RuleSet.empty())) {
            throw new IllegalArgumentException(
                    "rules come either inline or from rules-file " + rulesFile.get() + ", not both");
        }
    }

    /** A configuration that does not say {@code rules = none}. */
    public LeapgateConfig(
            RuleSet rules,
            Optional<Path> rulesFile,
            Duration reloadInterval,
            ClientIpResolver clientIp,
            OriginSource origin,
            ResponseSettings response,
            MonitoringSettings monitoring,
            Optional<StoreSettings> store) {
        this(rules, rulesFile, reloadInterval, clientIp, origin, response, monitoring, store, false);
    }

    /**
     * This configuration with a relative {@code rulesFile} resolved against {@code baseDirectory}:
     * for the servlet filter the web application's root, for the JAX-RS provider the directory of
     * its configuration file (without one, the working directory). Both adapters resolve files this
     * one way.
     */
    public LeapgateConfig withBaseDirectory(Path baseDirectory) {
        Objects.requireNonNull(baseDirectory, "baseDirectory");
        if (rulesFile.isEmpty() || rulesFile.get().isAbsolute()) {
            return this;
        }
        return new LeapgateConfig(
                rules,
                Optional.of(baseDirectory.resolve(rulesFile.get())),
                reloadInterval,
                clientIp,
                origin,
                response,
                monitoring,
                store,
                rulesNone);
    }

    /**
     * The record's text, but where origins are a header's values shown by their fingerprints (API
     * keys: {@code origin = header:...} without {@code header-origin-shown}), each identifier in the
     * rules, {@code exempt} and {@code deny} is its fingerprint, as the log and the status name that
     * client: a configuration printed, by the application or a debugger, never prints a key.
     */
    @Override
    public String toString() {
        boolean secret = origin.fingerprinted();
        return "LeapgateConfig[rules=" + (secret ? fingerprinted(rules) : rules) + ", rulesFile=" + rulesFile
                + ", reloadInterval=" + reloadInterval + ", clientIp=" + clientIp + ", origin=" + origin
                + ", response=" + response + ", monitoring=" + monitoring + ", store=" + store + ", rulesNone="
                + rulesNone + "]";
    }

    /** {@code rules}' text with every identifier its fingerprint. */
    private static String fingerprinted(RuleSet rules) {
        List<String> shown = new ArrayList<>();
        for (FlowRule rule : rules.rules()) {
            String text = rule.toString();
            if (rule.scope().kind() == Scope.Kind.ORIGIN) {
                String scope = ", " + rule.scope() + ", "; // FlowRule's text: "..., <scope>, <on-excess>..."
                int at = text.indexOf(scope);
                text = at < 0
                        ? "rule '" + rule.name() + "'" // never the key, whatever the rule's text became
                        : text.substring(0, at) + ", origin:"
                                + fingerprinted(rule.scope().origin()) + ", " + text.substring(at + scope.length());
            }
            shown.add(text);
        }
        return "RuleSet[rules=" + shown + ", exempt=" + rules.exempt().fingerprinted() + ", deny="
                + rules.deny().fingerprinted() + "]";
    }

    /** An identifier's fingerprint ({@link Origin#secret}); an IP address as it is, no secret. */
    private static String fingerprinted(String origin) {
        try {
            return IpAddress.parse(origin).toString();
        } catch (IllegalArgumentException anIdentifier) {
            return Origin.secret(origin).toString();
        }
    }

    /**
     * No rules, no rules file, reload every 5 s, the peer address as the client (no trusted
     * proxies), origin by IP, status 429 with all rate-limit headers and a problem body.
     */
    public static LeapgateConfig defaults() {
        return DEFAULTS;
    }
}
