package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.redis.RedisProcess;
import dev.leapgate.stats.StoreStats;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A gate's first decisions on Redis after a start: how long building the gate takes, how long each
 * of its first decisions takes, and how many of them its {@code store-on-failure} made because the
 * store was not ready yet. Each start is a fresh JVM (a child of this one, on the same class path),
 * so connecting, loading the script and loading the decision path's classes are all in it; one
 * redis-server on loopback serves every start. The gate has one shared rule, {@code POST /login}
 * at 10 per minute per client, with the default {@code store-timeout} of 50 ms and {@code
 * store-on-failure = local-share}; each of the first decisions is a new client.
 *
 * <pre>
 * java -cp benchmarks.jar dev.leapgate.benchmarks.RedisColdStart [--starts 3] [--decisions 8]
 * </pre>
 */
public final class RedisColdStart {

    private RedisColdStart() {}

    public static void main(String[] args) throws Exception {
        int starts = OverSubscribedClients.intArg(args, "--starts", 3);
        int decisions = OverSubscribedClients.intArg(args, "--decisions", 8);
        if (args.length >= 2 && args[0].equals("--start")) {
            oneStart(args[1], decisions);
            return;
        }
        try (RedisProcess redis = RedisProcess.start()) {
            System.out.printf(
                    Locale.ROOT,
                    "%d starts, each a fresh JVM: one shared per-client rule, store-timeout 50 ms, %d decisions"
                            + " right after the gate is built%n",
                    starts,
                    decisions);
            for (int i = 0; i < starts; i++) {
                List<String> command = new ArrayList<>();
                command.add(ProcessHandle.current().info().command().orElse("java"));
                command.add("-cp");
                command.add(System.getProperty("java.class.path"));
                command.add(RedisColdStart.class.getName());
                command.addAll(List.of("--start", redis.uri(), "--decisions", Integer.toString(decisions)));
                Path output = Files.createTempFile("leapgate-cold-start", ".log");
                try {
                    Process child = new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectOutput(output.toFile())
                            .start();
                    boolean ended = child.waitFor(60, TimeUnit.SECONDS);
                    if (!ended) {
                        child.destroyForcibly().waitFor();
                    }
                    List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
                    if (!ended || child.exitValue() != 0) {
                        lines.forEach(System.out::println);
                        throw new IllegalStateException(
                                "start " + (i + 1) + (ended ? " failed (its output above)" : " did not end in 60 s"));
                    }
                    lines.stream().filter(line -> line.startsWith("start:")).forEach(System.out::println);
                } finally {
                    Files.deleteIfExists(output);
                }
            }
        }
    }

    /** One start, in this JVM: build the gate on {@code store}, decide, print one line. */
    private static void oneStart(String store, int decisions) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", store);
        settings.put("store-instances", "2");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "10/1m");
        settings.put("rule.login.scope", "per-origin");
        long begin = System.nanoTime();
        HttpGate gate =
                HttpGate.builder(ConfigParser.parse(settings, "cold start")).build();
        long built = System.nanoTime();
        StringBuilder times = new StringBuilder();
        for (int i = 0; i < decisions; i++) {
            long before = System.nanoTime();
            Decision decision = gate.enter("POST", "/login", Origin.ip(IpAddress.parse("10.1.2." + i), 64));
            long micros = (System.nanoTime() - before) / 1_000;
            if (decision instanceof Entry entry) {
                entry.close();
            }
            times.append(times.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", micros / 1e3));
        }
        StoreStats stats = gate.store("login").orElseThrow();
        System.out.printf(
                Locale.ROOT,
                "start: gate built in %d ms; decisions %s ms; by store-on-failure %d of %d; outages %d%n",
                (built - begin) / 1_000_000,
                times,
                stats.decidedWithoutStore(),
                decisions,
                stats.outages());
        gate.close();
    }
}
