package dev.leapgate.benchmarks;

import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Limiter;
import dev.leapgate.internal.counter.LeapCounter;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import io.github.bucket4j.Bucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongFunction;

/**
 * Part 4 of issue #7: how many requests each library really admits within one second, when threads
 * hammer a limit of N per second for several seconds of real time.
 *
 * <p>For each library: create the limiter, leave it idle for a lead-in (1.5 s by default: long
 * enough for a token bucket to fill, and the load then starts in the middle of a fixed cycle, as
 * real traffic does), then let the threads call it in a tight loop until the run ends, each
 * recording the {@code System.nanoTime()} of every admission. Reported, as multiples of N:
 *
 * <ul>
 *   <li>the worst sliding span: the most admissions in any closed 1 s span, first second
 *       included;
 *   <li>the worst aligned second: the most in any second {@code [k, k+1)} counted from the
 *       limiter's creation (the grid of Leapgate's buckets and of Resilience4j's cycles);
 *   <li>the first second of load, and the mean per second over the whole load.
 * </ul>
 *
 * <p>Timestamps: Leapgate is given the clock reading it decides with, and that reading is recorded
 * (for the {@link Limiter}, the entry's {@code startNanos()}); the peers read their clocks inside,
 * so the reading right after the call returns is recorded. Either way the reading is within
 * microseconds of the decision unless the thread loses its CPU in between.
 *
 * <pre>
 * java -cp benchmarks.jar dev.leapgate.benchmarks.AccuracyUnderContention
 *      [--limit 1000] [--seconds 5] [--threads 4] [--lead-in-ms 1500] [--only id,id...]
 * </pre>
 */
public final class AccuracyUnderContention {

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final long SECOND_NANOS = SECOND.toNanos();

    /** One library under test: asked for one permit, it returns the admission's time, or -1. */
    @FunctionalInterface
    interface Gate {
        long tryAdmit();
    }

    private record Subject(String id, String label, LongFunction<Gate> factory) {}

    private AccuracyUnderContention() {}

    public static void main(String[] args) throws InterruptedException {
        Map<String, String> options = options(args);
        int limit = Integer.parseInt(options.getOrDefault("limit", "1000"));
        int seconds = Integer.parseInt(options.getOrDefault("seconds", "5"));
        int threads = Integer.parseInt(options.getOrDefault("threads", "4"));
        long leadInNanos = Duration.ofMillis(Long.parseLong(options.getOrDefault("lead-in-ms", "1500")))
                .toNanos();
        List<String> only =
                options.containsKey("only") ? List.of(options.get("only").split(",")) : List.of();

        Peers.sentinelLogs();
        List<Subject> subjects = subjects(limit);
        System.out.printf(
                Locale.ROOT,
                "Accuracy under contention: limit N = %d per second, %d threads, %d s of load after %d ms idle%n",
                limit,
                threads,
                seconds,
                leadInNanos / 1_000_000);
        System.out.printf(
                Locale.ROOT,
                "%-28s %14s %14s %12s %12s %10s%n",
                "library",
                "worst 1s span",
                "worst aligned",
                "first 1s",
                "mean /s",
                "admitted");
        for (Subject subject : subjects) {
            if (!only.isEmpty() && !only.contains(subject.id())) {
                continue;
            }
            AdmissionStats stats = run(subject, threads, seconds, leadInNanos, limit);
            long loadNanos = seconds * SECOND_NANOS;
            System.out.printf(
                    Locale.ROOT,
                    "%-28s %13.3fN %13.3fN %11.3fN %11.3fN %10d%n",
                    subject.label(),
                    stats.worstSpanRatio(),
                    stats.worstAlignedRatio(),
                    stats.firstSpanRatio(),
                    stats.meanRatio(loadNanos, SECOND_NANOS),
                    stats.admitted());
            System.out.printf(
                    Locale.ROOT,
                    "RESULT\taccuracy\t%s\t%s\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%d%n",
                    subject.id(),
                    subject.label(),
                    limit,
                    threads,
                    seconds,
                    stats.worstSpanRatio(),
                    stats.worstAlignedRatio(),
                    stats.firstSpanRatio(),
                    stats.meanRatio(loadNanos, SECOND_NANOS),
                    stats.admitted());
        }
        // Sentinel leaves non-daemon threads behind.
        System.exit(0);
    }

