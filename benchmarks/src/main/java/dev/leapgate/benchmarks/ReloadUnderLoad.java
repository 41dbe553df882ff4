package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.http.HttpGate;
import dev.leapgate.rule.RuleSet;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Issue #19: does a reload of 10,000 rules make requests wait? Two request threads call {@code
 * HttpGate.enter} + {@code close} on routes of a 10,000-rule set for {@code --seconds} (each call
 * timed with {@code System.nanoTime}), first with no reload, then while a third thread replaces the
 * whole rule set (a new set of 10,000 rules, alternating between two) as fast as it can, or every
 * {@code --reload-every} milliseconds (a rules file is checked every 5 s by default). Prints the
 * request-time percentiles of both phases, the number of reloads and how long building a rule set
 * of 10,000 rules takes, and the heap the compiled set holds.
 *
 * <pre>java -cp benchmarks.jar dev.leapgate.benchmarks.ReloadUnderLoad --seconds 10 [--reload-every 1000]</pre>
 */
public final class ReloadUnderLoad {

    private static final int RULES = 10_000;
    private static final int THREADS = 2;

    public static void main(String[] args) throws Exception {
        int seconds = 10;
        long reloadEveryMillis = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--reload-every" -> reloadEveryMillis = Long.parseLong(args[i + 1]);
                default ->
                    throw new IllegalArgumentException(
                            "unknown option " + args[i] + "; expected --seconds N and --reload-every MILLISECONDS");
            }
        }
        RuleSet a = ManyRulesBenchmark.ruleSet(RULES);
        long heapBefore = usedHeap();
        long buildStart = System.nanoTime();
        HttpGate gate = HttpGate.builder(ManyRulesBenchmark.withRules(a)).build();
        long buildNanos = System.nanoTime() - buildStart;
        long heapAfter = usedHeap();

        phase(gate, seconds / 2, false, 0); // warm-up
        long[] quiet = phase(gate, seconds, false, 0);
        long[] reloading = phase(gate, seconds, true, reloadEveryMillis);

        System.out.printf(
                Locale.ROOT,
                "rules %d: build %.1f ms, compiled rule set about %.1f MB of heap%n",
                RULES,
                buildNanos / 1e6,
                (heapAfter - heapBefore) / 1e6);
        print("no reload", quiet);
        print("reloading", reloading);
        System.out.printf(
                Locale.ROOT,
                "RESULT reload every_ms=%d build_ms=%.1f p999_quiet_ns=%d p999_reloading_ns=%d reloads=%d%n",
                reloadEveryMillis,
                buildNanos / 1e6,
                percentile(quiet, 99.9),
                percentile(reloading, 99.9),
                reloading[reloading.length - 1]);
        System.out.flush();
        System.exit(0);
    }

    /** Request times of all threads, sorted; the last element is the number of reloads. */
    private static long[] phase(HttpGate gate, int seconds, boolean reload, long reloadEveryMillis) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        long[][] times = new long[THREADS][];
        int[] counts = new int[THREADS];
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            Thread thread = new Thread(() -> {
                long[] mine = new long[1 << 24];
                Origin origin = Workload.origin(id);
                int n = 0;
                int route = id;
                while (!stop.get() && n < mine.length) {
                    String path = "/api/r" + route + "/7";
                    route = (route + 7919) % RULES;
                    long start = System.nanoTime();
                    Decision decision = gate.enter("GET", path, origin);
                    if (decision instanceof Entry entry) {
                        entry.close();
                    }
                    mine[n++] = System.nanoTime() - start;
                }
                times[id] = mine;
                counts[id] = n;
                done.countDown();
            });
            thread.start();
        }
        long reloads = 0;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        // Two sets to alternate between, so that every reload changes something (one more rule).
        RuleSet a = reload ? ManyRulesBenchmark.ruleSet(RULES) : null;
        RuleSet b = reload ? ManyRulesBenchmark.ruleSet(RULES + 1) : null;
        while (System.nanoTime() < end) {
            if (reload) {
                gate.update(reloads % 2 == 0 ? b : a);
                reloads++;
                if (reloadEveryMillis > 0) {
                    Thread.sleep(reloadEveryMillis);
                }
            } else {
                Thread.sleep(50);
            }
        }
        stop.set(true);
        done.await();
        int total = Arrays.stream(counts).sum();
        long[] all = new long[total + 1];
        int k = 0;
        for (int t = 0; t < THREADS; t++) {
            System.arraycopy(times[t], 0, all, k, counts[t]);
            k += counts[t];
        }
        Arrays.sort(all, 0, total);
        all[total] = reloads;
        return all;
    }

    private static long percentile(long[] sortedWithTrailer, double p) {
        int n = sortedWithTrailer.length - 1;
        return sortedWithTrailer[Math.min(n - 1, (int) Math.ceil(p / 100 * n) - 1)];
    }

    private static void print(String phase, long[] times) {
        System.out.printf(
                Locale.ROOT,
                "%-10s requests %,d  p50 %d ns  p99 %d ns  p99.9 %d ns  p99.99 %d ns  max %d ns  reloads %d%n",
                phase,
                times.length - 1,
                percentile(times, 50),
                percentile(times, 99),
                percentile(times, 99.9),
                percentile(times, 99.99),
                times[times.length - 2],
                times[times.length - 1]);
    }

    private static long usedHeap() throws InterruptedException {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
            Runtime r = Runtime.getRuntime();
            best = Math.min(best, r.totalMemory() - r.freeMemory());
        }
        return best;
    }
}
