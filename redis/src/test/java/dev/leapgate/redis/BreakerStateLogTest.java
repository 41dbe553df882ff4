package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The circuit breaker's opening and closing, each logged once, whatever threads report them. */
class BreakerStateLogTest {

    /** The breaker's state, as the test sets it. */
    private final AtomicReference<State> breaker = new AtomicReference<>(State.CLOSED);

    private PrintStream err;
    private ByteArrayOutputStream captured;

    @BeforeEach
    void captureLog() {
        err = System.err;
        captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreLog() {
        System.setErr(err);
        err.print(captured.toString(StandardCharsets.UTF_8));
    }

    private List<String> warnings() {
        return captured.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(line -> line.contains("WARN") && line.contains("circuit breaker"))
                .map(line -> line.substring(
                        line.indexOf("circuit breaker"), line.indexOf(':', line.indexOf("circuit breaker"))))
                .toList();
    }

    @Test
    void anOutage_logsTheOpeningAndTheClosing() {
        BreakerStateLog log = new BreakerStateLog(breaker::get, "redis://test");
        for (State s : List.of(State.CLOSED, State.OPEN, State.HALF_OPEN, State.OPEN, State.HALF_OPEN, State.CLOSED)) {
            breaker.set(s);
            log.report();
            log.report();
        }
        assertThat(warnings()).containsExactly("circuit breaker opened", "circuit breaker closed");
        assertThat(captured.toString(StandardCharsets.UTF_8)).contains("(1 rounds of probes failed before)");
    }

    /**
     * A thread that read the breaker half open (a probe let through) and stalled, while the probes
     * succeeded and another thread logged the closing, does not then log the state it read: that
     * was an opening without an outage, and a second closing after it.
     */
    @Test
    void aThreadThatReadAStateTheBreakerHasSinceLeft_logsNothing() throws Exception {
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicReference<Thread> stalled = new AtomicReference<>();
        BreakerStateLog log = new BreakerStateLog(
                () -> {
                    State now = breaker.get();
                    if (Thread.currentThread() == stalled.get()) {
                        stalled.set(null); // its first read alone
                        read.countDown();
                        try {
                            resume.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return now;
                },
                "redis://test");
        breaker.set(State.OPEN);
        log.report(); // opened
        breaker.set(State.HALF_OPEN);
        CompletableFuture<Void> probe = CompletableFuture.runAsync(() -> {
            stalled.set(Thread.currentThread());
            log.report();
        });
        assertThat(read.await(10, TimeUnit.SECONDS)).isTrue();
        breaker.set(State.CLOSED); // the probes succeeded
        log.report(); // closed
        resume.countDown();
        probe.get(10, TimeUnit.SECONDS);
        log.report(); // the next decision's

        assertThat(warnings()).containsExactly("circuit breaker opened", "circuit breaker closed");
    }
}
