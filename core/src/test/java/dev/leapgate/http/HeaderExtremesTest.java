package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.internal.counter.LeapCounter;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Configs;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The header fields at the extremes: the largest limit each window allows, windows from 100 ms to
 * 24 h in one to 1000 buckets, every on-excess, a clock at the ends of its range, requests of one
 * permit, of the whole limit and of more: the text is the documented syntax, {@code r} within 0 and
 * the limit, {@code t} and {@code Retry-After} within a day and a queue, and a retry that much later
 * is admitted.
 */
class HeaderExtremesTest {
    private static final Origin A = Origin.ip(IpAddress.parse("203.0.113.1"), 64);

    @Test
    void headers_atLargestLimitsLongestWindowsAndClockEnds_stayInRangeAndTrue() {
        WindowSpec[] windows = {
            new WindowSpec(Duration.ofMillis(100), 1, WindowMode.STRICT),
            new WindowSpec(Duration.ofMillis(100), 100, WindowMode.SLIDING),
            new WindowSpec(Duration.ofSeconds(1), 1000, WindowMode.STRICT),
            new WindowSpec(Duration.ofHours(24), 1, WindowMode.STRICT),
            new WindowSpec(Duration.ofHours(24), 1000, WindowMode.SLIDING),
            new WindowSpec(Duration.ofHours(24), 1000, WindowMode.STRICT),
        };
        OnExcess[] kinds = {
            OnExcess.reject(),
            OnExcess.borrow(Duration.ofMinutes(1)),
            OnExcess.pace(Duration.ofMinutes(1)),
            OnExcess.warmUp(100, Duration.ofMinutes(1)),
            OnExcess.warmUpPace(100, Duration.ofMinutes(1), Duration.ofMinutes(1)),
            OnExcess.pace(Duration.ZERO)
        };
        long[] clocks = {0, Long.MAX_VALUE - 1_000_000_000_000L, Long.MIN_VALUE, -1};
        for (WindowSpec w : windows) {
            for (OnExcess k : kinds) {
                for (int lim = 0; lim < 2; lim++) {
                    for (long start : clocks) {
                        for (boolean perOrigin : new boolean[] {false, true}) {
                            boolean smooth = k.kind() != OnExcess.Kind.REJECT && k.kind() != OnExcess.Kind.BORROW;
                            if (smooth && perOrigin) continue;
                            long limit = lim == 0 ? 1 : LeapCounter.maxLimit(w, k.kind() == OnExcess.Kind.BORROW);
                            FlowRule rule = FlowRule.builder("x")
                                    .match("/x")
                                    .limit(limit, w)
                                    .onExcess(k)
                                    .scope(perOrigin ? Scope.perOrigin() : Scope.all())
                                    .build();
                            ManualClock clock = new ManualClock(start);
                            HttpGate gate = HttpGate.builder(Configs.withRules(RuleSet.of(rule)))
                                    .clock(clock)
                                    .sleeper(clock::advanceNanos)
                                    .build();
                            String at = w + " " + k + " " + limit + " " + start + " " + perOrigin;
                            int[] permitsSeq = {
                                1,
                                (int) Math.min(limit, Integer.MAX_VALUE),
                                Integer.MAX_VALUE,
                                1,
                                (int) Math.min(limit, Integer.MAX_VALUE),
                                1
                            };
                            for (int permits : permitsSeq) {
                                Decision d = gate.enter("GET", "/x", A, permits);
                                Map<String, String> h = new LinkedHashMap<>();
                                if (d instanceof Rejection r) {
                                    h.putAll(gate.rejection(r).headers());
                                    if (permits > limit) { // no wait admits it: no Retry-After
                                        assertThat(h).as(at).doesNotContainKey("Retry-After");
                                    } else {
                                        long ra = Long.parseLong(h.get("Retry-After"));
                                        assertThat(ra).as(at + h).isBetween(1L, 2L * 86400 + 120);
                                        clock.advanceNanos(ra * 1_000_000_000L);
                                        Decision again = gate.enter("GET", "/x", A, permits);
                                        assertThat(again.admitted())
                                                .as(at + " " + permits + " " + h)
                                                .isTrue();
                                        ((Entry) again).close();
                                    }
                                } else {
                                    gate.admittedHeaders(d, h::put);
                                    ((Entry) d).close();
                                }
                                String rl = h.get("RateLimit");
                                assertThat(rl).as(at).matches("\"x\";r=\\d+;t=\\d+");
                                long r = Long.parseLong(rl.replaceAll(".*r=(\\d+).*", "$1"));
                                long t = Long.parseLong(rl.replaceAll(".*t=(\\d+).*", "$1"));
                                assertThat(r).as(at + rl).isBetween(0L, limit);
                                assertThat(t).as(at + rl).isBetween(0L, 2L * 86400 + 120);
                                assertThat(h.get("RateLimit-Policy"))
                                        .as(at)
                                        .isEqualTo("\"x\";q=" + limit + ";w="
                                                + Math.max(1, (w.lengthNanos() + 999_999_999L) / 1_000_000_000L));
                            }
                        }
                    }
                }
            }
        }
    }
}
