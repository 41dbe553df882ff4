package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.http.RateLimitFields;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A quota's rule name is written into {@code RateLimit-Policy} and {@code RateLimit} as it is: a
 * quota takes the names a rule takes, and no value a header cannot say.
 */
class QuotaValuesTest {

    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

    @ParameterizedTest
    @ValueSource(strings = {"", "per ip", "GET /orders", "a.b", "naïve", "x\r\nSet-Cookie: a=b"})
    void ruleName_thatNoRuleCouldHave_isRefused(String name) {
        assertThatThrownBy(() -> new Quota(name, 5, TEN_SECONDS, 5, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rule name must be 1 to 64 letters, digits, '-' or '_', was '" + name + "'");
    }

    /** Before, a quote in the name closed the policy's string and added items of its own making. */
    @Test
    void ruleName_withAQuote_cannotForgeAPolicy() {
        String forged = "api\";q=1000000;w=1, \"x";

        assertThatThrownBy(() -> RateLimitFields.policy(List.of(new Quota(forged, 5, TEN_SECONDS, 5, Duration.ZERO))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("rule name must be 1 to 64 letters, digits, '-' or '_', was 'api\"");
    }

    @Test
    void ruleName_asLongAsARuleName_isTaken_oneLonger_isNot() {
        String longest = "R".repeat(63) + "_";

        assertThat(new Quota(longest, 5, TEN_SECONDS, 5, Duration.ZERO).rule()).isEqualTo(longest);
        assertThatThrownBy(() -> new Quota(longest + "x", 5, TEN_SECONDS, 5, Duration.ZERO))
                .hasMessageContaining("must be 1 to 64 letters");
        assertThat(new Quota("Per-IP_2", 5, null, 0, Duration.ZERO).isInFlight())
                .isTrue();
    }

    @Test
    void numbersOutOfRange_areRefused_namingTheValueAndTheRule() {
        assertThatThrownBy(() -> new Quota("api", 0, TEN_SECONDS, 0, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be at least 1, was 0 (rule 'api')");
        assertThatThrownBy(() -> new Quota("api", -5, null, 0, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be at least 1, was -5 (rule 'api')");
        assertThatThrownBy(() -> new Quota("api", 5, TEN_SECONDS, -1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("remaining must be 0 to 999999999999999 (15 digits, a header field's largest integer),"
                        + " was -1 (rule 'api')");
        assertThatThrownBy(() -> new Quota("api", 1_000_000_000_000_000L, TEN_SECONDS, 5, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be at most 999999999999999 (15 digits, a header field's largest integer),"
                        + " was 1000000000000000 (rule 'api')");
        assertThatThrownBy(() -> new Quota("api", 5, TEN_SECONDS, Long.MAX_VALUE, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("remaining must be 0 to 999999999999999");
        assertThatThrownBy(() -> new Quota("api", 5, Duration.ZERO, 5, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be positive (null for an in-flight limit), was 0s (rule 'api')");
        assertThatThrownBy(() -> new Quota("api", 5, Duration.ofMillis(-100), 5, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("window must be positive (null for an in-flight limit), was -100ms (rule 'api')");
        assertThatThrownBy(() -> new Quota("api", 5, TEN_SECONDS, 5, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("reset must not be negative, was -1s (rule 'api')");
    }

    @Test
    void valuesAtTheirBounds_areTaken() {
        Quota quota = new Quota("api", 1, Duration.ofNanos(1), 0, Duration.ZERO);

        assertThat(RateLimitFields.policy(List.of(quota))).isEqualTo("\"api\";q=1;w=1");
        assertThat(RateLimitFields.rateLimit(List.of(quota))).isEqualTo("\"api\";r=0;t=0");
        Quota largest = new Quota("api", Quota.MAX_NUMBER, null, Quota.MAX_NUMBER, Duration.ZERO);
        assertThat(RateLimitFields.policy(List.of(largest)))
                .isEqualTo("\"api\";q=999999999999999;qu=\"concurrent-requests\"");
    }
}
