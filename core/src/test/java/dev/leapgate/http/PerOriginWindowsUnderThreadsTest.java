package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Configs;
import dev.leapgate.testing.SteppedTime;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * Per-client windows' promise at the times requests go on ({@code Entry.startNanos}), under 12
 * threads: with borrowing, refunds after a later rule's rejection, moves after a paced wait,
 * multi-permit requests and reloads, no span of the window holds more than the limit in force for
 * any client, and clients are admitted again as their counts leave (reloads that change the
 * window's layout carried a client's count on and on). Time is a {@link SteppedTime} moved by a
 * driver thread.
 */
class PerOriginWindowsUnderThreadsTest {

    private static final long MS = 1_000_000L;
    private static final int THREADS = 12;

    private final SteppedTime time = new SteppedTime();

    private record Admitted(String client, long startNanos, int permits) {}

    private record Request(String path, String client, int permits) {}

    interface Requests {
        Request next(int thread, SplittableRandom random, long nowNanos);
    }

    private static final class Outcome {
        final ConcurrentLinkedQueue<Admitted> admitted = new ConcurrentLinkedQueue<>();
        final AtomicLong sent = new AtomicLong();
        final AtomicLong rejected = new AtomicLong();
        final AtomicLong admittedCount = new AtomicLong();
    }

    private HttpGate gate(FlowRule... rules) {
        return HttpGate.builder(Configs.withRules(RuleSet.of(rules)))
                .clock(time.clock())
                .sleeper(time)
                .build();
    }

    private static Origin ip(String address) {
        return Origin.ip(IpAddress.parse(address), 64);
    }