    private static List<Subject> subjects(int limit) {
        List<Subject> subjects = new ArrayList<>();
        subjects.add(new Subject("leapgate-strict", "Leapgate strict (10 buckets)", origin -> {
            LeapCounter counter = new LeapCounter(WindowSpec.of(SECOND, 10), limit, origin);
            return () -> {
                long now = System.nanoTime();
                return counter.tryAcquire(now, 1) >= 0 ? now : -1;
            };
        }));
        subjects.add(new Subject("leapgate-limiter", "Leapgate Limiter (strict, 10)", origin -> {
            Limiter limiter = Limiter.builder("accuracy")
                    .rate(limit, WindowSpec.of(SECOND, 10))
                    .build();
            return () -> {
                Decision decision = limiter.tryEnter();
                if (decision instanceof Entry entry) {
                    entry.close();
                    return entry.startNanos();
                }
                return -1;
            };
        }));
        subjects.add(new Subject("leapgate-sliding", "Leapgate sliding (10 buckets)", origin -> {
            LeapCounter counter = new LeapCounter(new WindowSpec(SECOND, 10, WindowMode.SLIDING), limit, origin);
            return () -> {
                long now = System.nanoTime();
                return counter.tryAcquire(now, 1) >= 0 ? now : -1;
            };
        }));
        subjects.add(new Subject("sentinel", "Sentinel (QPS rule)", origin -> {
            String resource = "accuracy-" + origin;
            Peers.sentinelQpsRule(resource, limit);
            return () -> {
                try {
                    SphU.entry(resource).exit();
                    return System.nanoTime();
                } catch (BlockException e) {
                    return -1;
                }
            };
        }));
        subjects.add(new Subject("bucket4j", "Bucket4j (greedy refill)", origin -> {
            Bucket bucket = Peers.bucket4j(Peers.bucket4jBandwidth(limit, SECOND));
            return () -> bucket.tryConsume(1) ? System.nanoTime() : -1;
        }));
        subjects.add(new Subject("resilience4j", "Resilience4j", origin -> {
            io.github.resilience4j.ratelimiter.RateLimiter limiter = Peers.resilience4j("accuracy", limit, SECOND);
            return () -> limiter.acquirePermission() ? System.nanoTime() : -1;
        }));
        subjects.add(new Subject("guava", "Guava (SmoothBursty)", origin -> {
            com.google.common.util.concurrent.RateLimiter limiter = Peers.guava(limit);
            return () -> limiter.tryAcquire() ? System.nanoTime() : -1;
        }));
        return subjects;
    }

    private static AdmissionStats run(Subject subject, int threads, int seconds, long leadInNanos, int limit)
            throws InterruptedException {
        // Load the library's classes and run its set-up path once on a throwaway instance, so that
        // the measured instance is not created in the middle of class loading.
        subject.factory().apply(System.nanoTime()).tryAdmit();

        long origin = System.nanoTime();
        Gate gate = subject.factory().apply(origin);
        CountDownLatch go = new CountDownLatch(1);
        long[][] recorded = new long[threads][];
        long[] loadStart = new long[1];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread worker = new Thread(
                    () -> {
                        long[] times = new long[1024];
                        int count = 0;
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                        long end = loadStart[0] + seconds * SECOND_NANOS;
                        while (System.nanoTime() < end) {
                            long admittedAt = gate.tryAdmit();
                            if (admittedAt >= 0) {
                                if (count == times.length) {
                                    times = Arrays.copyOf(times, count * 2);
                                }
                                times[count++] = admittedAt;
                            }
                        }
                        recorded[index] = Arrays.copyOf(times, count);
                    },
                    "hammer-" + subject.id() + "-" + t);
            workers.add(worker);
            worker.start();
        }
        long sleepNanos = origin + leadInNanos - System.nanoTime();
        if (sleepNanos > 0) {
            Thread.sleep(sleepNanos / 1_000_000, (int) (sleepNanos % 1_000_000));
        }
        loadStart[0] = System.nanoTime();
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long[] all = Arrays.stream(recorded).flatMapToLong(Arrays::stream).toArray();
        return AdmissionStats.of(all, origin, loadStart[0], SECOND_NANOS, limit);
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + Arrays.toString(args));
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }
}
