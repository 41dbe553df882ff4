package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.net.IpAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RateLimitFieldsTest {

    @ParameterizedTest
    @CsvSource({"0, 1", "1, 1", "999, 1", "1000, 1", "1001, 2", "6500, 7", "7000, 7"})
    void retryAfter_isWholeSecondsRoundedUp_atLeastOne(long millis, long seconds) {
        assertThat(RateLimitFields.retryAfterSeconds(Duration.ofMillis(millis))).isEqualTo(seconds);
    }

    /**
     * No correct retry or reset comes near 2^31 - 1 s (68 years; every window and queue is at most
     * 24 h): a larger one is a wrong computation, sent as that bound, which any delta-seconds
     * parser reads, and never wrapped round into a negative {@code t}.
     */
    @Test
    void hugeRetryAndReset_areSentAsTheLargestDeltaSeconds_neverWrappedNegative() {
        Duration never = Duration.ofNanos(Long.MAX_VALUE);
        assertThat(RateLimitFields.retryAfterSeconds(never)).isEqualTo(Integer.MAX_VALUE);
        assertThat(RateLimitFields.retryAfterSeconds(Duration.ofSeconds(Integer.MAX_VALUE)))
                .isEqualTo(Integer.MAX_VALUE);
        assertThat(RateLimitFields.retryAfterSeconds(Duration.ofSeconds(86_400)))
                .isEqualTo(86_400);

        assertThat(RateLimitFields.rateLimit(List.of(new Quota("per-ip", 100, Duration.ofSeconds(10), 0, never))))
                .isEqualTo("\"per-ip\";r=0;t=2147483647");
        String prefix = RateLimitFields.rateLimitPrefix("per-ip");
        assertThat(RateLimitFields.rateLimit(prefix, 0, Long.MAX_VALUE)).isEqualTo("\"per-ip\";r=0;t=2147483647");
        assertThat(RateLimitFields.rateLimit(prefix, 0, Long.MAX_VALUE - 999_999_998L, prefix, 1, 1))
                .isEqualTo("\"per-ip\";r=0;t=2147483647, \"per-ip\";r=1;t=1");
    }

    @Test
    void policyAndRateLimit_followTheDraftSyntax_oneItemPerRule() {
        List<Quota> quotas = List.of(
                new Quota("per-ip", 100, Duration.ofSeconds(10), 0, Duration.ofMillis(6200)),
                new Quota("fast", 5, Duration.ofMillis(100), 4, Duration.ZERO),
                new Quota("slots", 20, null, 19, Duration.ZERO));

        assertThat(RateLimitFields.policy(quotas))
                .isEqualTo("\"per-ip\";q=100;w=10, \"fast\";q=5;w=1, \"slots\";q=20;qu=\"concurrent-requests\"");
        assertThat(RateLimitFields.rateLimit(quotas)).isEqualTo("\"per-ip\";r=0;t=7, \"fast\";r=4;t=0, \"slots\";r=19");
        // One quota alone (a rejection by one rule) is written another way: the same items.
        String[] policies = {"\"per-ip\";q=100;w=10", "\"fast\";q=5;w=1", "\"slots\";q=20;qu=\"concurrent-requests\""};
        String[] rateLimits = {"\"per-ip\";r=0;t=7", "\"fast\";r=4;t=0", "\"slots\";r=19"};
        for (int i = 0; i < quotas.size(); i++) {
            assertThat(RateLimitFields.policy(List.of(quotas.get(i)))).isEqualTo(policies[i]);
            assertThat(RateLimitFields.rateLimit(List.of(quotas.get(i)))).isEqualTo(rateLimits[i]);
        }
    }

    @Test
    void combine_listsTheApplicationsItemsFirst_thenLeapgates_asOneValue() {
        assertThat(RateLimitFields.combine("\"daily\";r=999;t=3600", "\"per-ip\";r=4;t=11"))
                .isEqualTo("\"daily\";r=999;t=3600, \"per-ip\";r=4;t=11");
        assertThat(RateLimitFields.combine(" \"daily\";q=1000;w=86400,\"burst\";q=10;w=1 ", "\"per-ip\";q=5;w=10"))
                .as("the application's items as it wrote them, without the blanks around them")
                .isEqualTo("\"daily\";q=1000;w=86400,\"burst\";q=10;w=1, \"per-ip\";q=5;w=10");
    }

    @ParameterizedTest
    @CsvSource(
            value = {"NULL", "''", "' \t'"},
            nullValues = "NULL")
    void combine_withoutAnApplicationValue_isLeapgatesAlone(String application) {
        assertThat(RateLimitFields.combine(application, "\"per-ip\";r=4;t=11")).isEqualTo("\"per-ip\";r=4;t=11");
    }

    /**
     * An application's value ending (or starting) in a comma made an empty member once Leapgate's
     * items followed, which a strict Structured Fields parser refuses, dropping Leapgate's items with
     * the field (found by a review helper).
     */
    @Test
    void combine_leavesNoEmptyMember_whereTheApplicationsValueEndsInAComma() {
        assertThat(RateLimitFields.combine("\"daily\";r=999;t=3600, ", "\"per-ip\";r=4;t=11"))
                .isEqualTo("\"daily\";r=999;t=3600, \"per-ip\";r=4;t=11");
        assertThat(RateLimitFields.combine(" ,\"daily\";r=999;t=3600", "\"per-ip\";r=4;t=11"))
                .isEqualTo("\"daily\";r=999;t=3600, \"per-ip\";r=4;t=11");
        assertThat(RateLimitFields.combine(",", "\"per-ip\";r=4;t=11")).isEqualTo("\"per-ip\";r=4;t=11");
    }

    /**
     * The problem body a block handler makes for a denied origin's rejection is the gate's own: it
     * told the origin to retry after 1 s, and named it (found by a review helper).
     */
    @Test
    void theProblemBodyOfADeniedOrigin_saysNothingOfRetrying() {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of("rule.api.match", "/api/**", "rule.api.limit", "10/1m", "deny", "10.0.0.66"), "test"))
                .build();
        Decision denied = gate.enter("GET", "/api/x", Origin.ip(IpAddress.parse("10.0.0.66"), 64));

        assertThat(ProblemBody.json((Rejection) denied, 403)).isEqualTo(ProblemBody.denied(403));
    }

    @Test
    void combine_keepsAnApplicationValueThatAlreadyHoldsLeapgates_asItIs() {
        // The application read the field (Leapgate's items) and added its own to it.
        String extended = "\"per-ip\";r=4;t=11, \"daily\";r=999;t=3600";

        assertThat(RateLimitFields.combine(extended, "\"per-ip\";r=4;t=11")).isSameAs(extended);
    }

    @Test
    void noQuotas_giveEmptyValues() {
        assertThat(RateLimitFields.policy(List.of())).isEmpty();
        assertThat(RateLimitFields.rateLimit(List.of())).isEmpty();
    }

    @Test
    void problemBody_isRfc9457Json_withTheRuleAndRetryAfter() {
        Rejection r = rejection("per-ip", "limit exceeded", Duration.ofMillis(6500));

        assertThat(ProblemBody.json(r, 429))
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Rule 'per-ip' rejected the request: limit exceeded. Retry after 7 s.\","
                        + "\"rule\":\"per-ip\",\"retryAfter\":7}");
    }

    @ParameterizedTest
    @CsvSource({"0, 1", "9, 9", "10, 10", "99, 99", "100, 100", "86400, 86400", "31622400, 31622400"})
    void problemBody_saysTheRetryTimeTwice_whateverItsDigits(long seconds, String shown) {
        Rejection r = rejection("per-ip", "limit exceeded", Duration.ofSeconds(seconds));

        assertThat(ProblemBody.json(r, 429))
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Rule 'per-ip' rejected the request: limit exceeded. Retry after " + shown
                        + " s.\",\"rule\":\"per-ip\",\"retryAfter\":" + shown + "}");
        assertThat(ProblemBody.template("per-ip", "limit exceeded", 429).bytes(Long.MAX_VALUE))
                .asString(java.nio.charset.StandardCharsets.UTF_8)
                .contains("Retry after " + Long.MAX_VALUE + " s.")
                .endsWith("\"retryAfter\":" + Long.MAX_VALUE + "}");
    }

    @Test
    void problemBody_isUtf8_forARuleNameBeyondAscii() {
        Rejection r = rejection("café-☕", "limit exceeded", Duration.ofSeconds(3));

        assertThat(ProblemBody.json(r, 429)).contains("\"rule\":\"café-☕\",\"retryAfter\":3}");
        assertThat(ProblemBody.template("café-☕", "limit exceeded", 429).bytes(3))
                .isEqualTo(ProblemBody.json(r, 429).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource({
        "429, Too Many Requests",
        "503, Service Unavailable",
        "410, Gone",
        "401, Unauthorized",
        "500, Internal Server Error",
        "502, Bad Gateway",
        "504, Gateway Timeout",
        "420, Client Error",
        "599, Server Error"
    })
    void problemBody_titleIsTheStatusPhrase_forEveryConfigurableStatus(int status, String title) {
        // RFC 9457: with type about:blank, the title is the status's recommended reason phrase.
        assertThat(ProblemBody.json(rejection("r", "limit exceeded", Duration.ZERO), status))
                .startsWith("{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + status + ",");
        assertThat(ProblemBody.denied(status)).contains("\"title\":\"" + title + "\"");
    }

    @Test
    void problemBody_escapesWhatJsonRequires() {
        Rejection r = rejection("deny", "origin \"a\\b\"\n\u0001 is denied", Duration.ZERO);

        assertThat(ProblemBody.json(r, 503))
                .contains("\"title\":\"Service Unavailable\"")
                .contains("origin \\\"a\\\\b\\\"\\n\\u0001 is denied");
    }

    @Test
    void problemBody_escapesTheRuleName_inTheDetailAndTheRule() {
        Rejection r = rejection("we\"ird\\\u202e", "limit exceeded", Duration.ofSeconds(2));

        assertThat(ProblemBody.json(r, 429))
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Rule 'we\\\"ird\\\\\\u202e' rejected the request: limit exceeded."
                        + " Retry after 2 s.\",\"rule\":\"we\\\"ird\\\\\\u202e\",\"retryAfter\":2}");
    }

    private static Rejection rejection(String rule, String reason, Duration retryAfter) {
        return new Rejection() {
            @Override
            public String rule() {
                return rule;
            }

            @Override
            public String reason() {
                return reason;
            }

            @Override
            public Quota quota() {
                return null;
            }

            @Override
            public Duration retryAfter() {
                return retryAfter;
            }
        };
    }
}
