package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the rejection log costs a rejected request (issue #14): {@code HttpGate.enter} on an
 * exhausted per-client rule, for one client, with the log off ({@code rejection-log = 0s}) and on
 * (the default, 10 s; its lines go to the logger, at most one per 10 s).
 *
 * <pre>java -jar benchmarks.jar RejectedRequestBenchmark</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class RejectedRequestBenchmark {

    @State(Scope.Benchmark)
    public static class Gate {
        @Param({"0s", "10s"})
        String rejectionLog;

        HttpGate gate;
        Origin origin;
        // Read from fields, not literals in the measured code, so that the JIT cannot fold them.
        String method = "GET";
        String path = "/api/items";

        @Setup(Level.Trial)
        public void setUp() {
            gate = HttpGate.builder(ConfigParser.parse(
                            Map.of(
                                    "rule.api.match", "/api/**",
                                    "rule.api.limit", "1/1h",
                                    "rule.api.scope", "per-origin",
                                    "rejection-log", rejectionLog),
                            "benchmark"))
                    .build();
            origin = Workload.origin(7);
            Decision first = gate.enter(method, path, origin);
            if (first instanceof Entry entry) {
                entry.close();
            }
        }
    }

    @Benchmark
    public Decision rejected(Gate state) {
        return state.gate.enter(state.method, state.path, state.origin);
    }
}
