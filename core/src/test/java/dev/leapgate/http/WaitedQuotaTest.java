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
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Configs;
import dev.leapgate.testing.SteppedTime;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a request that waited (for a loan, for a paced turn) is told: its quota as of when it goes
 * on, after the wait, not as of its arrival (README, "On excess"), so that {@code r} is never more
 * than would be admitted, though others were counted while it waited; and a wait interrupted gets
 * its retry time as of the interruption. A client that trusts what it is told is admitted.
 */
class WaitedQuotaTest {

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