    /**
     * Runs THREADS workers, each sending one request per clock step, until {@code endNanos}; a
     * driver moves the clock by 0 to {@code maxStepMs} ms, calling {@code onStep} (while all are
     * quiet) with the new time.
     */
    private Outcome run(HttpGate gate, long endNanos, int maxStepMs, Requests requests, LongConsumer onStep)
            throws Exception {
        Outcome outcome = new Outcome();
        for (int t = 0; t < THREADS; t++) {
            time.join();
        }
        Thread mover = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(11);
            try {
                while (time.advance(random.nextInt(maxStepMs + 1) * MS)) {
                    if (onStep != null) {
                        time.awaitQuiet();
                        onStep.accept(time.clock().nanoTime());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        mover.setDaemon(true);
        mover.start();
        Together.run(THREADS, t -> {
            SplittableRandom random = new SplittableRandom(100 + t);
            try {
                for (long now = 0; now < endNanos; now = time.clock().nanoTime()) {
                    Request r = requests.next(t, random, now);
                    if (r != null) {
                        outcome.sent.incrementAndGet();
                        Decision d = gate.enter("GET", r.path(), ip(r.client()), r.permits());
                        if (d instanceof Entry entry) {
                            outcome.admittedCount.incrementAndGet();
                            outcome.admitted.add(new Admitted(r.client(), entry.startNanos(), r.permits()));
                            entry.close();
                        } else {
                            outcome.rejected.incrementAndGet();
                        }
                    }
                    time.endStep();
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                time.leave();
            }
        });
        mover.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(outcome.admittedCount.get() + outcome.rejected.get()).isEqualTo(outcome.sent.get());
        return outcome;
    }

    /** Per client, the most permits admitted within a half-open span of {@code lengthNanos}, with where. */
    private static Map<String, String> worstSpans(Outcome outcome, long lengthNanos, long limit) {
        Map<String, List<Admitted>> byClient = new TreeMap<>();
        for (Admitted a : outcome.admitted) {
            byClient.computeIfAbsent(a.client(), k -> new ArrayList<>()).add(a);
        }
        Map<String, String> over = new TreeMap<>();
        for (Map.Entry<String, List<Admitted>> e : byClient.entrySet()) {
            List<Admitted> list = e.getValue();
            list.sort((x, y) -> Long.compare(x.startNanos(), y.startNanos()));
            int from = 0;
            long sum = 0;
            for (int to = 0; to < list.size(); to++) {
                sum += list.get(to).permits();
                while (list.get(to).startNanos() - list.get(from).startNanos() >= lengthNanos) {
                    sum -= list.get(from).permits();
                    from++;
                }
                if (sum > limit) {
                    StringBuilder s = new StringBuilder(sum + " permits in [");
                    for (int i = from; i <= to; i++) {
                        s.append(list.get(i).startNanos() / MS)
                                .append("ms x")
                                .append(list.get(i).permits())
                                .append(' ');
                    }
                    over.putIfAbsent(e.getKey(), s.append(']').toString());
                }
            }
        }
        return over;
    }

    private static String timeline(Outcome o) {
        Map<String, List<Long>> byClient = new TreeMap<>();
        for (Admitted a : o.admitted) {
            byClient.computeIfAbsent(a.client(), k -> new ArrayList<>()).add(a.startNanos() / MS);
        }
        byClient.values().forEach(l -> l.sort(null));
        return "sent " + o.sent + ", rejected " + o.rejected + ", admitted at " + byClient;
    }

    private static String client(int thread) {
        return "203.0.113." + (1 + thread % 3); // four threads per client
    }

    @Test
    void borrowPerOrigin_multiPermit_manyThreads_noSpanOfTheWindowHoldsMoreThanTheLimit() throws Exception {
        int limit = 10;
        Duration w = Duration.ofSeconds(1);
        HttpGate gate = gate(FlowRule.builder("b")
                .match("/x")
                .limit(limit, WindowSpec.of(w, 10))
                .scope(Scope.perOrigin())
                .onExcess(OnExcess.borrow(Duration.ofMillis(500)))
                .build());
        Outcome o = run(gate, 15_000 * MS, 40, (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(3)), null);
        assertThat(worstSpans(o, w.toNanos(), limit)).isEmpty();
        assertThat(o.admittedCount.get()).as(timeline(o)).isGreaterThan(100);
    }

    @Test
    void perOriginWindow_thenGlobalRejects_refundsKeepExactCounts() throws Exception {
        int limit = 6;
        Duration w = Duration.ofMillis(500);
        HttpGate gate = gate(
                FlowRule.builder("x")
                        .match("/x")
                        .limit(limit, new WindowSpec(w, 5, WindowMode.STRICT))
                        .scope(Scope.perOrigin())
                        .build(),
                FlowRule.builder("all")
                        .match("/**")
                        .limit(20, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .build());
        Outcome o = run(gate, 15_000 * MS, 30, (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(2)), null);
        assertThat(worstSpans(o, w.toNanos(), limit)).isEmpty();
        assertThat(o.admittedCount.get()).as(timeline(o)).isGreaterThan(100);
    }

    @Test
    void borrowPerOrigin_besideGlobalBorrow_manyThreads_noSpanOfTheWindowHoldsMoreThanTheLimit() throws Exception {
        int limit = 8;
        Duration w = Duration.ofSeconds(1);
        HttpGate gate = gate(
                FlowRule.builder("b")
                        .match("/x")
                        .limit(limit, WindowSpec.of(w, 10))
                        .scope(Scope.perOrigin())
                        .onExcess(OnExcess.borrow(Duration.ofMillis(400)))
                        .build(),
                FlowRule.builder("all")
                        .match("/**")
                        .limit(30, new WindowSpec(Duration.ofSeconds(1), 4, WindowMode.SLIDING))
                        .onExcess(OnExcess.borrow(Duration.ofMillis(600)))
                        .build());
        Outcome o = run(gate, 15_000 * MS, 40, (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(2)), null);
        assertThat(worstSpans(o, w.toNanos(), limit)).isEmpty();
        assertThat(o.admittedCount.get()).as(timeline(o)).isGreaterThan(100);
    }

    @Test
    void perOriginWindow_besidePace_multiPermit_noSpanOfTheWindowHoldsMoreThanTheLimit() throws Exception {
        int limit = 6;
        Duration w = Duration.ofMillis(500);
        HttpGate gate = gate(
                FlowRule.builder("x")
                        .match("/x")
                        .limit(limit, new WindowSpec(w, 5, WindowMode.STRICT))
                        .scope(Scope.perOrigin())
                        .build(),
                FlowRule.builder("paced")
                        .match("/**")
                        .limit(40, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                        .build());
        Outcome o = run(gate, 15_000 * MS, 30, (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(3)), null);
        assertThat(worstSpans(o, w.toNanos(), limit)).isEmpty();
        assertThat(o.admittedCount.get()).isGreaterThan(50);
    }

    @Test
    void borrowPerOrigin_besidePace_noSpanOfTheWindowHoldsMoreThanTheLimit() throws Exception {
        int limit = 6;
        Duration w = Duration.ofMillis(500);
        HttpGate gate = gate(
                FlowRule.builder("b")
                        .match("/x")
                        .limit(limit, new WindowSpec(w, 5, WindowMode.STRICT))
                        .scope(Scope.perOrigin())
                        .onExcess(OnExcess.borrow(Duration.ofMillis(300)))
                        .build(),
                FlowRule.builder("paced")
                        .match("/**")
                        .limit(40, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .onExcess(OnExcess.pace(Duration.ofMillis(700)))
                        .build());
        Outcome o = run(gate, 15_000 * MS, 30, (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(2)), null);
        assertThat(worstSpans(o, w.toNanos(), limit)).isEmpty();
        assertThat(o.admittedCount.get()).isGreaterThan(50);
    }

    // ---- reloads: the limit in force at each clock time is known, since reloads happen while all are quiet

    private static FlowRule xRule(long limit, WindowSpec window, OnExcess onExcess, int maxOrigins) {
        return FlowRule.builder("x")
                .match("/x")
                .limit(limit, window)
                .scope(Scope.perOrigin())
                .onExcess(onExcess)
                .maxOrigins(maxOrigins)
                .build();
    }

    /** Reloads every {@code everyMs} between the rules {@code versions}, recording (from, limit). */
    private Outcome runWithReloads(
            List<FlowRule> versions,
            int everyMs,
            long endNanos,
            int maxStepMs,
            Requests requests,
            TreeMap<Long, Long> limitFrom)
            throws Exception {
        HttpGate gate = gate(versions.get(0));
        limitFrom.put(Long.MIN_VALUE, versions.get(0).limit());
        int[] version = {0};
        long[] nextReload = {everyMs * MS};
        return run(gate, endNanos, maxStepMs, requests, now -> {
            if (now >= nextReload[0]) {
                version[0] = (version[0] + 1) % versions.size();
                gate.update(RuleSet.of(versions.get(version[0])));
                limitFrom.put(now + 1, versions.get(version[0]).limit()); // decisions after now
                nextReload[0] += everyMs * MS;
            }
        });
    }

    /**
     * For each admission at s: the permits of its client admitted in (s - W, s] are at most the limit
     * in force at s (or, with {@code slackNanos}, the highest limit in force in [s - slack, s]).
     */
    private static List<String> overLimitInForce(
            Outcome outcome, long w, TreeMap<Long, Long> limitFrom, long slackNanos) {
        Map<String, List<Admitted>> byClient = new TreeMap<>();
        for (Admitted a : outcome.admitted) {
            byClient.computeIfAbsent(a.client(), k -> new ArrayList<>()).add(a);
        }
        List<String> over = new ArrayList<>();
        for (Map.Entry<String, List<Admitted>> e : byClient.entrySet()) {
            List<Admitted> list = e.getValue();
            list.sort((x, y) -> Long.compare(x.startNanos(), y.startNanos()));
            for (int to = 0; to < list.size(); to++) {
                long s = list.get(to).startNanos();
                // all admissions at the same time s count (those after `to` with the same s too)
                int end = to;
                while (end + 1 < list.size() && list.get(end + 1).startNanos() == s) {
                    end++;
                }
                long sum = 0;
                StringBuilder where = new StringBuilder();
                for (int i = end; i >= 0 && s - list.get(i).startNanos() < w; i--) {
                    sum += list.get(i).permits();
                    where.append(list.get(i).startNanos() / MS)
                            .append("ms x")
                            .append(list.get(i).permits())
                            .append(' ');
                }
                long limit = Math.max(
                        limitFrom.floorEntry(s).getValue(),
                        limitFrom.floorEntry(s - slackNanos).getValue());
                for (Long v : limitFrom.subMap(s - slackNanos, true, s, true).values()) {
                    limit = Math.max(limit, v);
                }
                if (sum > limit && over.size() < 5) {
                    over.add(e.getKey() + ": " + sum + " > " + limit + " ending at " + s / MS + "ms: " + where
                            + " limits " + limitFrom.subMap(s - w - slackNanos, true, s, true));
                }
                to = end;
            }
        }
        return over;
    }

    @Test
    void reload_sameLayout_lowerAndRaise_limitInForceHoldsForEveryClient() throws Exception {
        WindowSpec w = WindowSpec.of(Duration.ofSeconds(1), 10);
        TreeMap<Long, Long> limits = new TreeMap<>();
        Outcome o = runWithReloads(
                List.of(xRule(10, w, OnExcess.reject(), 100_000), xRule(6, w, OnExcess.reject(), 100_000)),
                700,
                12_000 * MS,
                30,
                (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(3)),
                limits);
        assertThat(overLimitInForce(o, w.length().toNanos(), limits, 0)).isEmpty();
        assertThat(o.admittedCount.get()).as(timeline(o)).isGreaterThan(100);
    }

    @Test
    void reload_acrossBucketWidth_limitInForceHoldsForEveryClient() throws Exception {
        WindowSpec w = WindowSpec.of(Duration.ofSeconds(1), 10);
        TreeMap<Long, Long> limits = new TreeMap<>();
        Outcome o = runWithReloads(
                List.of(xRule(300, w, OnExcess.reject(), 100_000), xRule(200, w, OnExcess.reject(), 100_000)),
                700,
                12_000 * MS,
                30,
                (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(60)),
                limits);
        assertThat(overLimitInForce(o, w.length().toNanos(), limits, 0)).isEmpty();
        assertThat(o.admittedCount.get()).as(timeline(o)).isGreaterThan(100);
    }

    @Test
    void reload_otherBuckets_limitInForceHoldsForEveryClient() throws Exception {
        TreeMap<Long, Long> limits = new TreeMap<>();
        Outcome o = runWithReloads(
                List.of(
                        xRule(8, WindowSpec.of(Duration.ofSeconds(1), 10), OnExcess.reject(), 100_000),
                        xRule(8, WindowSpec.of(Duration.ofSeconds(1), 4), OnExcess.reject(), 100_000)),
                700,
                12_000 * MS,
                30,
                (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(3)),
                limits);
        assertThat(overLimitInForce(o, 1000 * MS, limits, 0)).isEmpty();
        assertThat(o.admittedCount.get()).as(timeline(o)).isGreaterThan(100);
    }

    @Test
    void reload_rejectToBorrowAndBack_limitInForceHolds() throws Exception {
        WindowSpec w = WindowSpec.of(Duration.ofSeconds(1), 10);
        TreeMap<Long, Long> limits = new TreeMap<>();
        Outcome o = runWithReloads(
                List.of(
                        xRule(10, w, OnExcess.reject(), 100_000),
                        xRule(6, w, OnExcess.borrow(Duration.ofMillis(300)), 100_000)),
                700,
                12_000 * MS,
                30,
                (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(3)),
                limits);
        assertThat(overLimitInForce(o, w.length().toNanos(), limits, 400 * MS)).isEmpty();
        assertThat(o.admittedCount.get()).as(timeline(o)).isGreaterThan(100);
    }

    @Test
    void reload_borrowLimitChanges_limitInForceHolds() throws Exception {
        WindowSpec w = WindowSpec.of(Duration.ofSeconds(1), 10);
        TreeMap<Long, Long> limits = new TreeMap<>();
        Outcome o = runWithReloads(
                List.of(
                        xRule(10, w, OnExcess.borrow(Duration.ofMillis(300)), 100_000),
                        xRule(6, w, OnExcess.borrow(Duration.ofMillis(300)), 100_000)),
                700,
                12_000 * MS,
                30,
                (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(3)),
                limits);
        assertThat(overLimitInForce(o, w.length().toNanos(), limits, 400 * MS)).isEmpty();
        assertThat(o.admittedCount.get()).as(timeline(o)).isGreaterThan(100);
    }

    @Test
    void slidingBorrowPerOrigin_besidePace_noSpanOfWMinusBHoldsMoreThanTheLimit() throws Exception {
        int limit = 9;
        Duration w = Duration.ofMillis(900);
        HttpGate gate = gate(
                FlowRule.builder("b")
                        .match("/x")
                        .limit(limit, new WindowSpec(w, 3, WindowMode.SLIDING))
                        .scope(Scope.perOrigin())
                        .onExcess(OnExcess.borrow(Duration.ofMillis(300)))
                        .build(),
                FlowRule.builder("paced")
                        .match("/**")
                        .limit(60, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .onExcess(OnExcess.pace(Duration.ofMillis(500)))
                        .build());
        Outcome o = run(
                gate,
                12_000 * MS,
                30,
                (t, r, now) -> new Request("/x", "203.0.113." + (1 + t % 2), 1 + r.nextInt(4)),
                null);
        assertThat(worstSpans(o, 600 * MS, limit)).isEmpty();
        assertThat(o.admittedCount.get()).isGreaterThan(50);
    }

    @Test
    void strictBorrowPerOrigin_threeBuckets_besidePaceAndGlobal_noSpanOfTheWindowHoldsMoreThanTheLimit()
            throws Exception {
        int limit = 9;
        Duration w = Duration.ofMillis(900);
        HttpGate gate = gate(
                FlowRule.builder("b")
                        .match("/x")
                        .limit(limit, new WindowSpec(w, 3, WindowMode.STRICT))
                        .scope(Scope.perOrigin())
                        .onExcess(OnExcess.borrow(Duration.ofMillis(300)))
                        .build(),
                FlowRule.builder("all")
                        .match("/**")
                        .limit(25, WindowSpec.of(Duration.ofSeconds(1), 5))
                        .build(),
                FlowRule.builder("paced")
                        .match("/**")
                        .limit(60, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .onExcess(OnExcess.pace(Duration.ofMillis(500)))
                        .build());
        Outcome o = run(
                gate,
                12_000 * MS,
                30,
                (t, r, now) -> new Request("/x", "203.0.113." + (1 + t % 2), 1 + r.nextInt(4)),
                null);
        assertThat(worstSpans(o, w.toNanos(), limit)).isEmpty();
        assertThat(o.admittedCount.get()).isGreaterThan(50);
    }

    /** Reloads on a thread of their own, while workers decide: same layout, limits 6 and 10. */
    private void concurrentReloads(OnExcess onExcess, long slackNanos) throws Exception {
        WindowSpec w = WindowSpec.of(Duration.ofSeconds(1), 10);
        FlowRule high = xRule(10, w, onExcess, 100_000);
        FlowRule low = xRule(6, w, onExcess, 100_000);
        HttpGate gate =
                gate(high, FlowRule.builder("all").match("/**").limit(40, w).build());
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread reloader = new Thread(() -> {
            boolean lowNow = false;
            while (!stop.get()) {
                lowNow = !lowNow;
                gate.update(RuleSet.of(
                        lowNow ? low : high,
                        FlowRule.builder("all").match("/**").limit(40, w).build()));
                Thread.onSpinWait();
            }
        });
        reloader.setDaemon(true);
        reloader.start();
        Outcome o;
        try {
            o = run(gate, 8_000 * MS, 30, (t, r, now) -> new Request("/x", client(t), 1 + r.nextInt(3)), null);
        } finally {
            stop.set(true);
            reloader.join();
        }
        assertThat(worstSpans(o, w.length().toNanos(), 10)).isEmpty();
        assertThat(o.admittedCount.get()).as(timeline(o)).isGreaterThan(50);
    }

    @Test
    void concurrentReloads_sameLayout_reject() throws Exception {
        concurrentReloads(OnExcess.reject(), 0);
    }

    @Test
    void concurrentReloads_sameLayout_borrow() throws Exception {
        concurrentReloads(OnExcess.borrow(Duration.ofMillis(300)), 0);
    }
}
