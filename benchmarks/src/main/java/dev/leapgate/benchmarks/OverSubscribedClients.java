package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Issue #20: more active clients than a per-client rule tracks. Abusive clients, 3 and 20 times
 * {@code max-origins} of them, each sending far above its limit from several threads at once,
 * against {@code HttpGate.enter} + {@code close} with one rule of N per W per client; meanwhile
 * well-behaved clients send well under the limit (one request every {@code W / 2}, so at most 2
 * in any span W, against N = 5), and after each of their requests a first-time client (one never
 * seen before) sends one.
 *
 * <p>Every admission's clock reading (the entry's {@code startNanos()}, the reading the decision
 * was made with) is recorded per client, and the checker reports, over every client, the most
 * admissions in any span of length W (the promise: never more than N, tracked or evicted), and
 * what remembering evicted clients costs: the share of well-behaved clients that were rejected at
 * least once, the share of their requests that were, and the share of first-time clients rejected
 * (a client that was never evicted, whose words in the memory of evicted clients hold only
 * others' use).
 *
 * <pre>
 * java -cp benchmarks.jar dev.leapgate.benchmarks.OverSubscribedClients
 *      [--max-origins 1000] [--limit 5] [--seconds 3] [--threads 4]
 * </pre>
 */
public final class OverSubscribedClients {

    private static final long WINDOW_NANOS = 1_000_000_000L;
    private static final int WELL_BEHAVED = 200;
    /** First-time clients available: one per well-behaved request, 400 a second. */
    private static final int FIRST_TIMERS = 20_000;

    private OverSubscribedClients() {}

    public static void main(String[] args) throws Exception {
        int maxOrigins = intArg(args, "--max-origins", 1_000);
        int limit = intArg(args, "--limit", 5);
        int seconds = intArg(args, "--seconds", 3);
        int threads = intArg(args, "--threads", 4);
        System.out.printf(
                Locale.ROOT,
                "N = %d per 1 s per client (10 buckets, strict), max-origins %d, %d abusive threads, %d s,"
                        + " %d well-behaved clients at one request per 0.5 s each%n",
                limit,
                maxOrigins,
                threads,
                seconds,
                WELL_BEHAVED);
        for (int factor : new int[] {3, 20}) {
            run(factor * maxOrigins, factor, maxOrigins, limit, seconds, threads);
        }
    }

    private static void run(int abusive, int factor, int maxOrigins, int limit, int seconds, int threads)
            throws Exception {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of(
                                "rule.per-ip.match", "/**",
                                "rule.per-ip.limit", limit + "/1s",
                                "rule.per-ip.scope", "per-origin",
                                "rule.per-ip.max-origins", Integer.toString(maxOrigins),
                                "rejection-log", "0s"),
                        "over-subscribed"))
                .build();
        Origin[] clients = new Origin[abusive + WELL_BEHAVED + FIRST_TIMERS];
        for (int i = 0; i < clients.length; i++) {
            clients[i] = Workload.origin(i);
        }
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<long[]> admissions = new ArrayList<>(); // per thread: pairs of (client, time)
        int[] admittedCounts = new int[threads + 1];
        CountDownLatch done = new CountDownLatch(threads + 1);
        AtomicLongArray wellBehavedRequests = new AtomicLongArray(2);
        long[] firstTimers = new long[2]; // sent, rejected
        boolean[] limitedEarly = new boolean[WELL_BEHAVED];
        long[][] sent = new long[WELL_BEHAVED][limit]; // each client's last `limit` send times, a ring
        int[] sends = new int[WELL_BEHAVED];
        Thread[] workers = new Thread[threads + 1];
        for (int t = 0; t < threads; t++) {
            long[] log = new long[2 * 4_000_000];
            admissions.add(log);
            int index = t;
            workers[t] = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(index);
                int n = 0;
                while (System.nanoTime() < end && n < log.length) {
                    int client = random.nextInt(abusive);
                    if (gate.enter("GET", "/api", clients[client]) instanceof Entry entry) {
                        log[n++] = client;
                        log[n++] = entry.startNanos();
                        entry.close();
                    }
                }
                admittedCounts[index] = n;
                done.countDown();
            });
        }
        long[] wellLog = new long[2 * 1_000_000];
        admissions.add(wellLog);
        workers[threads] = new Thread(() -> {
            int n = 0;
            long start = System.nanoTime();
            // Each well-behaved client sends at start + k * W/2 + its offset: one request per 0.5 s.
            for (long round = 0; ; round++) {
                for (int c = 0; c < WELL_BEHAVED; c++) {
                    long due = start + round * WINDOW_NANOS / 2 + c * (WINDOW_NANOS / 2 / WELL_BEHAVED);
                    long now;
                    while ((now = System.nanoTime()) < due) {
                        Thread.onSpinWait();
                    }
                    if (now >= end) {
                        admittedCounts[threads] = n;
                        done.countDown();
                        return;
                    }
                    int client = abusive + c;
                    // If this thread fell behind, a client's requests may come closer together:
                    // a rejection counts as early only if the client sent fewer than N in the last W.
                    long oldest = sent[c][sends[c] % limit];
                    boolean underLimit = sends[c] < limit || now - oldest >= WINDOW_NANOS;
                    sent[c][sends[c]++ % limit] = now;
                    Decision decision = gate.enter("GET", "/api", clients[client]);
                    wellBehavedRequests.incrementAndGet(0);
                    if (decision instanceof Entry entry) {
                        wellLog[n++] = client;
                        wellLog[n++] = entry.startNanos();
                        entry.close();
                    } else if (decision instanceof Rejection && underLimit) {
                        wellBehavedRequests.incrementAndGet(1);
                        limitedEarly[c] = true;
                    }
                    if (firstTimers[0] < FIRST_TIMERS) {
                        int newcomer = abusive + WELL_BEHAVED + (int) firstTimers[0]++;
                        if (gate.enter("GET", "/api", clients[newcomer]) instanceof Entry entry) {
                            wellLog[n++] = newcomer;
                            wellLog[n++] = entry.startNanos();
                            entry.close();
                        } else {
                            firstTimers[1]++;
                        }
                    }
                }
            }
        });
        for (Thread worker : workers) {
            worker.start();
        }
        done.await();

        // Times per client, then the most admissions in any span of length W.
        int[] counts = new int[clients.length];
        for (int t = 0; t < admissions.size(); t++) {
            long[] log = admissions.get(t);
            for (int i = 0; i < admittedCounts[t]; i += 2) {
                counts[(int) log[i]]++;
            }
        }
        long[][] times = new long[clients.length][];
        for (int c = 0; c < clients.length; c++) {
            times[c] = new long[counts[c]];
        }
        int[] filled = new int[clients.length];
        long total = 0;
        for (int t = 0; t < admissions.size(); t++) {
            long[] log = admissions.get(t);
            for (int i = 0; i < admittedCounts[t]; i += 2) {
                int c = (int) log[i];
                times[c][filled[c]++] = log[i + 1];
                total++;
            }
        }
        int worstSpan = 0;
        int clientsOverN = 0;
        for (long[] clientTimes : times) {
            Arrays.sort(clientTimes);
            int most = mostInAnySpan(clientTimes, WINDOW_NANOS);
            worstSpan = Math.max(worstSpan, most);
            clientsOverN += most > limit ? 1 : 0;
        }
        int limitedClients = 0;
        for (boolean limited : limitedEarly) {
            limitedClients += limited ? 1 : 0;
        }
        System.out.printf(
                Locale.ROOT,
                "%2d x max-origins (%,d abusive clients): %,d admissions; most in any 1 s span of one client: %d"
                        + " (%.2f N); clients over N: %d; well-behaved clients rejected at least once: %.1f %%"
                        + " (%,d of %,d requests, %.2f %%); first-time clients rejected: %.1f %% (%,d of %,d);"
                        + " tracked at the end: %d%n",
                factor,
                abusive,
                total,
                worstSpan,
                (double) worstSpan / limit,
                clientsOverN,
                100.0 * limitedClients / WELL_BEHAVED,
                wellBehavedRequests.get(1),
                wellBehavedRequests.get(0),
                100.0 * wellBehavedRequests.get(1) / Math.max(1, wellBehavedRequests.get(0)),
                100.0 * firstTimers[1] / Math.max(1, firstTimers[0]),
                firstTimers[1],
                firstTimers[0],
                gate.trackedOrigins("per-ip").orElse(-1));
    }

    /** The most of the sorted {@code times} that fall in any span {@code [t, t + span)}. */
    static int mostInAnySpan(long[] times, long span) {
        int most = 0;
        for (int first = 0, last = 0; last < times.length; last++) {
            while (times[last] - times[first] >= span) {
                first++;
            }
            most = Math.max(most, last - first + 1);
        }
        return most;
    }

    static int intArg(String[] args, String name, int fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return fallback;
    }
}
