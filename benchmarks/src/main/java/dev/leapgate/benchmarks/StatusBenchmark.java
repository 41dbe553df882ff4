package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.StatusResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
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
 * What the status endpoint costs (issue #14).
 *
 * <ul>
 *   <li>{@code request}: what the adapters do for an ordinary request, {@code HttpGate.status(view)}
 *       (is it the status path?) then {@code HttpGate.enter(view)} and {@code close()}, on a
 *       per-client rule, one client, with {@code status-path} unset ({@code none}) and set;
 *       {@code requestWithoutStatusCheck} is the same without the first call;
 *   <li>{@code statusJson}: one reading of the status (what the live page polls every second and
 *       a {@code curl} gets), for a per-client rule tracking {@code clients} clients, half of them
 *       at their limit (the JSON's {@code limitedClients} scans the rule's table).
 * </ul>
 *
 * <pre>java -jar benchmarks.jar StatusBenchmark -prof gc</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class StatusBenchmark {

    @State(Scope.Benchmark)
    public static class Ordinary {
        @Param({"none", "/leapgate/status"})
        String statusPath;

        HttpGate gate;
        /** {@code GET /api/items} from 203.0.113.7, no forwarding. */
        final RequestView request = new RequestView("GET", "/api/items", null, "203.0.113.7");

        @Setup(Level.Trial)
        public void setUp() {
            Map<String, String> settings = new HashMap<>(Map.of(
                    "rule.api.match", "/api/**",
                    "rule.api.limit", "100000000/1s",
                    "rule.api.scope", "per-origin"));
            if (!statusPath.equals("none")) {
                settings.put("status-path", statusPath);
            }
            gate = HttpGate.builder(ConfigParser.parse(settings, "benchmark")).build();
        }
    }

    @State(Scope.Benchmark)
    public static class Tracking {
        @Param({"1000", "100000"})
        int clients;

        HttpGate gate;

        @Setup(Level.Trial)
        public void setUp() {
            gate = HttpGate.builder(ConfigParser.parse(
                            Map.of(
                                    "rule.api.match", "/api/**",
                                    "rule.api.limit", "2/1h",
                                    "rule.api.scope", "per-origin",
                                    "rule.api.max-origins", String.valueOf(clients),
                                    "rejection-log", "0s"),
                            "benchmark"))
                    .build();
            for (int i = 0; i < clients; i++) {
                int requests = i % 2 == 0 ? 3 : 1; // every other client at its limit, and rejected once
                for (int r = 0; r < requests; r++) {
                    if (gate.enter("GET", "/api/items", Workload.origin(i)) instanceof Entry entry) {
                        entry.close();
                    }
                }
            }
        }
    }

    @Benchmark
    public Decision request(Ordinary state) {
        Optional<StatusResponse> status = state.gate.status(state.request);
        if (status.isPresent()) {
            throw new AssertionError("not the status path");
        }
        Decision decision = state.gate.enter(state.request);
        if (decision instanceof Entry entry) {
            entry.close();
        }
        return decision;
    }

    /** The same request without asking whether it is the status path: the baseline. */
    @Benchmark
    public Decision requestWithoutStatusCheck(Ordinary state) {
        Decision decision = state.gate.enter(state.request);
        if (decision instanceof Entry entry) {
            entry.close();
        }
        return decision;
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public String statusJson(Tracking state) {
        return state.gate.statusJson();
    }
}
