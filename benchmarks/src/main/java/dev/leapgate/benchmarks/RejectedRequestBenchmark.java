package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.RejectionResponse;
import java.util.HashMap;
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
 * What a rejected request costs: {@code HttpGate.enter} on an exhausted per-client rule, for one
 * client, with the rejection log off ({@code rejection-log = 0s}) and on (the default, 10 s; its
 * lines go to the logger, at most one per 10 s; issue #14), for a rate and a concurrency limit.
 * Run with {@code -t 2} as well: threads rejecting one abusive client at once should each cost
 * what one thread does.
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

        /**
         * The per-client rule: {@code limit} 1 per hour (its one request made in the set-up), or
         * {@code in-flight} 1 (its one request held open through the run); or {@code denied}, the
         * client's address on the {@code deny} list (a 403 answered before any rule).
         */
        @Param({"limit", "in-flight", "denied"})
        String rule;

        HttpGate gate;
        Origin origin;
        // Read from fields, not literals in the measured code, so that the JIT cannot fold them.
        String method = "GET";
        String path = "/api/items";

        @Setup(Level.Trial)
        public void setUp() {
            Map<String, String> settings = new HashMap<>(Map.of(
                    "rule.api.match",
                    "/api/**",
                    "rule.api." + (rule.equals("in-flight") ? "in-flight" : "limit"),
                    rule.equals("in-flight") ? "1" : "1/1h",
                    "rule.api.scope",
                    "per-origin",
                    "rejection-log",
                    rejectionLog));
            if (rule.equals("denied")) {
                settings.put("deny", Workload.keyText(7));
            }
            gate = HttpGate.builder(ConfigParser.parse(settings, "benchmark")).build();
            origin = Workload.origin(7);
            if (rule.equals("denied")) {
                if (!(gate.enter(method, path, origin) instanceof Rejection)) {
                    throw new IllegalStateException("the denied client was not rejected");
                }
                return;
            }
            if (!(gate.enter(method, path, origin) instanceof Entry first)) {
                throw new IllegalStateException("the client's first request was not admitted");
            }
            if (rule.equals("limit")) {
                first.close(); // an in-flight rule's stays open: every request after it is rejected
            }
        }
    }

    @Benchmark
    public Decision rejected(Gate state) {
        return state.gate.enter(state.method, state.path, state.origin);
    }

    /**
     * The rejection and its answer, as an adapter makes it ({@code HttpGate.rejection}): the 429's
     * {@code Retry-After}, rate-limit fields and problem body, read from the client's window (a
     * denied client's 403: its problem body).
     */
    @Benchmark
    public RejectionResponse rejectedAndAnswered(Gate state) {
        return state.gate.rejection((Rejection) state.gate.enter(state.method, state.path, state.origin));
    }
}
