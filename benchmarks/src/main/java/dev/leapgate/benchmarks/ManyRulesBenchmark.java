package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.http.HttpGate;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OriginList;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
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

/**
 * Decision cost against the number of rules (issue #19): an API with one rule per route, {@code GET
 * /api/r<i>/{id}}, each a limit never reached, and {@code HttpGate.enter} (the HTTP rule engine:
 * find the rules whose patterns match, decide, then {@code close}) for a request to the last route
 * and for a request no rule matches. With matching by a scan over every pattern this grew by
 * about 20 ns per rule; with the segment trie it should not grow at all.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class ManyRulesBenchmark {

    @State(Scope.Benchmark)
    public static class Rules {
        @Param({"1", "100", "1000", "10000"})
        int rules;

        HttpGate gate;
        Origin origin;
        // The request's method and paths are read from these fields, never written as literals in
        // the measured code, so that the JIT cannot fold the path's scan and hashing into constants.
        String method = "GET";
        String lastRoute;
        String unmatchedPath = "/static/app.js";

        @Setup(Level.Trial)
        public void setUp() {
            gate = HttpGate.builder(withRules(ruleSet(rules))).build();
            origin = Workload.origin(7);
            lastRoute = "/api/r" + (rules - 1) + "/42";
        }
    }

    /** {@code n} rules, one per route: {@code GET /api/r<i>/{id}}, 100,000,000 per second each (never reached). */
    static RuleSet ruleSet(int n) {
        List<FlowRule> rules = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rules.add(FlowRule.builder("r" + i)
                    .match("GET /api/r" + i + "/{id}")
                    .limit(100_000_000, WindowSpec.of(Duration.ofSeconds(1)))
                    .build());
        }
        return new RuleSet(rules, OriginList.empty(), OriginList.empty());
    }

    static LeapgateConfig withRules(RuleSet rules) {
        LeapgateConfig d = LeapgateConfig.defaults();
        return new LeapgateConfig(
                rules,
                d.rulesFile(),
                d.reloadInterval(),
                d.clientIp(),
                d.origin(),
                d.response(),
                d.monitoring(),
                d.store());
    }

    @Benchmark
    public boolean lastRoute(Rules state, Outcome outcome) {
        return enterAndClose(state.gate.enter(state.method, state.lastRoute, state.origin), outcome);
    }

    @Benchmark
    public boolean noRuleMatches(Rules state, Outcome outcome) {
        return enterAndClose(state.gate.enter(state.method, state.unmatchedPath, state.origin), outcome);
    }

    private static boolean enterAndClose(Decision decision, Outcome outcome) {
        if (decision instanceof Entry entry) {
            entry.close();
            return true;
        }
        outcome.rejected++;
        return false;
    }
}
