package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.internal.counter.KeyedRateCounter;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
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
 * Issue #20: a flood of clients. Every call comes from a client not seen for millions of calls
 * (4,194,304 addresses in turn), against one per-client rule at the default {@code max-origins}
 * (100,000) and the default window shape (1 s, 10 buckets), so that after the first 100,000 calls
 * every call inserts into a full table and evicts.
 *
 * <ul>
 *   <li>{@link #leapgateNewClient}: {@code HttpGate.enter} + {@code close} for a new client;
 *   <li>{@link #leapgateKnownClient}: the same call for one of 1,000 clients that stay tracked,
 *       in a table filled by the flood (what O(1) is measured against: a new client at a full
 *       table should cost at most twice this);
 *   <li>{@link #leapgateTrackedClient}: the same call for one of {@link #TRACKED} clients drawn at
 *       random, all tracked (the table nine-tenths full, nothing evicted): a known client whose
 *       state is as far from the processor as a new client's, as on a server whose clients are
 *       many (the 1,000 clients above stay in its caches);
 *   <li>{@link #leapgateTableNewClient}: the per-client table beneath, alone ({@code
 *       KeyedRateCounter.tryAcquire} for a new key: no rule, no entry, no statistics);
 *   <li>{@link #leapgateTableTrackedClient}: the table alone for one of 90,000 or 900,000 keys
 *       drawn at random, read in order from an array (no client object to fetch): the index slot
 *       and the entry, the two cache misses of a tracked client's lookup;
 *   <li>{@link #bucket4jCaffeineNewClient}: Bucket4j with a bucket per key in a Caffeine cache of
 *       the same size, for a new key (a lookup, a new bucket, an insertion and an eviction);
 *       Caffeine evicts on the common pool, its default, so on this 2-core machine part of the
 *       work runs on the other core and is not in the time per call;
 *   <li>{@link #bucket4jCaffeineNewClientEvictingOnCaller}: the same with Caffeine evicting on the
 *       calling thread ({@code executor(Runnable::run)}), as Leapgate's table does: all of a new
 *       key's work in the time per call.
 * </ul>
 *
 * The limit (60,000 a second per client, held in 16-bit buckets like any limit up to 65,535) is
 * never reached, so that the admitted path is what is measured ({@code :rejected} stays 0); what remembering evicted clients costs well-behaved
 * ones is measured by {@link OverSubscribedClients}. Report every iteration, not only the mean:
 *
 * <pre>java -jar benchmarks.jar ClientFloodBenchmark -rf json</pre>
 *
 * <p>The heap is touched before the run ({@code -XX:+AlwaysPreTouch}, as in every benchmark here):
 * a server that has run for a while has, and on this virtual machine a fresh JVM's first pass
 * through a young generation of 2 GB takes a page fault every 4 KB, which made a new client's
 * {@code HttpGate.enter} + {@code close} (72 bytes allocated) cost about 600 ns instead of 315.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 15, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class ClientFloodBenchmark {

    /** Distinct flood addresses, a power of two. */
    static final int FLOOD = 1 << 22;

    static final int KNOWN = 1_000;
    static final int LIMIT = 60_000;
    static final int MAX_ORIGINS = 100_000;
    /** Clients of {@link #leapgateTrackedClient}: fewer than {@code MAX_ORIGINS}, so that no segment is full. */
    static final int TRACKED = 90_000;

    /** The flood's addresses, 10.0.0.0 on, as the engine sees a client. */
    @State(Scope.Benchmark)
    public static class Addresses {
        Origin[] flood;
        Long[] floodKeys;
        Origin[] known;

        @Setup(Level.Trial)
        public void setUp() {
            flood = new Origin[FLOOD];
            floodKeys = new Long[FLOOD];
            for (int i = 0; i < FLOOD; i++) {
                flood[i] = Workload.origin(i);
                floodKeys[i] = Workload.key(i);
            }
            known = new Origin[KNOWN];
            for (int i = 0; i < KNOWN; i++) {
                known[i] = Origin.ip(IpAddress.parse("192.168." + (i / 250) + "." + (i % 250)), 64);
            }
        }
    }

    /** Where this thread is in the flood. */
    @State(Scope.Thread)
    public static class Cursor {
        int position;
    }

    /**
     * The request's method and path, read from fields rather than written as literals in the
     * measured code, so that the JIT cannot fold the path's scan and hashing into constants (as in
     * ManyRulesBenchmark).
     */
    @State(Scope.Benchmark)
    public static class Request {
        String method = "GET";
        String path = "/api/orders";
    }

    @State(Scope.Benchmark)
    public static class Gate {
        HttpGate gate;

        @Setup(Level.Trial)
        public void setUp(Addresses addresses) {
            gate = gate();
            // A full table: the known clients, then the flood's last 200,000 addresses (the
            // measured flood starts at its first), then the known clients once more.
            for (Origin origin : addresses.known) {
                enter(gate, origin);
            }
            for (int i = FLOOD - 200_000; i < FLOOD; i++) {
                enter(gate, addresses.flood[i]);
            }
            for (Origin origin : addresses.known) {
                enter(gate, origin);
            }
        }

        static HttpGate gate() {
            return HttpGate.builder(ConfigParser.parse(
                            Map.of(
                                    "rule.per-ip.match", "/api/**",
                                    "rule.per-ip.limit", LIMIT + "/1s",
                                    "rule.per-ip.scope", "per-origin",
                                    "rule.per-ip.max-origins", Integer.toString(MAX_ORIGINS),
                                    "rejection-log", "0s"),
                            "benchmark"))
                    .build();
        }
    }

    /** A gate whose table holds {@link #TRACKED} clients, the flood's first addresses, and no others. */
    @State(Scope.Benchmark)
    public static class TrackedGate {
        HttpGate gate;
        int[] draws;

        @Setup(Level.Trial)
        public void setUp(Addresses addresses) {
            gate = Gate.gate();
            for (int i = 0; i < TRACKED; i++) {
                enter(gate, addresses.flood[i]);
            }
            draws = new int[1 << 20];
            SplittableRandom random = new SplittableRandom(42);
            for (int i = 0; i < draws.length; i++) {
                draws[i] = random.nextInt(TRACKED);
            }
        }
    }

    /** The per-client table beneath the engine, alone: one window per key, no rule, no entry. */
    @State(Scope.Benchmark)
    public static class Table {
        KeyedRateCounter counter;
        long[] keys;

        @Setup(Level.Trial)
        public void setUp() {
            counter = new KeyedRateCounter(WindowSpec.of(Duration.ofSeconds(1)), LIMIT, System.nanoTime(), MAX_ORIGINS);
            keys = new long[FLOOD];
            for (int i = 0; i < FLOOD; i++) {
                keys[i] = Workload.key(i);
            }
        }
    }

    /**
     * A table like {@link Table}'s holding {@code tracked} keys, nine-tenths of its {@code
     * max-origins}, and the keys of a random sequence of them, read in order: a tracked client's
     * decision in the table alone. At {@link #TRACKED} (the default {@code max-origins}) the table,
     * about 5 MB, fits in this machine's 32 MB last-level cache; at ten times that it does not.
     */
    @State(Scope.Benchmark)
    public static class TrackedTable {
        @Param({"90000", "900000"})
        int tracked;

        KeyedRateCounter counter;
        long[] draws;

        @Setup(Level.Trial)
        public void setUp() {
            counter = new KeyedRateCounter(
                    WindowSpec.of(Duration.ofSeconds(1)), LIMIT, System.nanoTime(), tracked / 9 * 10);
            for (int i = 0; i < tracked; i++) {
                counter.tryAcquire(Workload.key(i), System.nanoTime(), 1);
            }
            draws = new long[1 << 20];
            SplittableRandom random = new SplittableRandom(42);
            for (int i = 0; i < draws.length; i++) {
                draws[i] = Workload.key(random.nextInt(tracked));
            }
        }
    }

    @State(Scope.Benchmark)
    public static class Bucket4jCaffeine {
        Peers.Bucket4jPerKey buckets;

        @Setup(Level.Trial)
        public void setUp() {
            buckets = new Peers.Bucket4jPerKey(LIMIT, Duration.ofSeconds(1), MAX_ORIGINS);
        }
    }

    @State(Scope.Benchmark)
    public static class Bucket4jCaffeineOnCaller {
        Peers.Bucket4jPerKey buckets;

        @Setup(Level.Trial)
        public void setUp() {
            buckets = new Peers.Bucket4jPerKey(LIMIT, Duration.ofSeconds(1), MAX_ORIGINS, true);
        }
    }

    @Benchmark
    public boolean leapgateNewClient(Gate gate, Addresses addresses, Request request, Cursor cursor, Outcome outcome) {
        boolean admitted = enter(gate.gate, request, addresses.flood[cursor.position++ & (FLOOD - 1)]);
        outcome.rejected += admitted ? 0 : 1;
        return admitted;
    }

    @Benchmark
    public long leapgateTableNewClient(Table table, Cursor cursor) {
        return table.counter.tryAcquire(table.keys[cursor.position++ & (FLOOD - 1)], System.nanoTime(), 1);
    }

    @Benchmark
    public long leapgateTableTrackedClient(TrackedTable table, Cursor cursor) {
        return table.counter.tryAcquire(
                table.draws[cursor.position++ & (table.draws.length - 1)], System.nanoTime(), 1);
    }

    @Benchmark
    public boolean leapgateKnownClient(
            Gate gate, Addresses addresses, Request request, Cursor cursor, Outcome outcome) {
        boolean admitted = enter(gate.gate, request, addresses.known[cursor.position++ % KNOWN]);
        outcome.rejected += admitted ? 0 : 1;
        return admitted;
    }

    @Benchmark
    public boolean leapgateTrackedClient(
            TrackedGate gate, Addresses addresses, Request request, Cursor cursor, Outcome outcome) {
        int draw = gate.draws[cursor.position++ & (gate.draws.length - 1)];
        boolean admitted = enter(gate.gate, request, addresses.flood[draw]);
        outcome.rejected += admitted ? 0 : 1;
        return admitted;
    }

    @Benchmark
    public boolean bucket4jCaffeineNewClient(
            Bucket4jCaffeine state, Addresses addresses, Cursor cursor, Outcome outcome) {
        boolean admitted = state.buckets.tryConsume(addresses.floodKeys[cursor.position++ & (FLOOD - 1)]);
        outcome.rejected += admitted ? 0 : 1;
        return admitted;
    }

    @Benchmark
    public boolean bucket4jCaffeineNewClientEvictingOnCaller(
            Bucket4jCaffeineOnCaller state, Addresses addresses, Cursor cursor, Outcome outcome) {
        boolean admitted = state.buckets.tryConsume(addresses.floodKeys[cursor.position++ & (FLOOD - 1)]);
        outcome.rejected += admitted ? 0 : 1;
        return admitted;
    }

    /** In the set-up only: the measured methods pass their {@link Request}. */
    private static boolean enter(HttpGate gate, Origin origin) {
        return enter(gate, new Request(), origin);
    }

    private static boolean enter(HttpGate gate, Request request, Origin origin) {
        Decision decision = gate.enter(request.method, request.path, origin);
        if (decision instanceof Entry entry) {
            entry.close();
            return true;
        }
        return false;
    }
}
