package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.redis.RedisProcess;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A request's decision time while Redis is paused (SIGSTOP): {@code HttpGate.enter} + {@code close}
 * on a per-client rule in the store, {@code store-timeout = 50ms}, {@code store-on-failure =
 * local-share}. The first decisions wait the whole budget, then the circuit breaker opens and
 * decisions are local until it probes Redis again (every second), when a probe waits the budget
 * once more. The p99 must stay within the budget.
 *
 * <pre>java -jar benchmarks.jar RedisPausedBenchmark -t 4</pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class RedisPausedBenchmark {

    private RedisProcess redis;
    private HttpGate gate;
    private Origin[] origins;

    @Setup(Level.Trial)
    public void start() throws Exception {
        redis = RedisProcess.start();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", redis.uri());
        settings.put("store-timeout", "50ms");
        settings.put("store-instances", "2");
        settings.put("rule.api.match", "/api/**");
        settings.put("rule.api.limit", "1000000/1m");
        settings.put("rule.api.scope", "per-origin");
        gate = HttpGate.builder(ConfigParser.parse(settings, "benchmark")).build();
        origins = new Origin[1000];
        for (int i = 0; i < origins.length; i++) {
            origins[i] = Origin.ip(IpAddress.parse("10.1." + (i >> 8) + "." + (i & 255)), 64);
        }
        for (Origin origin : origins) { // connected and warm
            ((Entry) gate.enter("GET", "/api/items", origin)).close();
        }
        redis.pause();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        redis.resume();
        System.out.printf("%nstore: %s%n", gate.store("api").orElseThrow());
        gate.close();
        redis.close();
    }

    @Benchmark
    public boolean pausedRedis() {
        Decision decision = gate.enter(
                "GET", "/api/items", origins[ThreadLocalRandom.current().nextInt(origins.length)]);
        if (decision instanceof Entry entry) {
            entry.close();
            return true;
        }
        return false;
    }
}
