package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.net.IpAddress;
import dev.leapgate.stats.StatsSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code mode = shadow}: a rule that decides as usual and counts what it would have rejected, but
 * lets every request through, holds nothing for a request it would have rejected, and shows no
 * rate-limit fields.
 */
class ShadowModeTest {

    private final ManualClock clock = new ManualClock();
    private final Origin client = Origin.ip(IpAddress.parse("203.0.113.7"), 64);

    private HttpGate gate(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        return HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .build();
    }

    private static Map<String, String> fields(HttpGate gate, Decision decision) {
        Map<String, String> fields = new LinkedHashMap<>();
        gate.admittedHeaders(decision, fields::put);
        return fields;
    }

    @Test
    void aShadowRule_letsEveryRequestThrough_andCountsWhatItWouldHaveRejected() {
        HttpGate gate = gate(
                "rule.new.match", "GET /api/**",
                "rule.new.limit", "2/10s",
                "rule.new.mode", "shadow");

        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            decisions.add(gate.enter("GET", "/api/items", client));
        }

        assertThat(decisions).allSatisfy(d -> assertThat(d).isInstanceOf(Entry.class));
        assertThat(decisions).allSatisfy(d -> assertThat(fields(gate, d)).isEmpty());
        assertThat(decisions).allSatisfy(d -> assertThat(d.quotas()).isEmpty());
        StatsSnapshot stats = gate.stats("GET /api/**").orElseThrow().lastMinute();
        assertThat(stats.admitted())
                .as("every request went through, and counts as admitted")
                .isEqualTo(5);
        assertThat(stats.shadowRejected()).isEqualTo(3);
        assertThat(stats.rejected()).isZero();
        assertThat(gate.stats("GET /api/**").orElseThrow().totals().shadowRejected())
                .isEqualTo(3);
    }

    /**
     * Beside an enforced rule of another resource, every request still counts in the shadow rule's
     * resource, the ones it would have rejected included, and so does every completion.
     */
    @Test
    void besideAnEnforcedRuleOfAnotherResource_theShadowRulesStatisticsCountEveryRequest() {
        HttpGate gate = gate(
                "rule.new.match", "GET /api/**",
                "rule.new.limit", "2/10s",
                "rule.new.mode", "shadow",
                "rule.all.match", "/**",
                "rule.all.limit", "100/10s");
        for (int i = 0; i < 5; i++) {
            Entry entry = (Entry) gate.enter("GET", "/api/items", client);
            clock.advance(Duration.ofMillis(3));
            entry.close();
        }
        clock.advance(Duration.ofMillis(1));

        StatsSnapshot shadow = gate.stats("GET /api/**").orElseThrow().lastMinute();
        assertThat(shadow.admitted()).isEqualTo(5);
        assertThat(shadow.shadowRejected()).isEqualTo(3);
        assertThat(shadow.succeeded()).isEqualTo(5);
        assertThat(shadow.inFlight()).isZero();
        StatsSnapshot enforced = gate.stats("/**").orElseThrow().lastMinute();
        assertThat(enforced.admitted()).isEqualTo(5);
        assertThat(enforced.succeeded()).isEqualTo(5);
    }

    @Test
    void aPerClientShadowRule_namesTheClientsItWouldHaveRejectedMost() {
        HttpGate gate = gate(
                "rule.new.match", "GET /api/**",
                "rule.new.limit", "2/10s",
                "rule.new.scope", "per-origin",
                "rule.new.mode", "shadow");
        for (int i = 0; i < 5; i++) {
            gate.enter("GET", "/api/items", client);
        }
        gate.enter("GET", "/api/items", Origin.ip(IpAddress.parse("198.51.100.1"), 64));

        assertThat(gate.statusJson())
                .contains("\"mode\":\"shadow\"")
                .contains("\"rejectedMost\":[{\"client\":\"203.0.113.7\",\"about\":3}]");
        assertThat(gate.rejections("new")).get().satisfies(counts -> {
            assertThat(counts.limitExceeded()).as("would have rejected").isEqualTo(3);
            assertThat(counts.total()).isEqualTo(3);
        });
    }

    @Test
    void besideAnEnforcedRule_onlyTheEnforcedRulesFieldsAreSent_andItsRejectionsStand() {
        HttpGate gate = gate(
                "rule.shadowed.match", "/api/**",
                "rule.shadowed.limit", "2/10s",
                "rule.shadowed.mode", "shadow",
                "rule.enforced.match", "/api/**",
                "rule.enforced.limit", "4/10s");

        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            decisions.add(gate.enter("GET", "/api/items", client));
        }

        assertThat(decisions.subList(0, 4))
                .allSatisfy(d -> assertThat(d.admitted()).isTrue());
        assertThat(decisions.get(4).admitted())
                .as("the enforced rule still rejects")
                .isFalse();
        assertThat(fields(gate, decisions.get(0)))
                .containsEntry("RateLimit-Policy", "\"enforced\";q=4;w=10")
                .containsEntry("RateLimit", "\"enforced\";r=3;t=11");
        assertThat(decisions.get(3).quotas())
                .extracting(dev.leapgate.Quota::rule)
                .containsExactly("enforced");
        StatsSnapshot stats = gate.stats("/api/**").orElseThrow().lastMinute();
        assertThat(stats.admitted()).isEqualTo(4);
        assertThat(stats.rejected()).isEqualTo(1);
        assertThat(stats.shadowRejected())
                .as("requests 3 and 4, let through; request 5 is counted as rejected alone")
                .isEqualTo(2);
        assertThat(gate.rejections("shadowed").orElseThrow().total())
                .as("the shadow rule's own count has request 5 too")
                .isEqualTo(3);
    }

    /** Whichever of a shadow rule and an enforced rule decides first, the resource counts the same. */
    @Test
    void aRequestAnEnforcedRuleRejected_isNoShadowRejection_whicheverRuleComesFirst() {
        String[] shadowed = {
            "rule.shadowed.match", "/api/**", "rule.shadowed.limit", "1/10s", "rule.shadowed.mode", "shadow"
        };
        String[] enforced = {"rule.enforced.match", "/api/**", "rule.enforced.limit", "1/10s"};
        for (boolean shadowFirst : new boolean[] {true, false}) {
            List<String> settings = new ArrayList<>(List.of(shadowFirst ? shadowed : enforced));
            settings.addAll(List.of(shadowFirst ? enforced : shadowed));
            HttpGate gate = gate(settings.toArray(String[]::new));
            assertThat(gate.enter("GET", "/api/items", client).admitted()).isTrue();
            assertThat(gate.enter("GET", "/api/items", client).admitted()).isFalse();

            StatsSnapshot stats = gate.stats("/api/**").orElseThrow().lastMinute();
            assertThat(stats.rejected()).isEqualTo(1);
            assertThat(stats.shadowRejected())
                    .as("shadow rule first: %s", shadowFirst)
                    .isZero();
        }
    }

    @Test
    void whatTheShadowRuleTookForARequestAnotherRuleRejected_isGivenBack() {
        HttpGate gate = gate(
                "rule.shadowed.match", "/api/**",
                "rule.shadowed.limit", "2/10s",
                "rule.shadowed.mode", "shadow",
                "rule.strict.match", "/api/**",
                "rule.strict.limit", "1/10s");

        for (int i = 0; i < 5; i++) {
            gate.enter("GET", "/api/items", client);
        }

        // The shadow rule counted the first request only: its count for each rejected one was
        // refunded, so it never reached its limit of 2.
        assertThat(gate.stats("/api/**").orElseThrow().lastMinute().shadowRejected())
                .isZero();
    }

    /**
     * Two shadow rules on one pattern (a short and a long limit tried together) that would both
     * have rejected a request: the resource counts that request once, as it counts a request once
     * however many enforced rules reject it; each rule counts it as its own.
     */
    @Test
    void twoShadowRulesOnOnePattern_bothWouldRejectARequest_theResourceCountsItOnce() {
        HttpGate gate = gate(
                "rule.short.match", "/api/**",
                "rule.short.limit", "2/10s",
                "rule.short.mode", "shadow",
                "rule.long.match", "/api/**",
                "rule.long.limit", "2/1h",
                "rule.long.mode", "shadow");

        for (int i = 0; i < 5; i++) {
            ((Entry) gate.enter("GET", "/api/items", client)).close();
        }

        StatsSnapshot stats = gate.stats("/api/**").orElseThrow().lastMinute();
        assertThat(stats.admitted()).isEqualTo(5);
        assertThat(stats.shadowRejected()).as("requests 3, 4 and 5, once each").isEqualTo(3);
        assertThat(gate.stats("/api/**").orElseThrow().totals().shadowRejected())
                .isEqualTo(3);
        assertThat(gate.rejections("short").orElseThrow().total()).isEqualTo(3);
        assertThat(gate.rejections("long").orElseThrow().total()).isEqualTo(3);
        clock.advance(Duration.ofSeconds(1));
        assertThat(gate.stats("/api/**").orElseThrow().lastMinuteBySecond())
                .extracting(StatsSnapshot::shadowRejected)
                .containsOnly(0L, 3L)
                .contains(3L);
    }

    @Test
    void aShadowInFlightLimit_holdsASlotOnlyForTheRequestsItWouldHaveAdmitted() {
        HttpGate gate = gate(
                "rule.reports.match", "GET /reports/**",
                "rule.reports.in-flight", "1",
                "rule.reports.mode", "shadow");

        Entry first = (Entry) gate.enter("GET", "/reports/1", client);
        Entry second = (Entry) gate.enter("GET", "/reports/2", client); // would have been rejected

        assertThat(slotsHeld(gate)).isEqualTo(1);
        assertThat(gate.stats("GET /reports/**").orElseThrow().inFlight())
                .as("both requests are in flight: the rule only watches")
                .isEqualTo(2);
        second.close();
        first.close();
        assertThat(slotsHeld(gate)).isZero();
        assertThat(gate.stats("GET /reports/**").orElseThrow().inFlight()).isZero();
        Entry third = (Entry) gate.enter("GET", "/reports/3", client);
        assertThat(slotsHeld(gate))
                .as("the slot came back once, so the next request holds it")
                .isEqualTo(1);
        third.close();
        StatsSnapshot stats = gate.stats("GET /reports/**").orElseThrow().lastMinute();
        assertThat(stats.admitted()).as("every request went through").isEqualTo(3);
        assertThat(stats.shadowRejected()).isEqualTo(1);
        assertThat(stats.peakInFlight()).isEqualTo(2);
    }

    /** The in-flight slots the rule 'reports' holds, from the status. */
    private static long slotsHeld(HttpGate gate) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                        "\"name\":\"reports\"[^}]*}[^}]*\"inFlight\":(\\d+)")
                .matcher(gate.statusJson());
        assertThat(m.find()).as("the rule's in-flight count in the status").isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void theReadmesShadowExample_isAShadowRule() throws Exception {
        String readme = java.nio.file.Files.readString(dev.leapgate.testing.JavaSnippets.document("README.md"));
        int mode = readme.indexOf("rule.api-trial.mode = shadow");
        String block = readme.substring(readme.lastIndexOf("```properties\n", mode) + 14, readme.indexOf("```", mode));

        dev.leapgate.rule.FlowRule rule =
                ConfigParser.parseRules(block, "README.md").rules().get(0);

        assertThat(rule.shadow()).isTrue();
        assertThat(rule.toString())
                .isEqualTo("rule 'api-trial': /api/**, 100 per 1m in 10 buckets, strict, per-origin, reject,"
                        + " max-origins 100000, shadow");
    }
}
