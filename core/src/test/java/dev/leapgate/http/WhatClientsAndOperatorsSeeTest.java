package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.net.IpAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What clients and operators see: headers, rejections, the status. */
class WhatClientsAndOperatorsSeeTest {

    private final ManualClock clock = new ManualClock();

    private final List<String> lines = new ArrayList<>();

    private static Origin ip(String address) {
        return Origin.ip(IpAddress.parse(address), 64);
    }

    private HttpGate gate(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        return HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .rejectionLines(lines::add)
                .build();
    }

    /**
     * header-origin-shown = fingerprint (the default): "an API key is never shown". A rule scoped to
     * one API key (scope = origin:<key>) must not print the key in the status either.
     */
    @Test
    void aRuleScopedToOneApiKey_doesNotShowTheKeyInTheStatus() {
        String key = "sk_live_9f8e7d6c5b4a3210";
        HttpGate gate = gate(
                "origin", "header:X-Api-Key",
                "rule.partner.match", "/**",
                "rule.partner.limit", "1/1h",
                "rule.partner.scope", "origin:" + key);
        gate.enter(HttpGateTest.Request.of("GET", "/x", "203.0.113.1", "X-Api-Key", key));
        gate.enter(HttpGateTest.Request.of("GET", "/x", "203.0.113.1", "X-Api-Key", key));

        assertThat(gate.statusJson()).contains("\"name\":\"partner\"").doesNotContain(key);
    }

    /**
     * draft-ietf-httpapi-ratelimit-headers-11, section 6: "If a response contains both the
     * Retry-After and the RateLimit header fields, the Retry-After field value SHOULD NOT reference
     * a point in time earlier than the end of the effective window." A 429 whose rule says r=0 for
     * t seconds must not send the client back sooner than t (nor say r=0 for longer than it holds).
     */
    @Test
    void aRejection_retryAfter_isNotBeforeTheEndOfTheEffectiveWindow() {
        HttpGate gate = gate(
                "rule.api.match", "/**",
                "rule.api.limit", "2/10s",
                "rule.api.scope", "per-origin");
        Origin client = ip("203.0.113.1");
        ((Entry) gate.enter("GET", "/x", client)).close();
        clock.advance(Duration.ofSeconds(5));
        ((Entry) gate.enter("GET", "/x", client)).close();
        Decision third = gate.enter("GET", "/x", client);
        RejectionResponse response = gate.rejection((Rejection) third);

        long retryAfter = Long.parseLong(response.headers().get("Retry-After"));
        Matcher t = Pattern.compile(";t=(\\d+)").matcher(response.headers().get("RateLimit"));
        assertThat(t.find()).isTrue();
        assertThat(retryAfter)
                .as("Retry-After against %s", response.headers())
                .isGreaterThanOrEqualTo(Long.parseLong(t.group(1)));
    }

    /**
     * README: "Leapgate does not parse the application's items: a policy name used by both is listed
     * twice". An application policy that merely starts with the text of Leapgate's item (another
     * window, another reset) is not Leapgate's item: both must be sent.
     */
    @Test
    void combine_keepsLeapgatesItem_whenTheApplicationsItemOnlyStartsLikeIt() {
        assertThat(RateLimitFields.combine("\"login\";q=5;w=600", "\"login\";q=5;w=60"))
                .isEqualTo("\"login\";q=5;w=600, \"login\";q=5;w=60");
        assertThat(RateLimitFields.combine("\"login\";r=4;t=600", "\"login\";r=4;t=60"))
                .isEqualTo("\"login\";r=4;t=600, \"login\";r=4;t=60");
    }

    /**
     * README, Rejection log: "A client that sent more than an eighth of the rejections the summary
     * counted is named". Four clients that each sent a quarter must all be named.
     */
    @Test
    void theRejectionLog_namesEveryClientAboveAnEighth() {
        HttpGate gate = gate(
                "rule.api.match", "/**",
                "rule.api.limit", "1/1h",
                "rule.api.scope", "per-origin");
        for (int n = 1; n <= 4; n++) {
            gate.enter("GET", "/x", ip("203.0.113." + n)); // admitted
            for (int i = 0; i < 10; i++) {
                gate.enter("GET", "/x", ip("203.0.113." + n)); // rejected
            }
        }
        clock.advance(Duration.ofSeconds(11));
        gate.enter("GET", "/x", ip("203.0.113.1"));

        assertThat(lines).hasSize(1);
        for (int n = 1; n <= 4; n++) {
            assertThat(lines.get(0)).contains("203.0.113." + n + " (about 10)");
        }
    }

    /**
     * README, Several rules per request: a rejection's "RateLimit fields list the rejecting rule and
     * every other rule that would reject the request as well". An in-flight rule with every slot
     * taken would reject it too.
     */
    @Test
    void aRejection_listsAFullInFlightRule_thatWouldRejectAsWell() {
        HttpGate gate = gate(
                "rule.hourly.match", "/**",
                "rule.hourly.limit", "1/1h",
                "rule.slots.match", "/**",
                "rule.slots.in-flight", "1");
        Decision held = gate.enter("GET", "/x", ip("203.0.113.1"));
        assertThat(held).isInstanceOf(Entry.class); // holds the one slot and the hour's one request
        Rejection second = (Rejection) gate.enter("GET", "/x", ip("203.0.113.2"));
        RejectionResponse response = gate.rejection(second);

        assertThat(response.headers().get("RateLimit"))
                .as("rejected by %s", second.rule())
                .contains("\"hourly\";r=0")
                .contains("\"slots\";r=0");
    }

    /**
     * A request for more permits than the limit is never admitted, however long it waits: its
     * rejection says so, as a denied origin's does, without Retry-After and without a retry time
     * in the body. It said "Retry-After: 1" and "Retry after 1 s.", and a client that obeyed
     * retried every second for ever.
     */
    @Test
    void aRequestForMorePermitsThanTheLimit_isNotToldToRetry() {
        HttpGate gate = gate("rule.export.match", "/export", "rule.export.limit", "5/10s");
        Decision rejected = gate.enter("POST", "/export", ip("203.0.113.1"), 6);
        RejectionResponse answer = gate.rejection((Rejection) rejected);

        assertThat(answer.status()).isEqualTo(429);
        assertThat(answer.headers())
                .containsExactly(
                        Map.entry("RateLimit-Policy", "\"export\";q=5;w=10"),
                        Map.entry("RateLimit", "\"export\";r=5;t=0"),
                        Map.entry("Cache-Control", "no-store"));
        assertThat(new String(answer.body(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Rule 'export' rejected the request: request needs more permits than the"
                        + " limit.\",\"rule\":\"export\"}");
        assertThat(ProblemBody.json((Rejection) rejected, 429))
                .isEqualTo(new String(answer.body(), java.nio.charset.StandardCharsets.UTF_8));

        clock.advance(Duration.ofHours(1));
        assertThat(gate.enter("POST", "/export", ip("203.0.113.1"), 6).admitted())
                .isFalse();
    }
}
