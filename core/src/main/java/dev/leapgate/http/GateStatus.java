package dev.leapgate.http;

import dev.leapgate.Origin;
import dev.leapgate.config.ReloadingRules;
import dev.leapgate.internal.Limit;
import dev.leapgate.internal.Shown;
import dev.leapgate.internal.TopOrigins;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.Scope;
import dev.leapgate.stats.RejectionCounts;
import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.stats.StatsTotals;
import dev.leapgate.stats.WaitStats;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * The status of a gate as JSON, for operators: each rule (its definition, the requests it rejected
 * by reason and second by second over the last minute, and what it holds now:
 * the use of its window or its requests in flight when everyone shares it; the clients it tracks,
 * those at their limit now and the ones it rejected most over the last minute or two when it
 * counts each client apart; the requests waiting for it and their average wait when it paces or
 * borrows), each resource's statistics over the last minute (in all and second by second) and
 * since the start, the exempt and denied requests, and the rules file's reloads. A rule whose
 * window is in a shared store says how the store is doing ({@code "store":{"available":true,
 * "decidedWithoutStore":0,"outages":0}}) instead of the clients it tracks, which the store keeps.
 *
 * <pre>{@code
 * {"rules":[{"name":"api","resource":"/api/**","limit":100,"window":"1m in 10 buckets, strict",
 *   "scope":"per-origin","onExcess":"reject","mode":"enforce","rejected":{"limitExceeded":50,
 *   "notTracked":0,"tooManyPermits":0,"interrupted":0,"storeUnavailable":0},"rejectedBySecond":[0,3,...],"maxOrigins":100000,
 *   "trackedClients":42,"limitedClients":1,"evictedClients":0,
 *   "rejectedMost":[{"client":"203.0.113.7","about":50}]}],
 *  "resources":[{"resource":"/api/**","inFlight":0,"lastMinute":{"admittedPerSecond":1.5,
 *   "rejectedPerSecond":0.2,"shadowRejectedPerSecond":0},"lastMinuteBySecond":{"admitted":[0,2,...],
 *   "rejected":[0,0,...],"shadowRejected":[0,0,...]},"totals":{"admitted":90,"rejected":12,
 *   "shadowRejected":0,"succeeded":88,"failed":2}}],
 *  "exemptRequests":0,"deniedRequests":0,
 *  "rulesFile":{"path":"/etc/app/rules.properties","appliedReloads":1,"rejectedReloads":0}}
 * }</pre>
 */
final class GateStatus {

    /** Clients named per per-client rule. */
    static final int OFFENDERS = 10;

    private GateStatus() {}

    /**
     * @param limits the rules in force, and {@code resources} their resources' statistics: of one
     *     version of the rules
     * @param ipv6PrefixLength the prefix IPv6 clients are counted by, which names them
     * @param secretOrigins whether origins are a header's values shown as fingerprints: a rule's
     *     {@code scope = origin:<value>} naming one is shown by the value's fingerprint too
     */
    static String json(
            HttpGate gate,
            Limit[] limits,
            Collection<ResourceStats> resources,
            int ipv6PrefixLength,
            boolean secretOrigins,
            long nowNanos) {
        StringBuilder json = new StringBuilder(512);
        json.append("{\"rules\":[");
        for (int i = 0; i < limits.length; i++) {
            json.append(i == 0 ? "" : ",");
            rule(json, limits[i], ipv6PrefixLength, secretOrigins, nowNanos);
        }
        json.append("],\"resources\":[");
        boolean first = true;
        for (ResourceStats stats : resources) {
            json.append(first ? "" : ",");
            first = false;
            resource(json, stats);
        }
        json.append("],\"exemptRequests\":").append(gate.exemptRequests());
        json.append(",\"deniedRequests\":").append(gate.deniedRequests());
        gate.rulesFile().ifPresent(file -> rulesFile(json, file));
        return json.append('}').toString();
    }

