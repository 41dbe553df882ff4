package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.redis.RedisProcess;
import dev.leapgate.redis.RedisWindowStore;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.store.FailurePolicy;
import dev.leapgate.store.SharedWindow;
import dev.leapgate.store.StoreSettings;
import dev.leapgate.store.Verdict;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Shared windows on a loopback Redis (issue #13), decisions per second and their latency, against
 * the floor and a peer, in one run:
 *
 * <ul>
 *   <li>{@code floor}: a bare {@code EVALSHA} of {@code return redis.call('INCR', KEYS[1])} on one
 *       Lettuce connection, waited for: the least any one-round-trip decision can cost;
 *   <li>{@code leapgateStore}: one decision of Leapgate's store, {@code RedisWindowStore.tryAcquire}
 *       waited for (a 1 min window of 10 buckets, a limit never reached);
 *   <li>{@code leapgateGate}: what a user's request calls, {@code HttpGate.enter} + {@code close}, a
 *       per-client rule in the store (the same window);
 *   <li>{@code bucket4j}: Bucket4j 8.19 on Lettuce ({@code casBasedBuilder}), {@code tryConsume(1)}
 *       on a bucket it never empties: a {@code GET} and a compare-and-swap {@code EVAL} per call,
 *       the pair again when another client changed the bucket in between;
 *   <li>{@code bucket4jBatching}: the same with Bucket4j's {@code Optimizations.batching()}, which
 *       its maintainer recommends for heavily loaded keys: calls to a bucket made while one is in
 *       flight go to Redis together, as Leapgate's store coalesces the decisions of a key (which it
 *       does by default; Bucket4j's optimization is opt-in).
 * </ul>
 *
 * {@code clients}: 1 (one hot key) or 100000 (a key drawn per call, Zipf 1.0: a few clients send
 * most requests, as on a real service). The Redis is the
 * binary named by {@code -Dleapgate.redis.server=...} (e.g. Debian's {@code /usr/bin/redis-server},
 * 7.0), else the one {@code embedded-redis} ships (6.2), started on a free loopback port per fork.
 * After each run the Redis commands per decision are printed from {@code INFO commandstats}.
 *
 * <pre>java -jar benchmarks.jar RedisStoreBenchmark -t 4</pre>
 */
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class RedisStoreBenchmark {

    @Param({"1", "100000"})
    int clients;

    private RedisProcess redis;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private RedisAsyncCommands<String, String> commands;
    private String incrSha;
    private RedisWindowStore store;
    private SharedWindow window;
    private HttpGate gate;
    private Origin[] origins;
    private String[] keys;
    /** The floor's keys, built in the set-up as the store's are: no string is built in the measured code. */
    private String[] floorKeys;

    private RedisClient bucket4jClient;
    private StatefulRedisConnection<String, byte[]> bucket4jConnection;
    private ProxyManager<String> bucket4j;
    private BucketProxy[] buckets;
    private BucketProxy[] batchingBuckets;

    @Setup(Level.Trial)
    public void start() throws Exception {
        redis = RedisProcess.start();
        String uri = redis.uri();
        client = RedisClient.create(uri);
        connection = client.connect();
        commands = connection.async();
        incrSha = connection.sync().scriptLoad("return redis.call('INCR', KEYS[1])");

        window = SharedWindow.of("api", WindowSpec.of(Duration.ofMinutes(1)), Integer.MAX_VALUE);
        store = RedisWindowStore.open(
                new StoreSettings(URI.create(uri), "bench", Duration.ofSeconds(1), FailurePolicy.CLOSED, 1));
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", uri);
        settings.put("store-timeout", "1s");
        settings.put("store-on-failure", "closed");
        settings.put("store-instances", "1");
        settings.put("rule.api.match", "/api/**");
        settings.put("rule.api.limit", Integer.MAX_VALUE + "/1m");
        settings.put("rule.api.scope", "per-origin");
        gate = HttpGate.builder(ConfigParser.parse(settings, "benchmark")).build();

        draws = ZipfKeys.draw(clients, 1.0, 1 << 20, 42);
        origins = new Origin[clients];
        keys = new String[clients];
        floorKeys = new String[clients];
        for (int i = 0; i < clients; i++) {
            origins[i] = Origin.ip(IpAddress.parse("10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255)), 64);
            keys[i] = "{o:" + origins[i].id() + "}:api:6000x10";
            floorKeys[i] = "floor:" + keys[i];
        }

        bucket4jClient = RedisClient.create(uri);
        bucket4jConnection = bucket4jClient.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
        bucket4j = Bucket4jLettuce.casBasedBuilder(bucket4jConnection)
                .expirationAfterWrite(
                        ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofMinutes(1)))
                .build();
        BucketConfiguration configuration = BucketConfiguration.builder()
                .addLimit(limit ->
                        limit.capacity(Integer.MAX_VALUE).refillGreedy(Integer.MAX_VALUE, Duration.ofMinutes(1)))
                .build();
        buckets = new BucketProxy[clients];
        batchingBuckets = new BucketProxy[clients];
        for (int i = 0; i < clients; i++) {
            buckets[i] = bucket4j.builder().build("b4j:" + keys[i], () -> configuration);
            // An optimized bucket must be kept and reused (Bucket4j's RemoteBucketBuilder says so):
            // it holds the batch of calls in flight.
            batchingBuckets[i] = bucket4j.builder()
                    .withOptimization(Optimizations.batching())
                    .build("b4j-batching:" + keys[i], () -> configuration);
        }
        connection.sync().configResetstat();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        String stats = connection.sync().info("commandstats");
        long evalsha = calls(stats, "evalsha");
        long inner = calls(stats, "get") + calls(stats, "set") + calls(stats, "time") + calls(stats, "incr");
        System.out.printf(
                "%nRedis: %d EVALSHA (%s us each inside Redis), %d GET/SET/TIME/INCR (inside scripts, and"
                        + " Bucket4j's own GET before each EVAL); other commands: %s%n",
                evalsha, field(stats, "evalsha", "usec_per_call"), inner, otherCommands(stats));
        gate.close();
        store.close();
        bucket4jConnection.close();
        bucket4jClient.shutdown();
        connection.close();
        client.shutdown();
        redis.close();
    }

    private static long calls(String stats, String command) {
        for (String line : stats.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                String rest = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(rest.substring(0, rest.indexOf(',')));
            }
        }
        return 0;
    }

    private static String field(String stats, String command, String name) {
        for (String line : stats.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                int at = line.indexOf(name + "=") + name.length() + 1;
                int end = line.indexOf(',', at);
                return line.substring(at, end < 0 ? line.length() : end);
            }
        }
        return "-";
    }

    private static String otherCommands(String stats) {
        StringBuilder other = new StringBuilder();
        for (String line : stats.split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring(8, line.indexOf(':'));
                if (!List.of(
                                "evalsha",
                                "get",
                                "set",
                                "time",
                                "incr",
                                "info",
                                "config|resetstat",
                                "config",
                                "script|load",
                                "script",
                                "hello",
                                "client|setinfo",
                                "client")
                        .contains(command)) {
                    other.append(command)
                            .append('=')
                            .append(calls(stats, command))
                            .append(' ');
                }
            }
        }
        return other.toString().strip();
    }

    /** Key indexes drawn Zipf 1.0 over {@code clients}; each call takes one at a random position. */
    private int[] draws;

    // The gate's request, read from fields, not literals in the measured code.
    private String method = "GET";
    private String path = "/api/items";

    private int next() {
        return clients == 1 ? 0 : draws[ThreadLocalRandom.current().nextInt() & (draws.length - 1)];
    }

    @Benchmark
    public Object floor() throws Exception {
        return commands.<Long>evalsha(incrSha, ScriptOutputType.INTEGER, floorKeys[next()])
                .get(1, TimeUnit.SECONDS);
    }

    @Benchmark
    public Verdict leapgateStore() throws Exception {
        return store.tryAcquire(window, keys[next()], 1).toCompletableFuture().get(1, TimeUnit.SECONDS);
    }

    @Benchmark
    public boolean leapgateGate() {
        Decision decision = gate.enter(method, path, origins[next()]);
        if (decision instanceof Entry entry) {
            entry.close();
            return true;
        }
        return false;
    }

    @Benchmark
    public boolean bucket4j() {
        return buckets[next()].tryConsume(1);
    }

    @Benchmark
    public boolean bucket4jBatching() {
        return batchingBuckets[next()].tryConsume(1);
    }
}
