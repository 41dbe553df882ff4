package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.stats.StatsTotals;
import dev.leapgate.stats.WaitStats;
import dev.leapgate.testing.Configs;
import dev.leapgate.testing.SteppedTime;
import dev.leapgate.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A window's promise at the times requests reach the application, when another rule on the same
 * request makes them wait (a paced turn, a loan from the next bucket): the window decides at once,
 * at the request's arrival, but a request that waited goes on later, and a window whose bucket has
 * passed meanwhile counts it again when it goes on, or rejects it then. Time is a {@link
 * SteppedTime}: waiting requests really sleep, on threads of their own, until the test has moved
 * the clock to the end of their wait.
 */
class WindowAfterWaitTest {

    private static final long MS = 1_000_000L;

    private final SteppedTime time = new SteppedTime();

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
     * Sends a request on a thread of its own (it may sleep), and returns once it is decided and
     * either asleep or done.
     */
    private CompletableFuture<Decision> send(HttpGate gate, String path, String client) throws InterruptedException {
        CompletableFuture<Decision> decision = new CompletableFuture<>();
        time.join();
        Thread request = new Thread(() -> {
            try {
                decision.complete(gate.enter("GET", path, ip(client)));
            } catch (Throwable t) {
                decision.completeExceptionally(t);
            } finally {
                time.leave();
            }
        });
        request.setDaemon(true);
        request.start();
        time.awaitQuiet();
        return decision;
    }

    private static Decision decided(CompletableFuture<Decision> decision) throws Exception {
        return decision.get(10, TimeUnit.SECONDS);
    }

