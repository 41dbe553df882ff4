package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.ManualClock;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** HTTP field names are case-insensitive (RFC 9110 5.1): so are the lookups in a rejection's headers. */
class RejectionHeaderNamesTest {

    private static Map<String, String> rejectionHeaders() {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of("rule.per-ip.match", "/api/**", "rule.per-ip.limit", "1/10s"), "test"))
                .clock(new ManualClock())
                .build();
        gate.enter(HttpGateTest.Request.of("GET", "/api/x", "203.0.113.1"));
        return gate.rejection((Rejection) gate.enter(HttpGateTest.Request.of("GET", "/api/x", "203.0.113.1")))
                .headers();
    }

    @Test
    void gateHeaders_lookedUpByName_ignoreCase() {
        Map<String, String> headers = rejectionHeaders();

        assertThat(headers.get("retry-after")).isEqualTo("11");
        assertThat(headers.get("RATELIMIT-POLICY")).isEqualTo("\"per-ip\";q=1;w=10");
        assertThat(headers.get("ratelimit")).isEqualTo("\"per-ip\";r=0;t=11");
        assertThat(headers.containsKey("cache-control")).isTrue();
        assertThat(headers.keySet().contains("CACHE-CONTROL")).isTrue();
        assertThat(headers.getOrDefault("Content-Type", "none")).isEqualTo("none");
        assertThat(headers.get(42)).isNull();
        // The names themselves are sent as written.
        assertThat(headers.keySet()).containsExactly("Retry-After", "RateLimit-Policy", "RateLimit", "Cache-Control");
    }

    @Test
    void copiedHeaders_lookedUpByName_ignoreCase_inTheirOrder() {
        Map<String, String> mine = new LinkedHashMap<>();
        mine.put("X-Reason", "maintenance");
        mine.put("Retry-After", "30");

        Map<String, String> headers = new RejectionResponse(503, mine, null, new byte[0]).headers();

        assertThat(headers.get("retry-after")).isEqualTo("30");
        assertThat(headers.get("x-reason")).isEqualTo("maintenance");
        assertThat(headers).containsExactly(Map.entry("X-Reason", "maintenance"), Map.entry("Retry-After", "30"));
    }

    @Test
    void copiedHeaders_withOneNameInTwoCases_areRefused() {
        Map<String, String> mine = new LinkedHashMap<>();
        mine.put("Retry-After", "30");
        mine.put("retry-after", "60");

        assertThatThrownBy(() -> new RejectionResponse(503, mine, null, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("header field 'retry-after' is 'Retry-After' again (field names ignore case)");
    }
}
