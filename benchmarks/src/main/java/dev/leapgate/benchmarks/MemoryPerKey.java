package dev.leapgate.benchmarks;

import com.alibaba.csp.sentinel.EntryType;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import com.alibaba.csp.sentinel.slots.block.flow.param.ParamFlowRule;
import com.alibaba.csp.sentinel.slots.block.flow.param.ParameterMetric;
import com.alibaba.csp.sentinel.slots.block.flow.param.ParameterMetricStorage;
import com.alibaba.csp.sentinel.slots.statistic.cache.CacheMap;
import dev.leapgate.internal.counter.KeyedRateCounter;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Part 3 of issue #7: heap retained per tracked key, for {@code keys} distinct keys (1,000,000 by
 * default), one library per run so that nothing else shares the heap:
 *
 * <pre>
 * java -XX:+UseSerialGC -Xmx3g -cp benchmarks.jar dev.leapgate.benchmarks.MemoryPerKey LIBRARY [KEYS]
 * </pre>
 *
 * LIBRARY is one of {@code leapgate-2}, {@code leapgate-10} (strict window in 2 or 10 buckets),
 * {@code leapgate-10-wide} (10 buckets, a limit of 100,000 per minute, which takes 32-bit buckets
 * where the others' takes 16), {@code bucket4j-caffeine}, {@code resilience4j}, {@code sentinel}.
 *
 * <p>Method: build a throwaway structure first (classes loaded, code compiled, static caches
 * filled, background tasks started), drop it, wait 2.5 s, collect; read the used heap; build the
 * measured structure, one admission per key; collect; read the used heap again. The difference,
 * divided by the keys the structure really kept, is the cost of a key: its entry, its key object,
 * its share of the table. The limit is per minute so that no key goes idle (and may be dropped)
 * while the others are being added; the window length does not change any structure's size. Run
 * with the serial collector, whose full collection compacts the whole heap, so that "used after
 * GC" is the live size.
 */
public final class MemoryPerKey {

    private static final int LIMIT_PER_MINUTE = 1000;
    /** A per-client limit above 65,535, for Leapgate's 32-bit buckets. */
    private static final int WIDE_LIMIT_PER_MINUTE = 100_000;

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final int WARM_UP_KEYS = 20_000;
    private static final long SETTLE_MILLIS = 2_500;

    /** One library's per-key structure. */
    private interface Subject {
        /** Builds a structure and admits one request for each of keys {@code from .. from+count-1}. */
        Object fill(int from, int count);

        /** Keys the structure holds now. */
        long tracked(Object structure);

        default String note() {
            return "";
        }
    }

    private MemoryPerKey() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1) {
            throw new IllegalArgumentException(
                    "usage: MemoryPerKey leapgate-2|leapgate-10|leapgate-10-wide|bucket4j-caffeine|resilience4j|sentinel"
                            + " [keys]");
        }
        String library = args[0];
        int keys = args.length > 1 ? Integer.parseInt(args[1]) : Workload.KEYS;
        Subject subject = subject(library);

        // Keys of the warm-up lie above those measured, so none is shared.
        Object warmUp = subject.fill(keys, WARM_UP_KEYS);
        Reference.reachabilityFence(warmUp);
        warmUp = null;
        // Let background work that starts on first use (Sentinel's once-a-second metric writer
        // opens its files and buffers) happen before the baseline, not between the readings.
        Thread.sleep(SETTLE_MILLIS);
        long before = usedHeapAfterGc();
        Object measured = subject.fill(0, keys);
        long after = usedHeapAfterGc();
        long tracked = subject.tracked(measured);
        String extra = measured instanceof KeyedRateCounter c ? " (its own count: " + c.footprintBytes() + " B)" : "";
        Reference.reachabilityFence(measured);

        long retained = after - before;
        double perTracked = tracked == 0 ? Double.NaN : (double) retained / tracked;
        System.out.printf(
                Locale.ROOT,
                "%-18s %,d keys offered, %,d kept; retained %,d B%s = %.1f B per kept key%s%n",
                library,
                keys,
                tracked,
                retained,
                extra,
                perTracked,
                subject.note().isEmpty() ? "" : " [" + subject.note() + "]");
        System.out.printf(
                Locale.ROOT,
                "RESULT\tmemory\t%s\t%d\t%d\t%d\t%.1f\t%s%n",
                library,
                keys,
                tracked,
                retained,
                perTracked,
                subject.note());
        // Sentinel leaves non-daemon threads behind.
        System.exit(0);
    }

    private static Subject subject(String library) {
        switch (library) {
            case "leapgate-2":
                return leapgate(2, LIMIT_PER_MINUTE);
            case "leapgate-10":
                return leapgate(10, LIMIT_PER_MINUTE);
            case "leapgate-10-wide":
                return leapgate(10, WIDE_LIMIT_PER_MINUTE);
            case "bucket4j-caffeine":
                return new Subject() {
                    @Override
                    public Object fill(int from, int count) {
                        Peers.Bucket4jPerKey buckets =
                                new Peers.Bucket4jPerKey(LIMIT_PER_MINUTE, MINUTE, Workload.KEY_CAPACITY);
                        for (int i = from; i < from + count; i++) {
                            require(buckets.tryConsume(Workload.key(i)));
                        }
                        buckets.buckets.cleanUp();
                        return buckets;
                    }

                    @Override
                    public long tracked(Object structure) {
                        return ((Peers.Bucket4jPerKey) structure).buckets.estimatedSize();
                    }
                };
            case "resilience4j":
                return new Subject() {
                    @Override
                    public Object fill(int from, int count) {
                        RateLimiterRegistry registry = Peers.resilience4jRegistry(LIMIT_PER_MINUTE, MINUTE);
                        for (int i = from; i < from + count; i++) {
                            require(registry.rateLimiter(Workload.keyText(i)).acquirePermission());
                        }
                        return registry;
                    }

                    @Override
                    public long tracked(Object structure) {
                        return ((RateLimiterRegistry) structure)
                                .getAllRateLimiters()
                                .size();
                    }

                    @Override
                    public String note() {
                        return "registry is unbounded: it never forgets a key";
                    }
                };
            case "sentinel":
                return sentinel();
            default:
                throw new IllegalArgumentException("unknown library '" + library
                        + "'; expected leapgate-2, leapgate-10, bucket4j-caffeine, resilience4j or sentinel");
        }
    }

    private static Subject leapgate(int buckets, int limitPerMinute) {
        return new Subject() {
            @Override
            public Object fill(int from, int count) {
                WindowSpec window = new WindowSpec(MINUTE, buckets, WindowMode.STRICT);
                KeyedRateCounter counter =
                        new KeyedRateCounter(window, limitPerMinute, System.nanoTime(), Workload.KEY_CAPACITY);
                for (int i = from; i < from + count; i++) {
                    require(counter.tryAcquire(Workload.key(i), System.nanoTime(), 1) >= 0);
                }
                return counter;
            }

            @Override
            public long tracked(Object structure) {
                return ((KeyedRateCounter) structure).trackedOrigins();
            }
        };
    }

    private static Subject sentinel() {
        // Both resources' rules are loaded up front: loading rules later would drop the warm-up's
        // metrics between the two heap readings.
        List<ParamFlowRule> rules = Peers.sentinelParamRules(List.of("memory-warm-up", "memory"), LIMIT_PER_MINUTE);
        return new Subject() {
            @Override
            public Object fill(int from, int count) {
                String resource = from == 0 ? "memory" : "memory-warm-up";
                for (int i = from; i < from + count; i++) {
                    Long key = Workload.key(i);
                    try {
                        SphU.entry(resource, EntryType.IN, 1, key).exit(1, key);
                    } catch (BlockException e) {
                        throw new IllegalStateException("Sentinel rejected the first request of key " + key, e);
                    }
                }
                return rules.get(from == 0 ? 1 : 0);
            }

            @Override
            public long tracked(Object structure) {
                ParamFlowRule rule = (ParamFlowRule) structure;
                ParameterMetric metric = ParameterMetricStorage.getParamMetricForResource(rule.getResource());
                // Sentinel 1.8.9's QPS check keeps its per-value state in the (package-private)
                // stamped token counter; older versions in the public time counter.
                try {
                    Method stamped =
                            ParameterMetric.class.getDeclaredMethod("getRuleStampedTokenCounter", ParamFlowRule.class);
                    stamped.setAccessible(true);
                    return ((CacheMap<?, ?>) stamped.invoke(metric, rule)).size();
                } catch (ReflectiveOperationException e) {
                    return metric.getRuleTimeCounter(rule).size();
                }
            }

            @Override
            public String note() {
                return "keeps at most 4,000 keys per rule (4,000 x durationInSec): the others are forgotten";
            }
        };
    }

    private static void require(boolean admitted) {
        if (!admitted) {
            throw new IllegalStateException("a key's first request was rejected: the measurement would be wrong");
        }
    }

    /**
     * The live heap: the least used heap over several full collections a little apart. A reading can
     * only be too high (Sentinel's background threads hold some megabytes for a moment every few
     * seconds), never too low, so the least is the best estimate.
     */
    static long usedHeapAfterGc() throws InterruptedException {
        var memory = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 8; i++) {
            System.gc();
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
            Thread.sleep(200);
        }
        return least;
    }
}
