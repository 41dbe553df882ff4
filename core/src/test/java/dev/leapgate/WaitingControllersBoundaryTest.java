package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WaitingControllersBoundaryTest {

    private final ManualClock clock = new ManualClock();

    private boolean advancing = true;

    private Limiter limiter(String kind, long limit, Duration window, List<Long> sleeps) {
        OnExcess onExcess = switch (kind) {
            case "pace" -> OnExcess.pace(Duration.ofMillis(500));
            case "warm-up" -> OnExcess.warmUp(3, Duration.ofSeconds(10));
            case "warm-up-100" -> OnExcess.warmUp(100, Duration.ofMinutes(1));
            case "warm-up-pace" -> OnExcess.warmUpPace(3, Duration.ofSeconds(10), Duration.ofMillis(500));
            case "borrow" -> OnExcess.borrow(Duration.ofMillis(500));
            default -> throw new IllegalArgumentException(kind);
        };
        return Limiter.builder("probe")
                .rate(limit, kind.equals("borrow") ? WindowSpec.of(window, 10) : WindowSpec.of(window))
                .onExcess(onExcess)
                .clock(clock)
                .sleeper(n -> {
                    sleeps.add(n);
                    if (advancing) {
                        clock.advanceNanos(n);
                    }
                })
                .build();
    }

    /** Every rejection's retry-after: waiting exactly that long, the same request is admitted. */
    @ParameterizedTest
    @CsvSource({
        "pace,10,1000",
        "warm-up,10,1000",
        "warm-up-pace,10,1000",
        "borrow,10,1000",
        "pace,1,86400000",
        "warm-up,1,86400000",
        "warm-up-pace,1,86400000",
        "borrow,1,86400000",
        "warm-up-100,2147483647,86400000",
        "warm-up,16777215,100",
        "pace,2147483647,86400000",
        "warm-up,7,100",
        "warm-up-pace,3,100",
        "warm-up-100,1,100",
        "borrow,4095,100",
        "pace,16777215,100",
        "warm-up-100,1000,1000"
    })
    void retryAfter_isWhenTheRequestIsAdmitted(String kind, long limit, long windowMillis) {
        List<Long> sleeps = new ArrayList<>();
        Limiter l = limiter(kind, limit, Duration.ofMillis(windowMillis), sleeps);
        int rejections = 0;
        for (int i = 0; i < 200 && rejections < 5; i++) {
            Decision d = l.tryEnter();
            if (d instanceof Entry e) {
                for (Quota q : e.quotas()) {
                    assertThat(q.remaining()).isLessThanOrEqualTo(limit);
                }
                e.close();
                continue;
            }
            rejections++;
            Duration retry = ((Rejection) d).retryAfter();
            assertThat(retry).as("%s retry-after", kind).isPositive();
            clock.advanceNanos(retry.toNanos());
            Decision again = l.tryEnter();
            assertThat(again.admitted())
                    .as("%s after retry-after %s (rejection %d, attempt %d)", kind, retry, rejections, i)
                    .isTrue();
            ((Entry) again).close();
        }
    }

    /** remaining says how many more go through now: exactly those are admitted, back to back. */
    @ParameterizedTest
    @CsvSource({"pace,10,1000", "warm-up-pace,10,1000", "warm-up-pace,1000,1000", "warm-up,10,1000"})
    void remaining_isNeverMoreThanAreAdmitted(String kind, long limit, long windowMillis) {
        List<Long> sleeps = new ArrayList<>();
        advancing = false;
        Limiter l = limiter(kind, limit, Duration.ofMillis(windowMillis), sleeps);
        for (int round = 0; round < 50; round++) {
            Decision d = l.tryEnter();
            if (!(d instanceof Entry e)) {
                clock.advance(Duration.ofMillis(37));
                continue;
            }
            long remaining = e.quotas().get(0).remaining();
            e.close();
            int admitted = 0;
            for (int k = 0; k < remaining; k++) {
                Decision n = l.tryEnter();
                if (n.admitted()) {
                    admitted++;
                    ((Entry) n).close();
                }
            }
            assertThat(admitted)
                    .as("%s round %d remaining %d", kind, round, remaining)
                    .isEqualTo((int) remaining);
            clock.advance(Duration.ofMillis(round * 53L % 900));
        }
    }

    /**
     * The README's word on warm-up: its curve needs a warm-up of several intervals W / N. At 1 per
     * 10 s with cold-factor 3 (a cold interval of 30 s), a warm-up of 2 s is spent within the first
     * interval, and the second request waits 11 s; one of 60 s makes it wait 26.7 s.
     */
    @org.junit.jupiter.api.Test
    void warmUp_shorterThanAnInterval_shapesAlmostNothing() {
        assertThat(secondRequestsWait(Duration.ofSeconds(2))).isEqualTo(Duration.ofSeconds(11));
        assertThat(secondRequestsWait(Duration.ofSeconds(60)))
                .isBetween(Duration.ofMillis(26_600), Duration.ofMillis(26_700));
    }

    private Duration secondRequestsWait(Duration warmUp) {
        List<Long> sleeps = new ArrayList<>();
        Limiter limiter = Limiter.builder("warm")
                .rate(1, WindowSpec.of(Duration.ofSeconds(10)))
                .onExcess(OnExcess.warmUpPace(3, warmUp, Duration.ofMinutes(1)))
                .clock(new ManualClock())
                .sleeper(sleeps::add)
                .build();
        for (int i = 0; i < 2; i++) {
            if (limiter.tryEnter() instanceof Entry entry) {
                entry.close();
            }
        }
        assertThat(sleeps).as("warm-up %s", warmUp).hasSize(1);
        return Duration.ofNanos(sleeps.get(0));
    }
}
