package dev.leapgate.benchmarks;

import com.alibaba.csp.sentinel.EntryType;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Limiter;
import dev.leapgate.Origin;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.http.HttpGate;
import dev.leapgate.internal.counter.KeyedRateCounter;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Part 2 of issue #7: a limit per client key, 1,000,000 distinct keys drawn with Zipf popularity
 * (exponent 1.0). Every structure is filled with all keys before the warm-up, so the measurement
 * sees the steady state of a busy server, not the first request of each client.
 *
 * <p>What compares with what: {@link #leapgateLimiter} ({@code Limiter.tryAcquire(origin)}, the
 * public call for a limit per key in code) with {@link #bucket4jCaffeine} and {@link
 * #resilience4jRegistry} (a lookup and a decision, no exit); {@link #leapgateEngine} ({@code
 * HttpGate.enter} with a per-IP rule, then {@code close}: rule match, statistics, entry) with {@link
 * #sentinelHotParam} ({@code SphU.entry} with the key as hot parameter, then {@code exit}). {@link
 * #leapgateKeyed} ({@code KeyedRateCounter.tryAcquire}, the internal table beneath both, which
 * users do not call) shows what the layers above it cost, and is compared with no peer.
 *
 * <p>Keys: Leapgate takes the key as a {@code long} (the engine an {@link Origin}, which the HTTP
 * adapter builds from the client address); Caffeine and Sentinel take a boxed {@code Long},
 * Resilience4j a name. All key objects are built in the set-up, never in the measured code, so no
 * library pays for making its key.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 12, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class PerKeyBenchmark {

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final int DRAWS = 1 << 22;

    /**
     * The limit per key and second, the same for every library: one no key reaches ({@link
     * Workload#PER_KEY_LIMIT_PER_SECOND}, every run since issue #7, held in 32-bit buckets) and one such as users set
     * ({@link Workload#PER_KEY_USER_LIMIT_PER_SECOND}, which Leapgate holds in 16-bit buckets).
     */
    @State(Scope.Benchmark)
    public static class PerKeyLimit {
        @Param({"10000000", "60000"})
        int perSecond;
    }

    /** The key indexes to visit, in order; the same sequence (same seed) for every library. */
    @State(Scope.Benchmark)
    public static class Draws {
        int[] keyIndexes;

        @Setup(Level.Trial)
        public void setUp() {
            keyIndexes = ZipfKeys.draw(Workload.KEYS, Workload.ZIPF_EXPONENT, DRAWS, 7);
        }
    }

    /**
     * Where a thread reads next in {@link Draws}: thread {@code i} of {@code T} starts at {@code i *
     * DRAWS / T}, so that the threads are spread over the sequence and every library (and every
     * fork) sees the same keys in the same order.
     */
    @State(Scope.Thread)
    public static class Cursor {
        int position;

        @Setup(Level.Trial)
        public void setUp(ThreadParams thread) {
            position = (int) ((long) thread.getThreadIndex() * DRAWS / thread.getThreadCount());
        }

        int next(Draws draws) {
            return draws.keyIndexes[position++ & (DRAWS - 1)];
        }
    }

    /** Leapgate's per-key window: 1 s, strict, in {@code buckets} buckets. */
    @State(Scope.Benchmark)
    public static class WindowShape {
        /** 2 buckets is the compact per-IP shape (about 70 bytes a key); 10 is the default shape. */
        @Param({"2", "10"})
        int buckets;
    }

    /** Leapgate's per-key exact window, the table alone. */
    @State(Scope.Benchmark)
    public static class LeapgateKeyedState {
        long[] keys;
        KeyedRateCounter counter;

        @Setup(Level.Trial)
        public void setUp(PerKeyLimit limit, WindowShape shape) {
            int buckets = shape.buckets;
            keys = new long[Workload.KEYS];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = Workload.key(i);
            }
            WindowSpec window = new WindowSpec(SECOND, buckets, WindowMode.STRICT);
            counter = new KeyedRateCounter(window, limit.perSecond, System.nanoTime(), Workload.KEY_CAPACITY);
            for (long key : keys) {
                counter.tryAcquire(key, System.nanoTime(), 1);
            }
            // No check that every key stayed: a key idle for a whole window holds nothing, and
            // inserting other keys may drop it (it comes back, empty, on its next request). With a
            // 1 s window, Zipf's rarely seen keys come and go like that during the measurement, and
            // their re-insertion is part of the measured cost. An untracked key would be counted
            // as rejected.
        }
    }

    /**
     * Leapgate's public call for a limit per key in code, {@code Limiter.tryAcquire(origin)} on a
     * limiter built with {@code perOrigin}: a lookup and a decision with the limiter's statistics, no
     * entry to close. The window is what {@code WindowSpec.of(1 s)} gives users (strict, 10 buckets),
     * and the limiter keeps at most {@link Workload#KEY_CAPACITY} origins, as the Caffeine cache.
     * This, not the table beneath it ({@link #leapgateKeyed}), is the counterpart of {@link
     * #bucket4jCaffeine}.
     */
    @State(Scope.Benchmark)
    public static class LeapgateLimiterState {
        Origin[] origins;
        Limiter limiter;

        @Setup(Level.Trial)
        public void setUp(PerKeyLimit limit) {
            origins = new Origin[Workload.KEYS];
            for (int i = 0; i < origins.length; i++) {
                origins[i] = Workload.origin(i);
            }
            limiter = Limiter.builder("per-key")
                    .rate(limit.perSecond, WindowSpec.of(SECOND))
                    .perOrigin(Workload.KEY_CAPACITY)
                    .build();
            for (Origin origin : origins) {
                limiter.tryAcquire(origin);
            }
        }
    }

    /** Leapgate's rule engine with one per-IP rule over the same window. */
    @State(Scope.Benchmark)
    public static class LeapgateEngineState {
        Origin[] origins;
        HttpGate gate;
        // The request's method and path are read from these fields, never written as literals in
        // the measured code, so that the JIT cannot fold the path's scan and hashing into constants
        // (as in ManyRulesBenchmark).
        String method = "GET";
        String path = "/api/orders";

        @Setup(Level.Trial)
        public void setUp(PerKeyLimit limit, WindowShape shape) {
            origins = new Origin[Workload.KEYS];
            for (int i = 0; i < origins.length; i++) {
                origins[i] = Workload.origin(i);
            }
            FlowRule perIp = FlowRule.builder("per-ip")
                    .match("/api/**")
                    .limit(limit.perSecond, new WindowSpec(SECOND, shape.buckets, WindowMode.STRICT))
                    .scope(dev.leapgate.rule.Scope.perOrigin())
                    .maxOrigins(Workload.KEY_CAPACITY)
                    .build();
            LeapgateConfig defaults = LeapgateConfig.defaults();
            gate = HttpGate.builder(new LeapgateConfig(
                            RuleSet.of(perIp),
                            defaults.rulesFile(),
                            defaults.reloadInterval(),
                            defaults.clientIp(),
                            defaults.origin(),
                            defaults.response(),
                            defaults.monitoring(),
                            defaults.store()))
                    .build();
            for (Origin origin : origins) {
                enter(gate, method, path, origin);
            }
        }
    }

    /** Bucket4j buckets in a Caffeine cache, Bucket4j's recipe for per-key limits. */
    @State(Scope.Benchmark)
    public static class Bucket4jCaffeineState {
        Long[] keys;
        Peers.Bucket4jPerKey buckets;

        @Setup(Level.Trial)
        public void setUp(PerKeyLimit limit) {
            keys = new Long[Workload.KEYS];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = Workload.key(i);
            }
            buckets = new Peers.Bucket4jPerKey(limit.perSecond, SECOND, Workload.KEY_CAPACITY);
            for (Long key : keys) {
                buckets.tryConsume(key);
            }
        }
    }

    @State(Scope.Benchmark)
    public static class Resilience4jState {
        String[] names;
        RateLimiterRegistry registry;

        @Setup(Level.Trial)
        public void setUp(PerKeyLimit limit) {
            names = new String[Workload.KEYS];
            for (int i = 0; i < names.length; i++) {
                names[i] = Workload.keyText(i);
            }
            registry = Peers.resilience4jRegistry(limit.perSecond, SECOND);
            for (String name : names) {
                registry.rateLimiter(name).acquirePermission();
            }
        }
    }

    /** Sentinel's hot-parameter rule on the call's first argument (it keeps 4,000 keys at most). */
    @State(Scope.Benchmark)
    public static class SentinelState {
        static final String RESOURCE = "per-key";
        Long[] keys;

        @Setup(Level.Trial)
        public void setUp(PerKeyLimit limit) {
            keys = new Long[Workload.KEYS];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = Workload.key(i);
            }
            Peers.sentinelParamRules(List.of(RESOURCE), limit.perSecond);
            for (Long key : keys) {
                sentinel(key);
            }
        }

        boolean sentinel(Long key) {
            try {
                com.alibaba.csp.sentinel.Entry entry = SphU.entry(RESOURCE, EntryType.IN, 1, key);
                entry.exit(1, key);
                return true;
            } catch (BlockException e) {
                return false;
            }
        }
    }

    @Benchmark
    public long leapgateKeyed(LeapgateKeyedState state, Draws draws, Cursor cursor, Outcome outcome) {
        long ticket = state.counter.tryAcquire(state.keys[cursor.next(draws)], System.nanoTime(), 1);
        if (ticket < 0) {
            outcome.rejected++;
        }
        return ticket;
    }

    @Benchmark
    public boolean leapgateLimiter(LeapgateLimiterState state, Draws draws, Cursor cursor, Outcome outcome) {
        boolean admitted = state.limiter.tryAcquire(state.origins[cursor.next(draws)]);
        if (!admitted) {
            outcome.rejected++;
        }
        return admitted;
    }

    @Benchmark
    public boolean leapgateEngine(LeapgateEngineState state, Draws draws, Cursor cursor, Outcome outcome) {
        boolean admitted = enter(state.gate, state.method, state.path, state.origins[cursor.next(draws)]);
        if (!admitted) {
            outcome.rejected++;
        }
        return admitted;
    }

    @Benchmark
    public boolean bucket4jCaffeine(Bucket4jCaffeineState state, Draws draws, Cursor cursor, Outcome outcome) {
        boolean admitted = state.buckets.tryConsume(state.keys[cursor.next(draws)]);
        if (!admitted) {
            outcome.rejected++;
        }
        return admitted;
    }

    @Benchmark
    public boolean resilience4jRegistry(Resilience4jState state, Draws draws, Cursor cursor, Outcome outcome) {
        boolean admitted =
                state.registry.rateLimiter(state.names[cursor.next(draws)]).acquirePermission();
        if (!admitted) {
            outcome.rejected++;
        }
        return admitted;
    }

    @Benchmark
    public boolean sentinelHotParam(SentinelState state, Draws draws, Cursor cursor, Outcome outcome) {
        boolean admitted = state.sentinel(state.keys[cursor.next(draws)]);
        if (!admitted) {
            outcome.rejected++;
        }
        return admitted;
    }

    private static boolean enter(HttpGate gate, String method, String path, Origin origin) {
        Decision decision = gate.enter(method, path, origin);
        if (decision instanceof Entry entry) {
            entry.close();
            return true;
        }
        return false;
    }
}
