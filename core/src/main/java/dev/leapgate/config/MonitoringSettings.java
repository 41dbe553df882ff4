package dev.leapgate.config;

import dev.leapgate.net.CidrList;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the gate tells its operators, besides its statistics.
 *
 * @param rejectionLog the shortest time between two log lines of one rule saying how many
 *     requests it rejected and who sent most of them; zero for no such lines
 * @param statusPath the path (within the application) at which the adapters answer with the
 *     gate's status as JSON; empty for no status endpoint (the default)
 * @param statusAllow the addresses the status is answered to: the TCP peer's address, never a
 *     forwarded one alone; a request a proxy relayed is answered only through trusted proxies, to
 *     a client they name that is listed too; others pass through as if there were no status
 *     endpoint
 * @param statusHosts the host names (lower case) the status is answered to besides IP addresses
 *     and {@code localhost}, as a request's {@code Host} names them (a browser that DNS rebinding
 *     turned against an allowed address still names the attacker's host); {@link #ANY_HOST} for
 *     any name
 */
public record MonitoringSettings(
        Duration rejectionLog, Optional<String> statusPath, CidrList statusAllow, Set<String> statusHosts) {

    /** How often a rule may say what it rejected, unless configured otherwise. */
    public static final Duration DEFAULT_REJECTION_LOG = Duration.ofSeconds(10);

    /** Who may read the status unless configured otherwise: this machine. */
    public static final String DEFAULT_STATUS_ALLOW = "127.0.0.0/8, ::1";

    /** The {@link #statusHosts} entry that stands for any host name. */
    public static final String ANY_HOST = "*";

    private static final MonitoringSettings DEFAULTS = new MonitoringSettings(
            DEFAULT_REJECTION_LOG, Optional.empty(), CidrList.parse(DEFAULT_STATUS_ALLOW), Set.of());

    public MonitoringSettings {
        Objects.requireNonNull(rejectionLog, "rejectionLog");
        Objects.requireNonNull(statusPath, "statusPath");
        Objects.requireNonNull(statusAllow, "statusAllow");
        statusHosts = Set.copyOf(statusHosts);
        if (rejectionLog.isNegative()) {
            throw new IllegalArgumentException("rejectionLog must not be negative, was " + rejectionLog);
        }
        statusPath.ifPresent(path -> {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("statusPath must start with '/', was '" + path + "'");
            }
        });
    }

    /** A rejection log every 10 s, no status endpoint. */
    public static MonitoringSettings defaults() {
        return DEFAULTS;
    }
}