    /** The most admissions at times within a half-open span of {@code lengthNanos}. */
    private static int maxInAnySpan(List<Long> times, long lengthNanos) {
        List<Long> sorted = new ArrayList<>(times);
        sorted.sort(null);
        int max = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (sorted.get(to) - sorted.get(from) >= lengthNanos) {
                from++;
            }
            max = Math.max(max, to - from + 1);
        }
        return max;
    }

    /** When the admitted ones of {@code decisions} went on, closing them. */
    private static List<Long> wentOn(List<CompletableFuture<Decision>> decisions) throws Exception {
        List<Long> times = new ArrayList<>();
        for (CompletableFuture<Decision> d : decisions) {
            if (decided(d) instanceof Entry entry) {
                times.add(entry.startNanos());
                entry.close();
            }
        }
        return times;
    }

    /**
     * The review's case: a client's strict window of 2 per second on {@code /x}, and a pace of 10
     * a second on everything, queueing up to 1 s. Two requests of the client decided at 0, while
     * other clients hold the turns until 800 ms, went on at 800 and 900 ms, still counted in the
     * window's bucket of 0, which left the window at 1.1 s: two more went on at 1.1 and 1.2 s,
     * four within 400 ms. Now the first two count when they go on, and the later ones are
     * rejected.
     */
    @Test
    void windowAndPace_noSpanOfTheWindowHoldsMoreThanItsLimit_atTheTimesRequestsGoOn() throws Exception {
        HttpGate gate = gate(
                FlowRule.builder("x")
                        .match("/x")
                        .limit(2, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .scope(Scope.perOrigin())
                        .build(),
                FlowRule.builder("paced")
                        .match("/**")
                        .limit(10, WindowSpec.of(Duration.ofSeconds(1), 10)) // a turn every 100 ms
                        .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                        .build());
        List<CompletableFuture<Decision>> others = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            others.add(send(gate, "/y", "198.51.100." + i)); // turns 0 to 700 ms
        }
        List<CompletableFuture<Decision>> x = new ArrayList<>();
        x.add(send(gate, "/x", "203.0.113.1")); // turn 800 ms
        x.add(send(gate, "/x", "203.0.113.1")); // turn 900 ms

        for (long t = 100; t <= 1000; t += 100) {
            time.advanceTo(t * MS); // every turn in its time
        }
        x.add(send(gate, "/x", "203.0.113.1"));
        time.advanceTo(1100 * MS);
        x.add(send(gate, "/x", "203.0.113.1"));
        x.add(send(gate, "/x", "203.0.113.1"));
        time.advanceTo(1200 * MS);
        time.advanceTo(2500 * MS);

        List<Long> times = wentOn(x);
        assertThat(maxInAnySpan(times, 1000 * MS))
                .as("most requests of the client gone on within 1 s, at %s", times)
                .isLessThanOrEqualTo(2);
        assertThat(times).containsExactly(800 * MS, 900 * MS);
        for (int i = 2; i < 5; i++) {
            assertThat(((Rejection) decided(x.get(i))).rule()).isEqualTo("x");
        }
        assertThat(wentOn(others)).hasSize(8);
    }

    /**
     * A borrowing window on everything, full, lends the client's two requests of 0 ms the next
     * second, and they go on at 1 s; the client's strict window of 2 per second counted them in
     * its bucket of 0, which leaves the window at 1.1 s: two more went on then, four within 100 ms.
     * Now the two loans count in the client's window when they go on (the loans themselves are
     * counted in the bucket they waited for).
     */
    @Test
    void windowAndABorrowingWindow_noSpanOfTheWindowHoldsMoreThanItsLimit_atTheTimesRequestsGoOn() throws Exception {
        HttpGate gate = gate(
                FlowRule.builder("x")
                        .match("/x")
                        .limit(2, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .scope(Scope.perOrigin())
                        .build(),
                FlowRule.builder("bursty")
                        .match("/**")
                        .limit(4, new WindowSpec(Duration.ofSeconds(1), 1, WindowMode.SLIDING)) // fixed seconds
                        .onExcess(OnExcess.borrow(Duration.ofSeconds(1)))
                        .build());
        List<CompletableFuture<Decision>> others = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            others.add(send(gate, "/y", "198.51.100." + i));
        }
        List<CompletableFuture<Decision>> x = new ArrayList<>();
        x.add(send(gate, "/x", "203.0.113.1")); // a loan of the second from 1 s
        x.add(send(gate, "/x", "203.0.113.1"));

        time.advanceTo(1000 * MS);
        time.advanceTo(1100 * MS);
        x.add(send(gate, "/x", "203.0.113.1"));
        x.add(send(gate, "/x", "203.0.113.1"));
        time.advanceTo(2500 * MS);

        List<Long> times = wentOn(x);
        assertThat(maxInAnySpan(times, 1000 * MS))
                .as("most requests of the client gone on within 1 s, at %s", times)
                .isLessThanOrEqualTo(2);
        assertThat(times).containsExactly(1000 * MS, 1000 * MS);
        assertThat(((Rejection) decided(x.get(2))).rule()).isEqualTo("x");
        assertThat(((Rejection) decided(x.get(3))).rule()).isEqualTo("x");
        assertThat(gate.stats("/**").orElseThrow().totals().borrowed()).isEqualTo(2);
        assertThat(wentOn(others)).hasSize(4);
    }

    /**
     * A request counted at 0 waits for its turn until 500 ms; its window (1 per 200 ms) forgot it
     * at 300 ms and admitted another request of the client then, so at 500 ms it has no room: the
     * request is rejected by the window, as if it had come then, and gives back what it holds (its
     * in-flight slot, another window's count; not its paced turn). It is counted once, as a
     * rejection, and its wait as a wait.
     */
    @Test
    void requestWhoseWindowRefusesItWhenItGoesOn_isRejected_givesBackWhatItHolds_andIsCountedOnce() throws Exception {
        HttpGate gate = gate(
                FlowRule.builder("x")
                        .match("/x/**")
                        .limit(1, new WindowSpec(Duration.ofMillis(200), 2, WindowMode.STRICT))
                        .scope(Scope.perOrigin())
                        .build(),
                FlowRule.builder("once")
                        .match("/x/slow")
                        .limit(1, WindowSpec.of(Duration.ofSeconds(10), 10))
                        .scope(Scope.perOrigin())
                        .build(),
                FlowRule.builder("slots").match("/x/slow").inFlight(1).build(),
                FlowRule.builder("paced")
                        .match("/*/slow")
                        .limit(10, WindowSpec.of(Duration.ofSeconds(1), 10)) // a turn every 100 ms
                        .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                        .build());
        List<CompletableFuture<Decision>> others = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            others.add(send(gate, "/y/slow", "198.51.100." + i)); // turns 0 to 400 ms
        }
        CompletableFuture<Decision> slow = send(gate, "/x/slow", "203.0.113.1"); // turn 500 ms
        time.advanceTo(300 * MS);
        Entry fast = (Entry) decided(send(gate, "/x/fast", "203.0.113.1")); // bucket 0 has left "x"
        fast.close();
        time.advanceTo(500 * MS);

        Rejection rejected = (Rejection) decided(slow);
        assertThat(rejected.rule()).isEqualTo("x");
        assertThat(rejected.reason()).isEqualTo("limit exceeded");
        // "x" holds the fast request, counted at 300 ms, until its bucket leaves the window at 600 ms.
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMillis(100));
        assertThat(gate.rejections("x").orElseThrow().limitExceeded()).isEqualTo(1);
        assertThat(gate.rejections("once").orElseThrow().total()).isZero();
        assertThat(gate.rejections("slots").orElseThrow().total()).isZero();
        assertThat(gate.rejections("paced").orElseThrow().total()).isZero();
        StatsTotals slowTotals = gate.stats("/x/slow").orElseThrow().totals();
        assertThat(slowTotals.admitted()).isZero();
        assertThat(slowTotals.rejected()).isEqualTo(1);
        assertThat(slowTotals.borrowed()).isZero();
        assertThat(gate.stats("/x/**").orElseThrow().totals().rejected()).isEqualTo(1);
        assertThat(gate.stats("/x/**").orElseThrow().totals().admitted()).isEqualTo(1); // the fast one
        assertThat(gate.stats("/*/slow").orElseThrow().totals().admitted()).isEqualTo(5);
        assertThat(gate.stats("/*/slow").orElseThrow().totals().rejected()).isEqualTo(1);
        WaitStats waits = gate.waits("paced").orElseThrow();
        assertThat(waits.waitingNow()).isZero();
        assertThat(waits.waited()).as("four of the others and the rejected one").isEqualTo(5);
        assertThat(gate.stats("/x/slow").orElseThrow().inFlight()).isZero();

        // Its in-flight slot and its count in "once" (1 per 10 s) were given back: the client's
        // next slow request, at its turn of 600 ms, is admitted.
        time.advanceTo(600 * MS);
        Entry next = (Entry) decided(send(gate, "/x/slow", "203.0.113.1"));
        assertThat(next.startNanos()).isEqualTo(600 * MS);
        next.close();
        assertThat(gate.stats("/x/slow").orElseThrow().totals().admitted()).isEqualTo(1);
        assertThat(wentOn(others)).hasSize(5);
    }

    /**
     * A client's request counted at 0 by its window of 1 per second waits for its turn until
     * 100 ms, past its bucket. Meanwhile a reload changes the window to 2 s (a new per-client table,
     * which takes the client over, with the request's count, at the client's next request, rejected
     * at 50 ms). When the request goes on, the old table no longer holds the client, so its count
     * cannot be given back there: it stands where it was counted. Taking it again would count the
     * request twice in the new table, and it would refuse itself (as it did: rejected by "x", the
     * client admitted nothing in the window).
     */
    @Test
    void requestThatWaited_whileAReloadHandedItsClientToANewTable_isNotRefusedByItsOwnCount() throws Exception {
        FlowRule paced = FlowRule.builder("paced")
                .match("/**")
                .limit(10, WindowSpec.of(Duration.ofSeconds(1), 10)) // a turn every 100 ms
                .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                .build();
        HttpGate gate = gate(
                FlowRule.builder("x")
                        .match("/x")
                        .limit(1, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .scope(Scope.perOrigin())
                        .build(),
                paced);
        CompletableFuture<Decision> other = send(gate, "/y", "198.51.100.1"); // turn 0
        CompletableFuture<Decision> waited = send(gate, "/x", "203.0.113.1"); // turn 100 ms
        time.advanceTo(50 * MS);
        gate.update(RuleSet.of(
                FlowRule.builder("x")
                        .match("/x")
                        .limit(1, WindowSpec.of(Duration.ofSeconds(2), 10))
                        .scope(Scope.perOrigin())
                        .build(),
                paced));
        Rejection again = (Rejection) decided(send(gate, "/x", "203.0.113.1"));
        assertThat(again.rule())
                .as("the client's window holds the waiting request")
                .isEqualTo("x");
        time.advanceTo(100 * MS);

        Decision decision = decided(waited);
        assertThat(decision).as("the waiting request, at its turn").isInstanceOf(Entry.class);
        assertThat(((Entry) decision).startNanos()).isEqualTo(100 * MS);
        ((Entry) decision).close();
        assertThat(wentOn(List.of(other))).hasSize(1);
        assertThat(gate.stats("/x").orElseThrow().totals().admitted()).isEqualTo(1);
    }

    /**
     * As above for a borrowing window on everyone: a reload changes it while a request it counted
     * at 0 waits for its turn until 100 ms, and the new version takes the window over at its first
     * use, at 50 ms. A sealed borrowing window keeps its refunds (it cannot tell its loans from its
     * admissions), so the request's count stands where it was counted; taken again, it refused
     * itself.
     */
    @Test
    void requestThatWaited_whileAReloadTookItsBorrowingWindowOver_isNotRefusedByItsOwnCount() throws Exception {
        FlowRule paced = FlowRule.builder("paced")
                .match("/**")
                .limit(10, WindowSpec.of(Duration.ofSeconds(1), 10)) // a turn every 100 ms
                .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                .build();
        HttpGate gate = gate(
                FlowRule.builder("x")
                        .match("/x")
                        .limit(1, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .onExcess(OnExcess.borrow(Duration.ofSeconds(1)))
                        .build(),
                paced);
        CompletableFuture<Decision> other = send(gate, "/y", "198.51.100.1"); // turn 0
        CompletableFuture<Decision> waited = send(gate, "/x", "203.0.113.1"); // turn 100 ms
        time.advanceTo(50 * MS);
        gate.update(RuleSet.of(
                FlowRule.builder("x")
                        .match("/x")
                        .limit(1, WindowSpec.of(Duration.ofSeconds(2), 10))
                        .onExcess(OnExcess.borrow(Duration.ofSeconds(1)))
                        .build(),
                paced));
        CompletableFuture<Decision> takesOver = send(gate, "/x", "203.0.113.2"); // the new version's first use
        time.advanceTo(100 * MS);

        Decision decision = decided(waited);
        assertThat(decision).as("the waiting request, at its turn").isInstanceOf(Entry.class);
        assertThat(((Entry) decision).startNanos()).isEqualTo(100 * MS);
        ((Entry) decision).close();
        time.advanceTo(3000 * MS);
        decided(takesOver);
        assertThat(wentOn(List.of(other))).hasSize(1);
    }

    /**
     * A client's request counted at 0 by its window of 1 per second waits for its turn until
     * 100 ms; meanwhile other clients fill the per-client table ({@code max-origins}) and the
     * client is evicted, its count kept in the memory of evicted clients. When the request goes on,
     * the table no longer holds the client, so its count cannot be given back: it stands where it
     * was counted, and the request is not refused by its own count as the client comes back.
     */
    @Test
    void requestThatWaited_whileItsClientWasEvicted_isNotRefusedByItsOwnCount() throws Exception {
        HttpGate gate = gate(
                FlowRule.builder("x")
                        .match("/x")
                        .limit(1, WindowSpec.of(Duration.ofSeconds(1), 10))
                        .scope(Scope.perOrigin())
                        .maxOrigins(1)
                        .build(),
                FlowRule.builder("paced")
                        .match("/**")
                        .limit(10, WindowSpec.of(Duration.ofSeconds(1), 10)) // a turn every 100 ms
                        .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                        .build());
        CompletableFuture<Decision> other = send(gate, "/y", "198.51.100.1"); // turn 0
        CompletableFuture<Decision> waited = send(gate, "/x", "203.0.113.1"); // turn 100 ms
        time.advanceTo(50 * MS);
        List<CompletableFuture<Decision>> flood = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            flood.add(send(gate, "/x", "192.0.2." + i));
        }
        time.advanceTo(100 * MS);

        Decision decision = decided(waited);
        assertThat(decision).as("the waiting request, at its turn").isInstanceOf(Entry.class);
        ((Entry) decision).close();
        time.advanceTo(3000 * MS);
        wentOn(flood);
        assertThat(wentOn(List.of(other))).hasSize(1);
    }

    /**
     * Many threads send requests that a strict window and a pace both apply to, while the clock
     * moves in steps and waiting requests sleep until their turns: no span of the window holds
     * more than its limit at the times requests went on, and every request is counted exactly
     * once, as admitted or rejected, every wait as a wait. The requests of the other half of the
     * threads, which only the pace applies to, come in every other second: the queue grows long, then
     * drains, so that requests the window admitted in one bucket went on in a later one, or after
     * requests it admitted later still. (Before the window counted requests when they went on,
     * 6 went on within 500 ms, limit 4, in each of 5 runs.)
     */
    @Test
    void manyThreads_windowAndPace_keepTheWindowsPromiseWhereRequestsGoOn_andCountEveryRequest() throws Exception {
        int threads = 16;
        int seconds = 30;
        int limit = 4;
        Duration window = Duration.ofMillis(500);
        AtomicLong sleeps = new AtomicLong();
        ThreadLocal<boolean[]> slept = ThreadLocal.withInitial(() -> new boolean[1]);
        AtomicLong refusedAfterTheWait = new AtomicLong();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(
                        FlowRule.builder("x")
                                .match("/x")
                                .limit(limit, new WindowSpec(window, 5, WindowMode.STRICT))
                                .build(),
                        FlowRule.builder("paced")
                                .match("/**")
                                .limit(10, WindowSpec.of(Duration.ofSeconds(1), 10)) // a turn every 100 ms
                                .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                                .build())))
                .clock(time.clock())
                .sleeper(nanos -> {
                    sleeps.incrementAndGet();
                    slept.get()[0] = true;
                    time.sleep(nanos);
                })
                .build();
        ConcurrentLinkedQueue<Long> wentOn = new ConcurrentLinkedQueue<>();
        AtomicLong rejected = new AtomicLong();
        ConcurrentLinkedQueue<Long> others = new ConcurrentLinkedQueue<>();
        AtomicLong othersRejected = new AtomicLong();
        AtomicLong sent = new AtomicLong();
        AtomicLong othersSent = new AtomicLong();
        for (int t = 0; t < threads; t++) {
            time.join();
        }
        Thread mover = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(7);
            try {
                while (time.advance(random.nextInt(31) * MS)) {
                    // one step of 0 to 30 ms after another, while any thread sends
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        mover.setDaemon(true);
        mover.start();

        Together.run(threads, t -> {
            // Half the threads send what only the pace applies to, in busy seconds at every step
            // and in quiet ones at one step in ten: it queues turns for a long wait, then a short one.
            boolean x = t % 2 == 0;
            SplittableRandom random = new SplittableRandom(t);
            try {
                for (long now = 0;
                        now < seconds * 1_000_000_000L;
                        now = time.clock().nanoTime()) {
                    boolean busy = now / 1_000_000_000L % 2 == 0;
                    if (x || busy) {
                        (x ? sent : othersSent).incrementAndGet();
                        slept.get()[0] = false;
                        Decision d = gate.enter("GET", x ? "/x" : "/y", ip("203.0.113." + (t + 1)));
                        if (d instanceof Entry entry) {
                            (x ? wentOn : others).add(entry.startNanos());
                            entry.close();
                        } else {
                            (x ? rejected : othersRejected).incrementAndGet();
                            if (slept.get()[0] && ((Rejection) d).rule().equals("x")) {
                                refusedAfterTheWait.incrementAndGet();
                            }
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

        List<Long> times = new ArrayList<>(wentOn);
        assertThat(maxInAnySpan(times, window.toNanos())).isLessThanOrEqualTo(limit);
        assertThat(times).as("requests gone on in 30 s, 4 per 500 ms at most").hasSizeGreaterThan(20);
        assertThat(refusedAfterTheWait.get())
                .as("requests the window refused when they went on")
                .isPositive();
        assertThat(times.size() + rejected.get()).isEqualTo(sent.get());
        assertThat(others.size() + othersRejected.get()).isEqualTo(othersSent.get());
        StatsTotals x = gate.stats("/x").orElseThrow().totals();
        assertThat(x.admitted()).isEqualTo(times.size());
        assertThat(x.rejected()).isEqualTo(rejected.get());
        StatsTotals all = gate.stats("/**").orElseThrow().totals();
        assertThat(all.admitted()).isEqualTo(times.size() + others.size());
        assertThat(all.rejected()).isEqualTo(rejected.get() + othersRejected.get());
        assertThat(gate.rejections("x").orElseThrow().total()
                        + gate.rejections("paced").orElseThrow().total())
                .isEqualTo(rejected.get() + othersRejected.get());
        WaitStats waits = gate.waits("paced").orElseThrow();
        assertThat(waits.waitingNow()).isZero();
        assertThat(waits.waited()).isEqualTo(sleeps.get()).isGreaterThan(threads);
        assertThat(gate.stats("/x").orElseThrow().inFlight()).isZero();
    }

    // What a request that waited is told: its quota as of when it goes on, after the wait, not as
    // of its arrival (README, "On excess"), though others were counted while it waited; and a wait
    // interrupted gets its retry time as of the interruption. A client that trusts it is admitted.

    private static long remainingOf(HttpGate gate, Decision admitted, String rule) {
        Map<String, String> fields = new HashMap<>();
        gate.admittedHeaders(admitted, fields::put);
        Matcher m = Pattern.compile("\"" + rule + "\";r=(\\d+)").matcher(fields.get("RateLimit"));
        assertThat(m.find()).as("%s", fields).isTrue();
        return Long.parseLong(m.group(1));
    }

    /**
     * 2 per second in fixed seconds, borrowing up to 500 ms: two admitted at 0, then two loans of
     * the second from 1 s, made at 600 and 700 ms. Both go on at 1 s, when the second from 1 s
     * holds both loans: nothing remains. The first loan's ticket said 1 remained when it was made
     * (at 600 ms), and that is what its response says at 1 s.
     */
    @Test
    void loan_remainingTold_isAsOfWhenItGoesOn_andAClientTrustingItIsAdmitted() throws Exception {
        HttpGate gate = gate(FlowRule.builder("b")
                .match("/x")
                .limit(2, new WindowSpec(Duration.ofSeconds(1), 1, WindowMode.SLIDING))
                .onExcess(OnExcess.borrow(Duration.ofMillis(500)))
                .build());
        ((Entry) decided(send(gate, "/x", "198.51.100.1"))).close();
        ((Entry) decided(send(gate, "/x", "198.51.100.2"))).close();
        time.advanceTo(600 * MS);
        CompletableFuture<Decision> first = send(gate, "/x", "203.0.113.1"); // loan, goes on at 1 s
        time.advanceTo(700 * MS);
        CompletableFuture<Decision> second = send(gate, "/x", "203.0.113.2"); // loan, goes on at 1 s
        time.advanceTo(1000 * MS);

        Entry a = (Entry) decided(first);
        Entry b = (Entry) decided(second);
        assertThat(a.startNanos()).isEqualTo(1000 * MS);
        assertThat(b.startNanos()).isEqualTo(1000 * MS);
        long r = remainingOf(gate, a, "b");
        a.close();
        b.close();
        // Trust r: that many more requests, sent now, are admitted.
        for (int i = 0; i < r; i++) {
            Decision next = decided(send(gate, "/x", "203.0.113.1"));
            assertThat(next.admitted())
                    .as("request %s of the r=%s told to the loan that went on at 1 s, sent at 1 s", i + 1, r)
                    .isTrue();
        }
        assertThat(r)
                .as("r told to the loan that went on at 1 s, when the second holds 2 of 2")
                .isZero();
    }

    /**
     * A window of 3 per 10 s and a pace of one per 100 ms on the same requests. At 0 two requests
     * (the second waits for its turn at 100 ms), at 50 ms a third (turn at 200 ms). When the second
     * goes on at 100 ms the window holds all three: nothing remains; its response says 1.
     */
    @Test
    void pacedTurn_windowRemainingTold_isAsOfWhenItGoesOn_andAClientTrustingItIsAdmitted() throws Exception {
        HttpGate gate = gate(
                FlowRule.builder("w")
                        .match("/x")
                        .limit(3, WindowSpec.of(Duration.ofSeconds(10), 10))
                        .build(),
                FlowRule.builder("p")
                        .match("/x")
                        .limit(10, WindowSpec.of(Duration.ofSeconds(1), 10)) // a turn every 100 ms
                        .onExcess(OnExcess.pace(Duration.ofSeconds(1)))
                        .build());
        ((Entry) decided(send(gate, "/x", "198.51.100.1"))).close(); // turn 0
        CompletableFuture<Decision> waited = send(gate, "/x", "203.0.113.1"); // turn 100 ms
        time.advanceTo(50 * MS);
        CompletableFuture<Decision> third = send(gate, "/x", "198.51.100.2"); // turn 200 ms
        time.advanceTo(100 * MS);

        Entry entry = (Entry) decided(waited);
        assertThat(entry.startNanos()).isEqualTo(100 * MS);
        long r = remainingOf(gate, entry, "w");
        entry.close();
        for (int i = 0; i < r; i++) {
            CompletableFuture<Decision> next = send(gate, "/x", "203.0.113.1");
            time.advanceTo(1000 * MS);
            assertThat(decided(next).admitted())
                    .as("request %s of the r=%s told at 100 ms, sent at 100 ms", i + 1, r)
                    .isTrue();
        }
        time.advanceTo(1000 * MS);
        ((Entry) decided(third)).close();
        assertThat(r)
                .as("r of 'w' told to the request that went on at 100 ms, when 'w' holds 3 of 3")
                .isZero();
    }

    /**
     * A loan of 10 s fixed windows (1 per 10 s, lending up to 10 s ahead): admitted at 0, a second
     * request at 1 s borrows the window from 10 s and waits; it is interrupted at 9 s (8 s into its
     * wait) and rejected. The response goes out at 9 s, when the window from 10 s is 1 s away (the
     * loan was given back): Retry-After should say 1 s, not the 9 s it was as of the arrival.
     */
    @Test
    void interruptedLoan_retryAfter_isAsOfTheInterruption_notTheArrival() {
        ManualClock clock = new ManualClock();
        HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(FlowRule.builder("b")
                        .match("/x")
                        .limit(1, new WindowSpec(Duration.ofSeconds(10), 1, WindowMode.SLIDING))
                        .onExcess(OnExcess.borrow(Duration.ofSeconds(10)))
                        .build())))
                .clock(clock)
                .sleeper(nanos -> {
                    clock.advanceNanos(8_000 * MS); // interrupted 8 s into the wait
                    throw new InterruptedException();
                })
                .build();
        ((Entry) gate.enter("GET", "/x", ip("203.0.113.1"))).close();
        clock.advanceNanos(1_000 * MS);
        Decision d = gate.enter("GET", "/x", ip("203.0.113.1"));
        Thread.interrupted(); // clear the restored status
        assertThat(clock.nanoTime()).isEqualTo(9_000 * MS);
        Rejection rejected = (Rejection) d;
        assertThat(rejected.reason()).isEqualTo("interrupted");
        RejectionResponse response = gate.rejection(rejected);
        // A client obeying 1 s is admitted: the window from 10 s is free.
        assertThat(response.headers().get("Retry-After"))
                .as("%s, sent at 9 s", response.headers())
                .isEqualTo("1");
        assertThat(response.headers().get("RateLimit")).isEqualTo("\"b\";r=0;t=1");

        clock.advanceNanos(1_000 * MS);
        assertThat(gate.enter("GET", "/x", ip("203.0.113.1")))
                .as("obeyed, at 10 s")
                .isInstanceOf(Entry.class);
    }
}
