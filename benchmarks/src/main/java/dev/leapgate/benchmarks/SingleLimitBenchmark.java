package dev.leapgate.benchmarks;

import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Limiter;
import dev.leapgate.counter.LeapCounter;
import dev.leapgate.counter.WindowSpec;
import io.github.bucket4j.Bucket;
import java.time.Duration;
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

/**
 * Part 1 of issue #7: one limit shared by every thread, one decision per call (plus the exit where
 * the API has one), on the admitted path. Run with {@code -t 1} and {@code -t 2}.
 *
 * <p>What compares with what:
 *
 * <ul>
 *   <li>{@link #leapgateCounter} (the raw exact window, {@code LeapCounter.tryAcquire}) is the
 *       counterpart of the token-bucket calls: {@link #bucket4j}, {@link #resilience4j}, {@link
 *       #guava}. None of them has an exit, statistics or a rule lookup.
 *   <li>{@link #leapgateLimiter} ({@code Limiter.tryEnter()} then {@code close()}: rule engine,
 *       per-resource statistics, response time, an entry object) is the counterpart of {@link
 *       #sentinel} ({@code SphU.entry} then {@code exit}: slot chain, statistics, an entry object).
 * </ul>
 *
 * <p>Each library's state is its own {@code @State} class, so a fork builds (and warms) only the
 * library it measures: Sentinel's background threads never run beside another library.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 12, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SingleLimitBenchmark {

    private static final int LIMIT = Workload.SINGLE_LIMIT_PER_SECOND;
    private static final Duration SECOND = Duration.ofSeconds(1);

    /**
     * Leapgate's exact window: 1 s, strict (the default), in 10 buckets (the default). An admission
     * sums the window's frozen buckets, so its cost grows with the bucket count: {@code -p
     * buckets=1,2,10} shows by how much.
     */
    @State(Scope.Benchmark)
    public static class LeapgateCounterState {
        @Param({"10"})
        int buckets;

        LeapCounter counter;

        @Setup(Level.Trial)
        public void setUp() {
            counter = new LeapCounter(WindowSpec.of(SECOND, buckets), LIMIT, System.nanoTime());
        }
    }

    /** Leapgate's programmatic limiter over the same window, with its statistics. */
    @State(Scope.Benchmark)
    public static class LeapgateLimiterState {
        Limiter limiter;

        @Setup(Level.Trial)
        public void setUp() {
            limiter =
                    Limiter.builder("single").rate(LIMIT, WindowSpec.of(SECOND)).build();
        }
    }

    @State(Scope.Benchmark)
    public static class SentinelState {
        static final String RESOURCE = "single";

        @Setup(Level.Trial)
        public void setUp() {
            Peers.sentinelQpsRule(RESOURCE, LIMIT);
        }
    }

    @State(Scope.Benchmark)
    public static class Bucket4jState {
        Bucket bucket;

        @Setup(Level.Trial)
        public void setUp() {
            bucket = Peers.bucket4j(Peers.bucket4jBandwidth(LIMIT, SECOND));
        }
    }

    @State(Scope.Benchmark)
    public static class Resilience4jState {
        io.github.resilience4j.ratelimiter.RateLimiter limiter;

        @Setup(Level.Trial)
        public void setUp() {
            limiter = Peers.resilience4j("single", LIMIT, SECOND);
        }
    }

    @State(Scope.Benchmark)
    public static class GuavaState {
        com.google.common.util.concurrent.RateLimiter limiter;

        @Setup(Level.Trial)
        public void setUp() {
            limiter = Peers.guava(LIMIT);
        }
    }

    /**
     * Not a limiter: one {@code System.nanoTime()}, the clock read every limiter here makes (Bucket4j
     * reads {@code currentTimeMillis}, Sentinel a cached time). The floor under every other number.
     */
    @Benchmark
    public long baselineNanoTime() {
        return System.nanoTime();
    }

    @Benchmark
    public long leapgateCounter(LeapgateCounterState state, Outcome outcome) {
        long ticket = state.counter.tryAcquire(System.nanoTime(), 1);
        if (ticket < 0) {
            outcome.rejected++;
        }
        return ticket;
    }

    @Benchmark
    public Decision leapgateLimiter(LeapgateLimiterState state, Outcome outcome) {
        Decision decision = state.limiter.tryEnter();
        if (decision instanceof Entry entry) {
            entry.close();
        } else {
            outcome.rejected++;
        }
        return decision;
    }

    @Benchmark
    public Object sentinel(SentinelState state, Outcome outcome) {
        try {
            com.alibaba.csp.sentinel.Entry entry = SphU.entry(SentinelState.RESOURCE);
            entry.exit();
            return entry;
        } catch (BlockException e) {
            outcome.rejected++;
            return e;
        }
    }

    @Benchmark
    public boolean bucket4j(Bucket4jState state, Outcome outcome) {
        boolean admitted = state.bucket.tryConsume(1);
        if (!admitted) {
            outcome.rejected++;
        }
        return admitted;
    }

    @Benchmark
    public boolean resilience4j(Resilience4jState state, Outcome outcome) {
        boolean admitted = state.limiter.acquirePermission();
        if (!admitted) {
            outcome.rejected++;
        }
        return admitted;
    }

    @Benchmark
    public boolean guava(GuavaState state, Outcome outcome) {
        boolean admitted = state.limiter.tryAcquire();
        if (!admitted) {
            outcome.rejected++;
        }
        return admitted;
    }
}
