package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Entry;
import dev.leapgate.Limiter;
import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeasesTest {

    private final ManualClock clock = new ManualClock();
    private final Leases leases = new Leases(clock, Duration.ofSeconds(1));

    @Test
    void anAdmittedRequestNothingReportsTheEndOf_isReleasedAfterMaxRequestTime() {
        Limiter slots = Limiter.builder("slots").concurrency(1).clock(clock).build();
        RequestTracker tracker = new RequestTracker((Entry) slots.tryEnter(), null, leases, null, URI.create("/test"));

        clock.advance(Duration.ofSeconds(2));
        leases.sweep();

        assertThat(tracker.isFinished()).isTrue();
        assertThat(leases.expired()).isEqualTo(1);
        assertThat(slots.tryEnter().admitted()).as("the slot is back").isTrue();
    }

    @Test
    void aRequestNoRuleApplies_holdsNoLease_andIsNeverReportedAsExpired() {
        // A request that no rule matched (or from an exempt origin) gets the gate's entry that
        // holds nothing, and whose start is 0: its lease looked expired as soon as the clock read
        // max-request-time or more, and the safety net warned of a request "admitted 1s ago" that
        // was still running, or (a clock below it) kept it in the set for good.
        Entry unlimited = (Entry) HttpGate.builder(dev.leapgate.config.LeapgateConfig.defaults())
                .clock(clock)
                .build()
                .enter("GET", "/anything", dev.leapgate.Origin.unknown());
        clock.advance(Duration.ofMillis(1500));
        RequestTracker tracker = new RequestTracker(unlimited, null, leases, null, URI.create("/test"));

        clock.advance(Duration.ofMillis(200));
        leases.sweep();

        assertThat(leases.expired()).as("expired").isZero();
        assertThat(tracker.isFinished()).as("finished by the safety net").isFalse();
        assertThat(leases.open()).as("leases held").isZero();
        tracker.ended(200);
        assertThat(tracker.isFinished()).isTrue();
        assertThat(leases.open()).isZero();
    }
}
