package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import java.time.Duration;
import java.util.Map;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue #20: the per-key workload of {@link PerKeyBenchmark} (1,000,000 keys, Zipf 1.0) from an
 * empty table with {@code max-origins} 1,000,000, measured while the table fills: 3 s of warm-up,
 * then 40 iterations of 1 s, each of which is reported, so that a slow phase cannot hide in a mean.
 * The table never becomes full: the 2^22 draws hold 522,459 distinct keys, fewer than {@code
 * max-origins}, so nothing is evicted here (idle keys are swept and come back); eviction at a full
 * table is {@link ClientFloodBenchmark}'s. {@link #leapgateEngine} is {@code HttpGate.enter} +
 * {@code close} with one per-client rule (1 s, strict, 10 buckets as by default, or 2); {@link
 * #bucket4jCaffeine} a bucket per key in a Caffeine cache of the same size. The gate keeps its
 * defaults, the rejection log included: at the limit of 60,000 the hottest keys are rejected, and a
 * user's gate would log them.
 *
 * <pre>java -jar benchmarks.jar PerKeyFromEmptyBenchmark -rf json</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 40, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class PerKeyFromEmptyBenchmark {

    static final int MAX_ORIGINS = 1_000_000;

    /** The limit per key and second, as in {@link PerKeyBenchmark.PerKeyLimit}. */
    @State(Scope.Benchmark)
    public static class PerKeyLimit {
        @Param({"10000000", "60000"})
        int perSecond;
    }

    @State(Scope.Benchmark)
    public static class Keys {
        int[] draws;
        Origin[] origins;
        Long[] keys;

        @Setup(Level.Trial)
        public void setUp() {
            draws = ZipfKeys.draw(Workload.KEYS, Workload.ZIPF_EXPONENT, 1 << 22, 7);
            origins = new Origin[Workload.KEYS];
            keys = new Long[Workload.KEYS];
            for (int i = 0; i < Workload.KEYS; i++) {
                origins[i] = Workload.origin(i);
                keys[i] = Workload.key(i);
            }
        }
    }

    @State(Scope.Thread)
    public static class Cursor {
        int position;

        int next(Keys keys) {
            return keys.draws[position++ & (keys.draws.length - 1)];
        }
    }

    @State(Scope.Benchmark)
    public static class Gate {
        /**
         * The per-client window's buckets: 10 is the default shape, which the targets are judged
         * at (as in {@link PerKeyBenchmark}); 2 is the compact per-IP shape, for reference (every
         * run until 2026-11-27 measured 2 only).
         */
        @Param({"10", "2"})
        int buckets;

        HttpGate gate;
        // Read from fields, not literals in the measured code, so that the JIT cannot fold them.
        String method = "GET";
        String path = "/api/orders";

        @Setup(Level.Trial)
        public void setUp(PerKeyLimit limit) {
            gate = HttpGate.builder(ConfigParser.parse(
                            Map.of(
                                    "rule.per-ip.match",
                                    "/api/**",
                                    "rule.per-ip.limit",
                                    limit.perSecond + "/1s",
                                    "rule.per-ip.buckets",
                                    buckets + "",
                                    "rule.per-ip.scope",
                                    "per-origin",
                                    "rule.per-ip.max-origins",
                                    Integer.toString(MAX_ORIGINS)),
                            "benchmark"))
                    .build();
        }

        /** Prints how full the table is after each iteration, so that each phase can be told apart. */
        @TearDown(Level.Iteration)
        public void tracked() {
            System.out.print(" [tracked " + gate.trackedOrigins("per-ip").orElse(-1) + "]");
        }
    }

    @State(Scope.Benchmark)
    public static class Bucket4jCaffeine {
        Peers.Bucket4jPerKey buckets;

        @Setup(Level.Trial)
        public void setUp(PerKeyLimit limit) {
            buckets = new Peers.Bucket4jPerKey(limit.perSecond, Duration.ofSeconds(1), MAX_ORIGINS);
        }
    }

    @Benchmark
    public boolean leapgateEngine(Gate gate, Keys keys, Cursor cursor, Outcome outcome) {
        Decision decision = gate.gate.enter(gate.method, gate.path, keys.origins[cursor.next(keys)]);
        if (decision instanceof Entry entry) {
            entry.close();
            return true;
        }
        outcome.rejected++;
        return false;
    }

    @Benchmark
    public boolean bucket4jCaffeine(Bucket4jCaffeine state, Keys keys, Cursor cursor, Outcome outcome) {
        boolean admitted = state.buckets.tryConsume(keys.keys[cursor.next(keys)]);
        outcome.rejected += admitted ? 0 : 1;
        return admitted;
    }
}