    private static void rule(
            StringBuilder json, Limit limit, int ipv6PrefixLength, boolean secretOrigins, long nowNanos) {
        FlowRule rule = limit.rule();
        json.append("{\"name\":");
        ProblemBody.quote(json, rule.name());
        json.append(",\"resource\":");
        ProblemBody.quote(json, rule.resource());
        json.append(",\"limit\":").append(rule.limit());
        if (rule.isInFlight()) {
            json.append(",\"inFlightLimit\":true");
        } else {
            json.append(",\"window\":");
            ProblemBody.quote(json, rule.window().toString());
        }
        json.append(",\"scope\":");
        ProblemBody.quote(json, scope(rule.scope(), secretOrigins));
        json.append(",\"onExcess\":");
        ProblemBody.quote(
                json, rule.onExcess().kind().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        json.append(",\"mode\":\"").append(rule.shadow() ? "shadow" : "enforce").append('"');
        RejectionCounts rejections = limit.rejections();
        json.append(",\"rejected\":{\"limitExceeded\":").append(rejections.limitExceeded());
        json.append(",\"notTracked\":").append(rejections.notTracked());
        json.append(",\"tooManyPermits\":").append(rejections.tooManyPermits());
        json.append(",\"interrupted\":").append(rejections.interrupted());
        json.append(",\"storeUnavailable\":")
                .append(rejections.storeUnavailable())
                .append('}');
        numbers(json.append(",\"rejectedBySecond\":"), limit.rejectionsBySecond());
        limit.store()
                .ifPresent(store -> json.append(",\"store\":{\"available\":")
                        .append(store.available())
                        .append(",\"decidedWithoutStore\":")
                        .append(store.decidedWithoutStore())
                        .append(",\"outages\":")
                        .append(store.outages())
                        .append('}'));
        if (rule.scope().kind() == Scope.Kind.PER_ORIGIN) {
            if (limit.trackedOrigins() >= 0) { // a shared store keeps its clients itself
                json.append(",\"maxOrigins\":").append(rule.maxOrigins());
                json.append(",\"trackedClients\":").append(limit.trackedOrigins());
                json.append(",\"limitedClients\":").append(Math.max(0, limit.limitedOrigins(nowNanos)));
                json.append(",\"evictedClients\":").append(Math.max(0, limit.evictions()));
            }
            json.append(",\"rejectedMost\":[");
            List<TopOrigins.Counted> top = limit.recentOffenders(OFFENDERS, nowNanos);
            for (int i = 0; i < top.size(); i++) {
                json.append(i == 0 ? "{\"client\":" : ",{\"client\":");
                ProblemBody.quote(json, Shown.client(top.get(i).origin(), ipv6PrefixLength));
                json.append(",\"about\":").append(top.get(i).count()).append('}');
            }
            json.append(']');
        } else {
            long use = limit.sharedUse(nowNanos);
            if (use >= 0) {
                json.append(rule.isInFlight() ? ",\"inFlight\":" : ",\"used\":").append(use);
            }
        }
        limit.waits().ifPresent(waits -> {
            WaitStats now = waits.read();
            json.append(",\"waiting\":").append(now.waitingNow());
            json.append(",\"waited\":").append(now.waited());
            if (now.waited() > 0) {
                json.append(",\"averageWaitMillis\":").append(rate(now.averageWaitMillis()));
            }
        });
        json.append('}');
    }

    /**
     * The scope as configured, but a named origin that is a header's value (an API key) by its
     * fingerprint, as the status names such clients: an address is shown as it is.
     */
    private static String scope(Scope scope, boolean secretOrigins) {
        if (!secretOrigins || scope.kind() != Scope.Kind.ORIGIN) {
            return scope.toString();
        }
        try {
            IpAddress.parse(scope.origin());
            return scope.toString();
        } catch (IllegalArgumentException notAnAddress) {
            return "origin:" + Origin.secret(scope.origin());
        }
    }

    private static void resource(StringBuilder json, ResourceStats stats) {
        StatsSnapshot minute = stats.lastMinute();
        StatsTotals totals = stats.totals();
        json.append("{\"resource\":");
        ProblemBody.quote(json, stats.resource());
        json.append(",\"inFlight\":").append(stats.inFlight());
        json.append(",\"lastMinute\":{\"admittedPerSecond\":")
                .append(rate(minute.admittedPerSecond()))
                .append(",\"rejectedPerSecond\":")
                .append(rate(minute.rejectedPerSecond()))
                .append(",\"shadowRejectedPerSecond\":")
                .append(rate(minute.shadowRejectedPerSecond()))
                .append('}');
        List<StatsSnapshot> seconds = stats.lastMinuteBySecond();
        json.append(",\"lastMinuteBySecond\":{");
        series(json, "admitted", seconds, StatsSnapshot::admitted);
        series(json.append(','), "rejected", seconds, StatsSnapshot::rejected);
        series(json.append(','), "shadowRejected", seconds, StatsSnapshot::shadowRejected);
        json.append('}');
        json.append(",\"totals\":{\"admitted\":")
                .append(totals.admitted())
                .append(",\"rejected\":")
                .append(totals.rejected())
                .append(",\"shadowRejected\":")
                .append(totals.shadowRejected())
                .append(",\"succeeded\":")
                .append(totals.succeeded())
                .append(",\"failed\":")
                .append(totals.failed())
                .append("}}");
    }

    private static void series(
            StringBuilder json, String name, List<StatsSnapshot> seconds, ToLongFunction<StatsSnapshot> count) {
        numbers(
                json.append('"').append(name).append("\":"),
                seconds.stream().mapToLong(count).toArray());
    }

    /** {@code values} as a JSON array. */
    private static void numbers(StringBuilder json, long[] values) {
        json.append('[');
        for (int i = 0; i < values.length; i++) {
            json.append(i == 0 ? "" : ",").append(values[i]);
        }
        json.append(']');
    }

    private static void rulesFile(StringBuilder json, ReloadingRules file) {
        json.append(",\"rulesFile\":{\"path\":");
        ProblemBody.quote(json, file.file().toString());
        json.append(",\"appliedReloads\":").append(file.appliedReloads());
        json.append(",\"rejectedReloads\":").append(file.rejectedReloads());
        file.lastApplied().ifPresent(when -> {
            json.append(",\"lastApplied\":");
            ProblemBody.quote(json, when.toString());
        });
        file.lastError().ifPresent(error -> {
            json.append(",\"lastError\":");
            ProblemBody.quote(json, error);
        });
        json.append('}');
    }

    /** A rate with at most three decimals, as JSON. */
    private static String rate(double perSecond) {
        return String.format(Locale.ROOT, "%.3f", perSecond).replaceAll("\\.?0+$", "");
    }
}
