package dev.leapgate.benchmarks;

import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Limiter;
import dev.leapgate.internal.counter.LeapCounter;
import dev.leapgate.rule.WindowSpec;
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
 * Part 1: one limit shared by every thread, one decision per call (plus the exit where the API has
 * one), on the admitted path ({@code -p path=admitted}: a limit never reached) and on the rejected
 * path ({@code -p path=rejected}: a limit of 1 per day, taken in the set-up). Run with {@code -t 1}
 * and {@code -t 2}.
 *
 * <p>What compares with what:
 *
 * <ul>
 *   <li>{@link #leapgateTryAcquire} ({@code Limiter.tryAcquire()}: the public rate-only call, with
 *       its statistics) is the counterpart of the token-bucket calls users make: {@link #bucket4j}
 *       {@code tryConsume(1)}, {@link #resilience4j} {@code acquirePermission()}, {@link #guava}
 *       {@code tryAcquire()}.
 *   <li>{@link #leapgateLimiter} ({@code Limiter.tryEnter()} then {@code close()}: statistics with
 *       response time, so two clock reads, and an entry object) is the counterpart of {@link
 *       #sentinel} ({@code SphU.entry} then {@code exit}), and is compared with the token buckets too.
 *   <li>{@link #leapgateCounter} (the exact window beneath them, {@code LeapCounter.tryAcquire}, no
 *       statistics) shows what the layers above cost.
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
        jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class SingleLimitBenchmark {

    private static final int LIMIT = Workload.SINGLE_LIMIT_PER_SECOND;
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration DAY = Duration.ofHours(24);

    /** Which path a state is set up to measure: {@code admitted} or {@code rejected}. */
    @State(Scope.Benchmark)
    public static class Path {
        @Param({"admitted", "rejected"})
        String path;

        boolean rejected() {
            return path.equals("rejected");
        }

        /** The limit: never reached, or 1 (taken in the set-up). */
        int limit() {
            return rejected() ? 1 : LIMIT;
        }

        /** The window: 1 s, or a day, so that the one permit does not come back during a run. */
        Duration window() {
            return rejected() ? DAY : SECOND;
        }
    }

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
        public void setUp(Path path) {
            counter = new LeapCounter(WindowSpec.of(path.window(), buckets), path.limit(), System.nanoTime());
            if (path.rejected()) {
                counter.tryAcquire(System.nanoTime(), 1);
            }
        }
    }

    /** Leapgate's programmatic limiter over the same window, with its statistics. */
    @State(Scope.Benchmark)
    public static class LeapgateLimiterState {
        Limiter limiter;

        @Setup(Level.Trial)
        public void setUp(Path path) {
            limiter = Limiter.builder("single")
                    .rate(path.limit(), WindowSpec.of(path.window()))
                    .build();
            if (path.rejected()) {
                limiter.tryAcquire();
            }
        }
    }

    @State(Scope.Benchmark)
    public static class SentinelState {
        static final String RESOURCE = "single";

        @Setup(Level.Trial)
        public void setUp(Path path) {
            // Sentinel's QPS rules count per second: 1 per second rejects all but one call a second.
            Peers.sentinelQpsRule(RESOURCE, path.rejected() ? 1 : LIMIT);
        }
    }

    @State(Scope.Benchmark)
    public static class Bucket4jState {
        Bucket bucket;

        @Setup(Level.Trial)
        public void setUp(Path path) {
            bucket = Peers.bucket4j(Peers.bucket4jBandwidth(path.limit(), path.window()));
            if (path.rejected()) {
                bucket.tryConsume(1);
            }
        }
    }

    @State(Scope.Benchmark)
    public static class Resilience4jState {
        io.github.resilience4j.ratelimiter.RateLimiter limiter;

        @Setup(Level.Trial)
        public void setUp(Path path) {
            limiter = Peers.resilience4j("single", path.limit(), path.window());
            if (path.rejected()) {
                limiter.acquirePermission();
            }
        }
    }

    @State(Scope.Benchmark)
    public static class GuavaState {
        com.google.common.util.concurrent.RateLimiter limiter;

        @Setup(Level.Trial)
        public void setUp(Path path) {
            limiter = Peers.guava(path.limit() / (double) path.window().toSeconds());
            if (path.rejected()) {
                limiter.tryAcquire();
            }
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
    public boolean leapgateTryAcquire(LeapgateLimiterState state, Outcome outcome) {
        boolean admitted = state.limiter.tryAcquire();
        if (!admitted) {
            outcome.rejected++;
        }
        return admitted;
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
