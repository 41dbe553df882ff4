package dev.leapgate.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the store's circuit breaker opening and closing again (WARN), as seen after each permission
 * and each outcome, where every transition happens; the rounds of probing in between at DEBUG:
 * while Redis stays down the breaker goes half open and opens again every second, which at WARN
 * was two lines a second for as long as the outage lasted. Read from its state rather than its
 * event publisher: with a consumer registered, Resilience4j builds an event with a time stamp for
 * every call, on the connection's I/O thread.
 *
 * <p>Concurrency: the state last logged is one {@link AtomicReference}. A thread reads it, then
 * the breaker's state, and logs the change if its compare-and-set from the value it read wins; if
 * it loses, another thread logged meanwhile, and it reads both again. Read in the other order, a
 * thread that stalled after reading the breaker's state could log a state the breaker had left
 * since, after another thread logged the newer one (a probe's half-open state, after the closing):
 * an opening without an outage, and then a second closing.
 */
final class BreakerStateLog {

    /** Under the store's name, as the rest of its messages. */
    private static final Logger LOG = LoggerFactory.getLogger(RedisWindowStore.class);

    /** The breaker's state now. */
    private final Supplier<CircuitBreaker.State> state;
    /** The store as messages name it. */
    private final String store;
    /** The breaker's state last logged. */
    private final AtomicReference<CircuitBreaker.State> reported = new AtomicReference<>(CircuitBreaker.State.CLOSED);
    /** Rounds of probes that failed since the breaker opened. */
    private final AtomicLong failedProbes = new AtomicLong();

    BreakerStateLog(Supplier<CircuitBreaker.State> state, String store) {
        this.state = state;
        this.store = store;
    }

    /** Logs the breaker's state if it changed since last logged. */
    void report() {
        CircuitBreaker.State last;
        CircuitBreaker.State now;
        do {
            last = reported.get();
            now = state.get(); // after: a change logged since it was read makes the CAS fail
            if (now == last) {
                return;
            }
        } while (!reported.compareAndSet(last, now));
        if (now == CircuitBreaker.State.CLOSED) {
            long probes = failedProbes.getAndSet(0);
            LOG.warn(
                    "Leapgate Redis store {}: circuit breaker closed: Redis answers again{}",
                    store,
                    probes == 0 ? "" : " (" + probes + " rounds of probes failed before)");
        } else if (last == CircuitBreaker.State.CLOSED) {
            LOG.warn(
                    "Leapgate Redis store {}: circuit breaker opened: Redis failed or was too slow for half of the"
                            + " last decisions; not calling it for 1 s, then probing it every second until it"
                            + " answers (logged when it does)",
                    store);
        } else {
            if (now == CircuitBreaker.State.OPEN) {
                failedProbes.incrementAndGet();
            }
            LOG.debug(
                    "Leapgate Redis store {}: circuit breaker {}",
                    store,
                    now == CircuitBreaker.State.OPEN ? "opened again: the probes failed" : "half open: probing Redis");
        }
    }
}
