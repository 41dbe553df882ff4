package dev.leapgate.benchmarks;

import com.alibaba.csp.sentinel.slots.block.RuleConstant;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRule;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRuleManager;
import com.alibaba.csp.sentinel.slots.block.flow.param.ParamFlowRule;
import com.alibaba.csp.sentinel.slots.block.flow.param.ParamFlowRuleManager;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How every peer is configured, in one place so that it can be reviewed for fairness: each is set
 * up the way its documentation shows, with its defaults unless a default would handicap it, and
 * BENCHMARKS.md says why for each choice.
 */
final class Peers {

    private Peers() {}

    // ---- Bucket4j ------------------------------------------------------------------------------

    /**
     * A token bucket of {@code limit} tokens refilled greedily at {@code limit} per {@code period}:
     * Bucket4j's standard "N per period". Local, lock-free (the default), millisecond time meter
     * (the default).
     */
    static Bandwidth bucket4jBandwidth(long limit, Duration period) {
        return Bandwidth.builder().capacity(limit).refillGreedy(limit, period).build();
    }

    static Bucket bucket4j(Bandwidth bandwidth) {
        return Bucket.builder().addLimit(bandwidth).build();
    }

    /**
     * Bucket4j's own recipe for per-key limits in one JVM: buckets in a Caffeine cache, created on
     * first use through {@code get(key, mappingFunction)} (computeIfAbsent). Bounded by size, as
     * Leapgate's table is, with room for every key; the bandwidth is one shared instance.
     */
    static final class Bucket4jPerKey {
        final Cache<Long, Bucket> buckets;
        final Function<Long, Bucket> newBucket;

        Bucket4jPerKey(long limit, Duration period, int capacity) {
            this(limit, period, capacity, false);
        }

        /**
         * With {@code maintainOnCaller}, Caffeine evicts on the calling thread ({@code
         * executor(Runnable::run)}), as Leapgate's table does, instead of on the common pool (its
         * default, another core here): the whole cost of a call in its own time.
         */
        Bucket4jPerKey(long limit, Duration period, int capacity, boolean maintainOnCaller) {
            Bandwidth bandwidth = bucket4jBandwidth(limit, period);
            Caffeine<Object, Object> builder = Caffeine.newBuilder().maximumSize(capacity);
            this.buckets = (maintainOnCaller ? builder.executor(Runnable::run) : builder).build();
            this.newBucket = key -> bucket4j(bandwidth);
        }

        boolean tryConsume(Long key) {
            return buckets.get(key, newBucket).tryConsume(1);
        }
    }

    // ---- Resilience4j --------------------------------------------------------------------------

    /**
     * {@code limit} permissions per refresh period of {@code period}, and no waiting: a call that
     * finds no permission is refused at once, as every other library here does.
     */
    static RateLimiterConfig resilience4jConfig(int limit, Duration period) {
        return RateLimiterConfig.custom()
                .limitForPeriod(limit)
                .limitRefreshPeriod(period)
                .timeoutDuration(Duration.ZERO)
                .build();
    }

    static RateLimiter resilience4j(String name, int limit, Duration period) {
        return RateLimiter.of(name, resilience4jConfig(limit, period));
    }

    /** Per key: Resilience4j's registry, one rate limiter per key name, all with the default config. */
    static RateLimiterRegistry resilience4jRegistry(int limit, Duration period) {
        return RateLimiterRegistry.of(resilience4jConfig(limit, period));
    }

    // ---- Guava ---------------------------------------------------------------------------------

    /** {@code RateLimiter.create(permitsPerSecond)}: SmoothBursty, stores up to 1 s of permits. */
    static com.google.common.util.concurrent.RateLimiter guava(double permitsPerSecond) {
        return com.google.common.util.concurrent.RateLimiter.create(permitsPerSecond);
    }

    // ---- Sentinel ------------------------------------------------------------------------------

    /**
     * Points Sentinel's log files (it writes them from its first use) somewhere harmless unless the
     * caller chose a directory with {@code -Dcsp.sentinel.log.dir}. Call before any Sentinel class is
     * used.
     */
    static void sentinelLogs() {
        if (System.getProperty("csp.sentinel.log.dir") == null) {
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "leapgate-benchmarks-sentinel-logs");
            System.setProperty("csp.sentinel.log.dir", dir.toString());
        }
    }

    static void sentinelQpsRule(String resource, double count) {
        sentinelQpsRules(List.of(resource), count);
    }

    /**
     * A QPS flow rule of {@code count} per second on each resource, rejecting the excess at once
     * (the default controller; Sentinel's default statistics: 2 buckets of 500 ms). Replaces the
     * flow rules in force.
     */
    static void sentinelQpsRules(List<String> resources, double count) {
        sentinelLogs();
        List<FlowRule> rules = new ArrayList<>();
        for (String resource : resources) {
            FlowRule rule = new FlowRule(resource);
            rule.setGrade(RuleConstant.FLOW_GRADE_QPS);
            rule.setCount(count);
            rule.setControlBehavior(RuleConstant.CONTROL_BEHAVIOR_DEFAULT);
            rules.add(rule);
        }
        FlowRuleManager.loadRules(rules);
    }

    /**
     * A hot-parameter rule: at most {@code count} per second for each value of the call's first
     * argument, over Sentinel's default 1 s duration. (Sentinel then tracks at most 4,000 values:
     * 4,000 × durationInSec, capped at 200,000.) Replaces the parameter rules in force.
     */
    static List<ParamFlowRule> sentinelParamRules(List<String> resources, double count) {
        sentinelLogs();
        List<ParamFlowRule> rules = new ArrayList<>();
        for (String resource : resources) {
            ParamFlowRule rule = new ParamFlowRule(resource)
                    .setParamIdx(0)
                    .setGrade(RuleConstant.FLOW_GRADE_QPS)
                    .setCount(count)
                    .setDurationInSec(1);
            rules.add(rule);
        }
        ParamFlowRuleManager.loadRules(rules);
        return rules;
    }
}
