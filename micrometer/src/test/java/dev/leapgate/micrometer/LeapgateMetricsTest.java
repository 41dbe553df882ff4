package dev.leapgate.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.FakeWindowStore;
import dev.leapgate.testing.HeldSleeper;
import dev.leapgate.testing.Together;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.CountingMode;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeapgateMetricsTest {

    private final ManualClock clock = new ManualClock();

    private HttpGate gate(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        return HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .build();
    }

    private static Origin ip(String address) {
        return Origin.ip(IpAddress.parse(address), 64);
    }

    private static final String[] RULES = {
        "rule.api.match", "/api/**",
        "rule.api.limit", "2/1h",
        "rule.api.scope", "per-origin",
        "rule.slots.match", "/export",
        "rule.slots.in-flight", "1",
        "rule.trial.match", "/search",
        "rule.trial.limit", "1/1h",
        "rule.trial.mode", "shadow",
        "exempt", "10.0.0.1",
        "deny", "10.0.0.66"
    };

    /** Requests of every kind: admitted, rejected, failed, in flight, shadow-rejected, exempt, denied. */
    private static Entry traffic(HttpGate gate, ManualClock clock) {
        for (int i = 0; i < 3; i++) {
            Decision decision = gate.enter("GET", "/api/x", ip("203.0.113.7"));
            if (decision instanceof Entry entry) {
                clock.advance(Duration.ofMillis(20));
                if (i == 1) {
                    entry.fail();
                }
                entry.close();
            }
        }
        Entry held = (Entry) gate.enter("GET", "/export", ip("203.0.113.7"));
        assertThat(gate.enter("GET", "/export", ip("203.0.113.8")).admitted()).isFalse();
        for (int i = 0; i < 2; i++) {
            ((Entry) gate.enter("GET", "/search", ip("203.0.113.7"))).close();
        }
        ((Entry) gate.enter("GET", "/api/x", ip("10.0.0.1"))).close();
        assertThat(gate.enter("GET", "/api/x", ip("10.0.0.66")).admitted()).isFalse();
        return held;
    }

    private static double counter(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).functionCounter().count();
    }

    private static double gauge(MeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    @Test
    void everyOutcome_isCountedPerResource_andTheRulesAreDescribed() {
        HttpGate gate = gate(RULES);
        MeterRegistry registry = new SimpleMeterRegistry();
        new LeapgateMetrics(gate, Tags.of("app", "shop")).bindTo(registry);

        Entry held = traffic(gate, clock);

        assertThat(counter(registry, "leapgate.requests", "resource", "/api/**", "outcome", "admitted"))
                .isEqualTo(2);
        assertThat(counter(registry, "leapgate.requests", "resource", "/api/**", "outcome", "rejected"))
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.requests.completed", "resource", "/api/**", "outcome", "failed"))
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.requests.completed", "resource", "/api/**", "outcome", "succeeded"))
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.requests", "resource", "/search", "outcome", "shadow-rejected"))
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.requests", "resource", "/search", "outcome", "admitted"))
                .as("both went through: the shadow rule would have rejected the second")
                .isEqualTo(2);
        assertThat(counter(registry, "leapgate.requests", "resource", "/export", "outcome", "rejected"))
                .isEqualTo(1);
        assertThat(gauge(registry, "leapgate.requests.in.flight", "resource", "/export"))
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.gate.requests", "outcome", "exempt"))
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.gate.requests", "outcome", "denied"))
                .isEqualTo(1);
        assertThat(gauge(registry, "leapgate.rule.limit", "rule", "api", "kind", "window"))
                .isEqualTo(2);
        assertThat(gauge(registry, "leapgate.rule.limit", "rule", "slots", "kind", "in-flight"))
                .isEqualTo(1);
        assertThat(gauge(registry, "leapgate.clients.tracked", "rule", "api")).isEqualTo(1);
        assertThat(counter(registry, "leapgate.rule.rejections", "rule", "api", "reason", "limit-exceeded"))
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.rule.rejections", "rule", "slots", "reason", "limit-exceeded"))
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.rule.rejections", "rule", "trial", "reason", "limit-exceeded"))
                .as("what the shadow rule would have rejected")
                .isEqualTo(1);
        assertThat(registry.find("leapgate.rule.rejections")
                        .tag("reason", "interrupted")
                        .counters())
                .as("no rule makes a request wait")
                .isEmpty();
        assertThat(gauge(registry, "leapgate.clients.limited", "rule", "api"))
                .as("203.0.113.7 used its 2 of 2")
                .isEqualTo(1);
        assertThat(registry.find("leapgate.queue.waiting").gauges())
                .as("no rule makes a request wait")
                .isEmpty();
        assertThat(registry.find("leapgate.clients.tracked")
                        .tag("rule", "slots")
                        .gauge())
                .as("only per-client rules track clients")
                .isNull();
        assertThat(registry.get("leapgate.response.time")
                        .tag("resource", "/api/**")
                        .functionTimer()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get("leapgate.response.time")
                        .tag("resource", "/api/**")
                        .functionTimer()
                        .totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(40);
        assertThat(registry.getMeters())
                .as("every meter has the binder's tags")
                .allSatisfy(meter -> assertThat(meter.getId().getTag("app")).isEqualTo("shop"));

        held.close();
        assertThat(gauge(registry, "leapgate.requests.in.flight", "resource", "/export"))
                .isZero();
    }

    @Test
    void newRules_getMeters_andTheMetersOfRulesGone_areRemoved() {
        HttpGate gate = gate(RULES);
        MeterRegistry registry = new SimpleMeterRegistry();
        new LeapgateMetrics(gate).bindTo(registry);

        gate.update(RuleSet.of(
                FlowRule.builder("api")
                        .match("/api/**")
                        .limit(5, WindowSpec.of(Duration.ofHours(1)))
                        .build(),
                FlowRule.builder("reports").match("/reports/**").inFlight(3).build()));

        assertThat(gauge(registry, "leapgate.rule.limit", "rule", "api"))
                .as("redefined")
                .isEqualTo(5);
        assertThat(gauge(registry, "leapgate.rule.limit", "rule", "reports")).isEqualTo(3);
        assertThat(registry.find("leapgate.rule.limit").tag("rule", "slots").gauge())
                .isNull();
        assertThat(registry.find("leapgate.clients.tracked").gauges())
                .as("api no longer counts per client")
                .isEmpty();
        assertThat(registry.find("leapgate.requests").tag("resource", "/export").meters())
                .isEmpty();
        assertThat(registry.find("leapgate.requests")
                        .tag("resource", "/reports/**")
                        .meters())
                .hasSize(3);
    }

    /**
     * A scrape between the new rules taking force and this binder following them (the gate's rules
     * listeners run after the change; one added before the binder's stands in for the scrape): the
     * old meters, still registered, find a resource no rule protects and a rule redefined under its
     * name. They used to read 0 and the new rule's counts then: counters going down.
     */
    @Test
    void aScrapeWhileTheMetersFollowAReload_neverSeesACounterGoDown() {
        Map<String, String> settings =
                new LinkedHashMap<>(Map.of("rule.api.match", "/api/**", "rule.api.limit", "1/1h"));
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .build();
        MeterRegistry registry = new SimpleMeterRegistry();
        Supplier<List<Double>> scrape = () -> List.of(
                counter(registry, "leapgate.requests", "resource", "/api/**", "outcome", "admitted"),
                counter(registry, "leapgate.rule.rejections", "rule", "api", "reason", "limit-exceeded"),
                registry.get("leapgate.response.time")
                        .tag("resource", "/api/**")
                        .functionTimer()
                        .count());
        List<List<Double>> scraped = new ArrayList<>();
        gate.addRulesListener(rules -> scraped.add(scrape.get()));
        new LeapgateMetrics(gate).bindTo(registry);
        ((Entry) gate.enter("GET", "/api/x", ip("203.0.113.7"))).close();
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.7")).admitted()).isFalse();
        assertThat(scrape.get()).as("a scrape before").containsExactly(1.0, 1.0, 1.0);

        settings.put("rule.api.match", "/v2/**");
        gate.update(ConfigParser.parse(settings, "test").rules());

        assertThat(scraped).as("a scrape during the reload").containsExactly(List.of(1.0, 1.0, 1.0));
        assertThat(registry.find("leapgate.requests").tag("resource", "/api/**").meters())
                .as("then removed")
                .isEmpty();
        assertThat(counter(registry, "leapgate.rule.rejections", "rule", "api", "reason", "limit-exceeded"))
                .as("the redefined rule's new meter, from the rule's counts: a rule of the same name goes on")
                .isEqualTo(1.0);
    }

    /**
     * A change that makes a rule's counts start over (another max-origins gives it a new table, with
     * no evictions yet), or any other change (another pattern, with which its rejections go on):
     * the rule keeps its meters, whose counts go on from what they read, adding what the new
     * version counts. They never go down (a reset to Prometheus, a negative step to a registry that
     * sends increments), nor count anything twice.
     */
    @Test
    void aChangedRule_keepsItsMeters_whichGoOnCountingWhetherItsCountsGoOnOrStartOver() {
        Map<String, String> settings = new LinkedHashMap<>(Map.of(
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1h",
                "rule.api.scope", "per-origin",
                "rule.api.max-origins", "2"));
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .build();
        MeterRegistry registry = new SimpleMeterRegistry();
        new LeapgateMetrics(gate).bindTo(registry);
        for (int i = 1; i <= 4; i++) { // 4 clients through a table of 2, each rejected once
            gate.enter("GET", "/api/x", ip("203.0.113." + i));
            gate.enter("GET", "/api/x", ip("203.0.113." + i));
        }
        FunctionCounter evicted = registry.get("leapgate.clients.evicted").functionCounter();
        FunctionCounter rejected = registry.get("leapgate.rule.rejections")
                .tag("reason", "limit-exceeded")
                .functionCounter();
        assertThat(evicted.count()).isEqualTo(2);
        assertThat(rejected.count()).isEqualTo(4);

        settings.put("rule.api.max-origins", "3");
        gate.update(ConfigParser.parse(settings, "test").rules());
        assertThat(gate.evictions("api")).as("a new table").hasValue(0);
        for (int i = 11; i <= 16; i++) { // 6 new clients through a table of 3
            gate.enter("GET", "/api/x", ip("203.0.113." + i));
            gate.enter("GET", "/api/x", ip("203.0.113." + i));
        }
        long evictedSince = gate.evictions("api").orElseThrow();
        assertThat(evictedSince).isPositive();
        settings.put("rule.api.match", "/v2/**");
        gate.update(ConfigParser.parse(settings, "test").rules());

        assertThat(registry.get("leapgate.clients.evicted").functionCounter())
                .as("kept")
                .isSameAs(evicted);
        assertThat(evicted.count()).isEqualTo(2 + evictedSince);
        assertThat(rejected.count())
                .isEqualTo(gate.rejections("api").orElseThrow().limitExceeded())
                .isEqualTo(10);
        assertThat(registry.get("leapgate.rule.limit")
                        .tag("rule", "api")
                        .gauge()
                        .value())
                .isEqualTo(1);
    }

    /**
     * A registry that sends increments (step counting: Datadog, CloudWatch, New Relic, OTLP delta)
     * takes a new meter's first reading as its first increment. A changed rule got new meters, and
     * a resource left out of one version and written back did too, over counts that went on: every
     * such reload sent the whole count again, a spike of traffic that never happened.
     */
    @Test
    void aRegistryThatSendsIncrements_isSentNothingTwice_acrossAChangeOrARuleGoneAndBack() {
        Map<String, String> settings =
                new LinkedHashMap<>(Map.of("rule.api.match", "/api/**", "rule.api.limit", "1/1h"));
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .build();
        MockClock steps = new MockClock();
        SimpleMeterRegistry registry = new SimpleMeterRegistry(
                new SimpleConfig() {
                    @Override
                    public String get(String key) {
                        return null;
                    }

                    @Override
                    public CountingMode mode() {
                        return CountingMode.STEP;
                    }
                },
                steps);
        new LeapgateMetrics(gate).bindTo(registry);
        // What the registry sends for the step that ends: read within the step (each read adds
        // the increase since the last one to the step's count), then after its end.
        Supplier<List<Double>> step = () -> {
            counter(registry, "leapgate.requests", "outcome", "admitted");
            counter(registry, "leapgate.rule.rejections", "reason", "limit-exceeded");
            steps.add(Duration.ofMinutes(1)); // SimpleConfig's step
            return List.of(
                    counter(registry, "leapgate.requests", "outcome", "admitted"),
                    counter(registry, "leapgate.rule.rejections", "reason", "limit-exceeded"));
        };
        ((Entry) gate.enter("GET", "/api/x", ip("203.0.113.7"))).close();
        for (int i = 0; i < 10; i++) {
            gate.enter("GET", "/api/x", ip("203.0.113.7"));
        }
        assertThat(step.get()).as("the first step").containsExactly(1.0, 10.0);

        settings.put("rule.api.limit", "2/1h"); // the rejections go on: 10 so far
        gate.update(ConfigParser.parse(settings, "test").rules());
        assertThat(step.get()).as("a step with a change and no request").containsExactly(0.0, 0.0);

        gate.update(RuleSet.of()); // left out (a rules file read half-written)...
        clock.advance(Duration.ofSeconds(2));
        gate.update(ConfigParser.parse(settings, "test").rules()); // ... and back, going on from its counts
        assertThat(gate.stats("/api/**").orElseThrow().totals().admitted()).isEqualTo(1);
        assertThat(gate.rejections("api").orElseThrow().limitExceeded()).isEqualTo(10);
        assertThat(step.get())
                .as("a step with the rule gone and back, and no request")
                .containsExactly(0.0, 0.0);

        ((Entry) gate.enter("GET", "/api/x", ip("203.0.113.7"))).close();
        gate.enter("GET", "/api/x", ip("203.0.113.7"));
        assertThat(step.get()).as("then what is new").containsExactly(1.0, 1.0);
    }

    /**
     * Entry's try-with-resources form closes the entry (a success) before its catch block fails it:
     * the resource's statistics then have one success less. The succeeded counter must not follow
     * them down (a Prometheus counter that decreases reads as a reset, and rate() as a spike of its
     * whole value); the next success brings it back in step, with nothing counted twice.
     */
    @Test
    void aSuccessFailedAfterItsClose_neverMakesTheSucceededCounterGoDown() {
        HttpGate gate = gate("rule.api.match", "/api/**", "rule.api.limit", "100/1h");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new LeapgateMetrics(gate).bindTo(registry);
        for (int i = 0; i < 3; i++) {
            ((Entry) gate.enter("GET", "/api/x", ip("203.0.113.7"))).close();
        }
        assertThat(counter(registry, "leapgate.requests.completed", "resource", "/api/**", "outcome", "succeeded"))
                .isEqualTo(3);

        Entry failedLate = (Entry) gate.enter("GET", "/api/x", ip("203.0.113.7"));
        failedLate.close(); // try (entry) { ... } closes first,
        assertThat(counter(registry, "leapgate.requests.completed", "resource", "/api/**", "outcome", "succeeded"))
                .isEqualTo(4);
        failedLate.fail(); // then its catch block fails it

        assertThat(counter(registry, "leapgate.requests.completed", "resource", "/api/**", "outcome", "succeeded"))
                .as("a counter never goes down")
                .isEqualTo(4);
        assertThat(registry.scrape())
                .contains("leapgate_requests_completed_total{outcome=\"succeeded\",resource=\"/api/**\"} 4.0")
                .contains("leapgate_requests_completed_total{outcome=\"failed\",resource=\"/api/**\"} 1.0");
        ((Entry) gate.enter("GET", "/api/x", ip("203.0.113.7"))).close();
        ((Entry) gate.enter("GET", "/api/x", ip("203.0.113.7"))).close();
        assertThat(counter(registry, "leapgate.requests.completed", "resource", "/api/**", "outcome", "succeeded"))
                .as("5 of the 6 requests succeeded")
                .isEqualTo(5);
        assertThat(registry.get("leapgate.response.time")
                        .tag("resource", "/api/**")
                        .functionTimer()
                        .count())
                .as("every completion once")
                .isEqualTo(6);
    }

    /**
     * The timer's total is a counter to Prometheus: it must never go down. Summed response times
     * pass 2^63 ns (292 years) after about ten days with 10,000 requests in flight on average (long
     * polls, streams); here three requests open for 98 years each, which a total in nanoseconds
     * wrapped to a negative sum.
     */
    @Test
    void theResponseTimeTotal_staysExactPast2To63Nanoseconds_andNeverGoesDown() {
        HttpGate gate = gate("rule.streams.match", "/streams/**", "rule.streams.limit", "100/1h");
        MeterRegistry registry = new SimpleMeterRegistry();
        new LeapgateMetrics(gate).bindTo(registry);
        List<Entry> streams = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            streams.add((Entry) gate.enter("GET", "/streams/" + i, ip("203.0.113.7")));
        }
        long rtNanos = 3_100_000_000_000_000_000L; // 98 years
        clock.advanceNanos(rtNanos);
        double before = 0;
        for (int i = 0; i < 3; i++) {
            streams.get(i).close();
            double seconds = registry.get("leapgate.response.time")
                    .tag("resource", "/streams/**")
                    .functionTimer()
                    .totalTime(TimeUnit.SECONDS);
            assertThat(seconds)
                    .as("after %s of them", i + 1)
                    .isCloseTo((i + 1) * (rtNanos / 1e9), withPercentage(1e-9))
                    .isGreaterThan(before);
            before = seconds;
        }
    }

    @Test
    void rulesFileReloads_areCountedAppliedOrRejected(@TempDir Path dir) throws Exception {
        Path rules = dir.resolve("rules.properties");
        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = 2/1h\n");
        HttpGate gate = gate("rules-file", rules.toString(), "reload-interval", "0s");
        MeterRegistry registry = new SimpleMeterRegistry();
        new LeapgateMetrics(gate).bindTo(registry);

        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = 3/1h\n");
        assertThat(gate.rulesFile().orElseThrow().reload()).isTrue();
        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = lots\n");
        assertThatThrownBy(() -> gate.rulesFile().orElseThrow().reload()).hasMessageContaining("lots");

        assertThat(counter(registry, "leapgate.config.reloads", "result", "applied"))
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.config.reloads", "result", "rejected"))
                .isEqualTo(1);
        assertThat(gauge(registry, "leapgate.rule.limit", "rule", "api")).isEqualTo(3);
    }

    @Test
    void aPrometheusScrape_namesTheMetricsByItsConventions() {
        HttpGate gate = gate(RULES);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new LeapgateMetrics(gate).bindTo(registry);
        traffic(gate, clock);

        String scrape = registry.scrape();

        assertThat(scrape)
                .contains("leapgate_requests_total{outcome=\"rejected\",resource=\"/api/**\"} 1.0")
                .contains("leapgate_requests_total{outcome=\"shadow-rejected\",resource=\"/search\"} 1.0")
                .contains("leapgate_requests_completed_total{outcome=\"failed\",resource=\"/api/**\"} 1.0")
                .contains("leapgate_requests_in_flight{resource=\"/export\"} 1.0")
                .contains("leapgate_gate_requests_total{outcome=\"denied\"} 1.0")
                .contains("leapgate_rule_limit{kind=\"window\",rule=\"api\"} 2.0")
                .contains("leapgate_clients_tracked{rule=\"api\"} 1.0")
                .contains("leapgate_clients_evicted_total{rule=\"api\"} 0.0")
                .contains("leapgate_clients_limited{rule=\"api\"} 1.0")
                .contains("leapgate_rule_rejections_total{reason=\"limit-exceeded\",rule=\"api\"} 1.0")
                .contains("leapgate_response_time_seconds_count{resource=\"/api/**\"} 2");
        assertThat(scrape).as("no client address in any series").doesNotContain("203.0.113.");
    }

    @Test
    void evictedClients_areCountedPerRule() {
        HttpGate gate = gate(
                "rule.small.match", "/**",
                "rule.small.limit", "5/1h",
                "rule.small.scope", "per-origin",
                "rule.small.max-origins", "2");
        MeterRegistry registry = new SimpleMeterRegistry();
        new LeapgateMetrics(gate).bindTo(registry);
        for (int i = 1; i <= 5; i++) {
            ((Entry) gate.enter("GET", "/x", ip("203.0.113." + i))).close();
        }

        assertThat(counter(registry, "leapgate.clients.evicted", "rule", "small"))
                .isEqualTo(3);
        assertThat(gauge(registry, "leapgate.clients.tracked", "rule", "small")).isEqualTo(2);
    }

    @Test
    void aPacedRule_hasItsQueue_whatWaitsNow_andHowLongRequestsWaited() throws Exception {
        HeldSleeper sleeper = new HeldSleeper(clock);
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of(
                                "rule.paced.match", "/slow",
                                "rule.paced.limit", "10/1s",
                                "rule.paced.on-excess", "pace"),
                        "test"))
                .clock(clock)
                .sleeper(sleeper)
                .build();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new LeapgateMetrics(gate).bindTo(registry);
        ((Entry) gate.enter("GET", "/slow", ip("203.0.113.1"))).close(); // its turn at once
        // 100 ms later, on a thread of its own: what it decides (or throws) comes back through the future.
        CompletableFuture<Decision> waiter = CompletableFuture.supplyAsync(
                () -> gate.enter("GET", "/slow", ip("203.0.113.1")), task -> new Thread(task, "waiter").start());
        try {
            sleeper.awaitAsleep();

            assertThat(gauge(registry, "leapgate.queue.waiting", "rule", "paced"))
                    .isEqualTo(1);
        } finally {
            sleeper.wake(); // never leave the waiter asleep, even when an assertion failed
        }
        assertThat(waiter.get(10, TimeUnit.SECONDS))
                .as("admitted after its wait")
                .isInstanceOf(Entry.class);
        ((Entry) waiter.get()).close();

        assertThat(gauge(registry, "leapgate.queue.waiting", "rule", "paced")).isZero();
        assertThat(registry.get("leapgate.queue.wait")
                        .tags("rule", "paced")
                        .functionTimer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.scrape())
                .contains("leapgate_rule_rejections_total{reason=\"interrupted\",rule=\"paced\"} 0.0")
                .contains("leapgate_queue_wait_seconds_count{rule=\"paced\"} 1")
                .contains("leapgate_queue_wait_seconds_sum{rule=\"paced\"} 0.1");
    }

    @Test
    void aBinder_boundToTheSameRegistryTwice_refusesTheSecond() {
        LeapgateMetrics metrics = new LeapgateMetrics(gate(RULES));
        MeterRegistry registry = new SimpleMeterRegistry();
        metrics.bindTo(registry);

        assertThatThrownBy(() -> metrics.bindTo(registry))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("these metrics are bound to this registry already");
    }

    /**
     * Spring Boot binds every MeterBinder bean to each registry of the application when it makes no
     * composite of them (one of them {@code @Primary}): an application's own LeapgateMetrics bean,
     * which the README offers, was bound twice and its IllegalStateException stopped the start.
     * Each registry gets the meters, follows the rules, and loses them at the close.
     */
    @Test
    void aBinder_boundToTwoRegistries_registersInEach_followsTheRules_andLeavesBoth() {
        HttpGate gate = gate(RULES);
        MeterRegistry first = new SimpleMeterRegistry();
        MeterRegistry second = new SimpleMeterRegistry();
        LeapgateMetrics metrics = new LeapgateMetrics(gate);
        metrics.bindTo(first);
        metrics.bindTo(second);
        traffic(gate, clock);

        for (MeterRegistry registry : List.of(first, second)) {
            assertThat(counter(registry, "leapgate.requests", "resource", "/api/**", "outcome", "rejected"))
                    .isEqualTo(1);
        }
        gate.update(RuleSet.of(
                FlowRule.builder("reports").match("/reports/**").inFlight(3).build()));
        for (MeterRegistry registry : List.of(first, second)) {
            assertThat(registry.find("leapgate.rule.limit").gauges())
                    .singleElement()
                    .satisfies(g -> assertThat(g.getId().getTag("rule")).isEqualTo("reports"));
        }

        metrics.close();
        assertThat(first.getMeters()).isEmpty();
        assertThat(second.getMeters()).isEmpty();
    }

    @Test
    void aSharedRule_saysWhetherItsStoreDecides_andWhatItsFailurePolicyDecided() {
        dev.leapgate.testing.FakeWindowStore store = new dev.leapgate.testing.FakeWindowStore(clock);
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of(
                                "store", "redis://127.0.0.1:6379",
                                "store-on-failure", "closed",
                                "rule.login.match", "POST /login",
                                "rule.login.limit", "5/1m",
                                "rule.login.scope", "per-origin"),
                        "test"))
                .clock(clock)
                .windowStore(store)
                .build();
        MeterRegistry registry = new SimpleMeterRegistry();
        new LeapgateMetrics(gate).bindTo(registry);
        gate.enter("POST", "/login", ip("203.0.113.7"));
        assertThat(registry.get("leapgate.store.available")
                        .tags("rule", "login")
                        .gauge()
                        .value())
                .isEqualTo(1);

        store.down = true;
        gate.enter("POST", "/login", ip("203.0.113.7"));
        gate.enter("POST", "/login", ip("203.0.113.8"));
        assertThat(registry.get("leapgate.store.available")
                        .tags("rule", "login")
                        .gauge()
                        .value())
                .isZero();
        assertThat(registry.get("leapgate.store.decided.without")
                        .tags("rule", "login")
                        .functionCounter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get("leapgate.rule.rejections")
                        .tags("rule", "login", "reason", "store-unavailable")
                        .functionCounter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.find("leapgate.clients.tracked").meters()).isEmpty(); // the store keeps the clients
    }
    /** A rule that moves from this instance to the shared store, by a reload, gets the store's meters. */
    @Test
    void aRuleMadeShared_byAReload_getsTheStoresMeters_andLosesItsClientTables() {
        dev.leapgate.testing.FakeWindowStore store = new dev.leapgate.testing.FakeWindowStore(clock);
        Map<String, String> settings = new java.util.HashMap<>(Map.of(
                "store", "redis://127.0.0.1:6379",
                "store-on-failure", "closed",
                "rule.login.match", "POST /login",
                "rule.login.limit", "5/1m",
                "rule.login.scope", "per-origin",
                "rule.login.store", "local"));
        HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test"))
                .clock(clock)
                .windowStore(store)
                .build();
        MeterRegistry registry = new SimpleMeterRegistry();
        new LeapgateMetrics(gate).bindTo(registry);
        assertThat(registry.find("leapgate.store.available").meters()).isEmpty();
        assertThat(registry.find("leapgate.clients.tracked").meters()).hasSize(1);

        settings.remove("rule.login.store");
        gate.update(ConfigParser.parse(settings, "test").rules());
        store.down = true;
        gate.enter("POST", "/login", ip("203.0.113.7"));

        assertThat(registry.get("leapgate.store.available")
                        .tags("rule", "login")
                        .gauge()
                        .value())
                .isZero();
        assertThat(registry.get("leapgate.rule.rejections")
                        .tags("rule", "login", "reason", "store-unavailable")
                        .functionCounter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.find("leapgate.clients.tracked").meters()).isEmpty();
    }

    /**
     * Everything a binder registered, at binding and later for the rules a reload brought, leaves the
     * registry at its close; the registry's other meters stay.
     */
    @Test
    void close_removesEveryMeterTheBinderRegistered_andNoOther(@TempDir Path dir) throws Exception {
        Path rules = dir.resolve("rules.properties");
        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = 2/1h\nrule.api.scope = per-origin\n");
        HttpGate gate = gate("rules-file", rules.toString(), "reload-interval", "0s");
        MeterRegistry registry = new SimpleMeterRegistry();
        Counter orders = registry.counter("shop.orders");
        LeapgateMetrics metrics = new LeapgateMetrics(gate, Tags.of("app", "shop"));
        metrics.bindTo(registry);
        gate.update(RuleSet.of(
                FlowRule.builder("api")
                        .match("/api/**")
                        .limit(2, WindowSpec.of(Duration.ofHours(1)))
                        .build(),
                FlowRule.builder("reports").match("/reports/**").inFlight(3).build()));
        assertThat(registry.find("leapgate.rule.limit").tag("rule", "reports").gauge())
                .as("a meter registered after binding")
                .isNotNull();
        assertThat(registry.find("leapgate.config.reloads").meters()).hasSize(2);

        metrics.close();

        assertThat(registry.getMeters()).containsExactly(orders);
    }

    /**
     * A redeployment: the old application's binder is closed, and the new gate's binder (same
     * registry, same tags) exports the new gate, not the old one's counts. Closing the old binder
     * again (a second close) does not touch the new binder's meters, which have the same ids.
     */
    @Test
    void aNewGate_boundAfterTheOldBindersClose_isTheOneExported_andASecondCloseChangesNothing() {
        MeterRegistry registry = new SimpleMeterRegistry();
        HttpGate oldGate = gate(RULES);
        LeapgateMetrics oldMetrics = new LeapgateMetrics(oldGate);
        oldMetrics.bindTo(registry);
        traffic(oldGate, clock).close();
        oldMetrics.close();

        HttpGate newGate = gate(RULES);
        new LeapgateMetrics(newGate).bindTo(registry);
        ((Entry) newGate.enter("GET", "/api/x", ip("203.0.113.9"))).close();
        oldMetrics.close();

        assertThat(counter(registry, "leapgate.requests", "resource", "/api/**", "outcome", "admitted"))
                .as("the new gate's one request, not the old gate's 2")
                .isEqualTo(1);
        assertThat(counter(registry, "leapgate.gate.requests", "outcome", "denied"))
                .isZero();
        assertThat(gauge(registry, "leapgate.clients.tracked", "rule", "api")).isEqualTo(1);
        assertThat(registry.find("leapgate.rule.limit").gauges()).hasSize(3);
    }

    @Test
    void aReloadAfterClose_registersNothing_andAClosedBinderBindsNoMore() {
        HttpGate gate = gate(RULES);
        MeterRegistry registry = new SimpleMeterRegistry();
        LeapgateMetrics metrics = new LeapgateMetrics(gate);
        metrics.bindTo(registry);
        metrics.close();

        gate.update(RuleSet.of(
                FlowRule.builder("reports").match("/reports/**").inFlight(3).build()));

        assertThat(registry.getMeters()).isEmpty();
        assertThatThrownBy(() -> metrics.bindTo(new SimpleMeterRegistry()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("these metrics are closed: bind a new LeapgateMetrics");
    }

    /**
     * A gate that outlives its binder (a Boot context refreshed over a gate of a longer-lived
     * context, a binder redeployed over a container's gate): once closed, the binder is not called
     * on a reload. The test holds the lock the binder takes to follow the rules; a reload that
     * called the closed binder would wait for it.
     */
    @Test
    void aClosedBinder_isNotCalledOnAReload() throws Exception {
        HttpGate gate = gate(RULES);
        LeapgateMetrics metrics = new LeapgateMetrics(gate);
        metrics.bindTo(new SimpleMeterRegistry());
        metrics.close();
        Thread reload = new Thread(() -> gate.update(RuleSet.of(
                FlowRule.builder("reports").match("/reports/**").inFlight(3).build())));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().getId();

        synchronized (metrics) {
            reload.start();
            while (reload.isAlive()) {
                ThreadInfo info = threads.getThreadInfo(reload.getId());
                assertThat(info == null ? -1 : info.getLockOwnerId())
                        .as("the reload waits for the closed binder's lock: it called the binder")
                        .isNotEqualTo(me);
                reload.join(1);
            }
        }

        assertThat(gate.rules().rules()).extracting(FlowRule::name).containsExactly("reports");
    }

    /**
     * Nothing but its gate refers to a closed binder here: once closed, the gate lets it go, and a
     * gate that lives on keeps no binder of an application context, or a deployment, long gone.
     */
    @Test
    void aClosedBinder_isNoLongerHeldByItsGate() {
        HttpGate gate = gate(RULES);
        WeakReference<LeapgateMetrics> closed = boundAndClosed(gate);

        for (int i = 0; i < 50 && closed.get() != null; i++) {
            System.gc();
        }

        assertThat(closed.get())
                .as("the closed binder, reachable from its gate")
                .isNull();
        Reference.reachabilityFence(gate);
    }

    /**
     * A binder never closed (an application undeployed without it, a registry that outlives it)
     * does not keep its gate, with its per-client tables, from being collected: its gauges read
     * NaN then, as the README says.
     */
    @Test
    void aGateWhoseBinderWasNotClosed_canStillBeCollected_itsGaugesThenReadNaN() {
        MeterRegistry registry = new SimpleMeterRegistry();
        WeakReference<HttpGate> gate = boundNotClosed(registry);

        for (int i = 0; i < 50 && gate.get() != null; i++) {
            System.gc();
        }

        assertThat(gate.get()).as("the gate, held by the registry's meters").isNull();
        // One gauge of each kind: a per-client rule's, a resource's, a waiting rule's, a shared rule's.
        for (String name : List.of(
                "leapgate.clients.tracked",
                "leapgate.clients.limited",
                "leapgate.requests.in.flight",
                "leapgate.queue.waiting",
                "leapgate.store.available")) {
            assertThat(registry.get(name).gauges())
                    .as(name)
                    .isNotEmpty()
                    .allSatisfy(g -> assertThat(g.value()).as(name).isNaN());
        }
    }

    /** A gate with a gauge of every kind, bound and never closed, referred to weakly only. */
    private static WeakReference<HttpGate> boundNotClosed(MeterRegistry registry) {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of(
                                "rule.api.match", "/api/**",
                                "rule.api.limit", "2/1h",
                                "rule.api.scope", "per-origin",
                                "rule.api.store", "local",
                                "rule.paced.match", "/slow",
                                "rule.paced.limit", "10/1s",
                                "rule.paced.on-excess", "pace",
                                "rule.shared.match", "/shared",
                                "rule.shared.limit", "10/1s",
                                "store", "fake://store.example"),
                        "test"))
                .windowStore(new FakeWindowStore(new ManualClock()))
                .build();
        new LeapgateMetrics(gate).bindTo(registry);
        return new WeakReference<>(gate);
    }

    /** A binder bound to a registry of its own and closed, referred to weakly only. */
    private static WeakReference<LeapgateMetrics> boundAndClosed(HttpGate gate) {
        LeapgateMetrics metrics = new LeapgateMetrics(gate);
        metrics.bindTo(new SimpleMeterRegistry());
        metrics.close();
        return new WeakReference<>(metrics);
    }

    /**
     * A close racing rule reloads on other threads (each reload registers the meters of its rules
     * and removes the others') leaves no meter behind, whichever reload it falls between: the
     * closing thread closes after a different number of its own reloads in each round.
     */
    @Test
    void aCloseRacingRuleReloads_leavesNoMeterBehind() throws Exception {
        List<RuleSet> ruleSets = List.of(
                RuleSet.of(FlowRule.builder("a").match("/a/**").inFlight(1).build()),
                RuleSet.of(
                        FlowRule.builder("b").match("/b/**").inFlight(2).build(),
                        FlowRule.builder("c")
                                .match("/c/**")
                                .limit(5, WindowSpec.of(Duration.ofMinutes(1)))
                                .build()));
        for (int round = 0; round < 20; round++) {
            HttpGate gate = gate(RULES);
            MeterRegistry registry = new SimpleMeterRegistry();
            LeapgateMetrics metrics = new LeapgateMetrics(gate);
            metrics.bindTo(registry);
            int reloadsBeforeClose = round;

            Together.run(8, thread -> {
                for (int i = 0; i < 20; i++) {
                    if (thread == 0 && i == reloadsBeforeClose) {
                        metrics.close();
                    }
                    gate.update(ruleSets.get((thread + i) % 2));
                }
                if (thread == 0) {
                    metrics.close(); // idempotent
                }
            });

            assertThat(registry.getMeters()).as("round " + round).isEmpty();
        }
    }

    /**
     * A second binder with the same tags in one registry gets the first's meters back from the
     * registry (reading the first's gate): the binding says so, once, naming the meter. A binder
     * with tags of its own, or one bound after the first was closed, is quiet.
     */
    @Test
    void bindingWhileAnotherBindersMetersAreThere_warnsOnce_namingTheMeter() {
        MeterRegistry registry = new SimpleMeterRegistry();
        LeapgateMetrics first = new LeapgateMetrics(gate(RULES));
        first.bindTo(registry);
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        LeapgateMetrics second = new LeapgateMetrics(gate(RULES));
        try {
            second.bindTo(registry);
            new LeapgateMetrics(gate(RULES), Tags.of("gate", "admin")).bindTo(registry);
            first.close();
            second.close();
            new LeapgateMetrics(gate(RULES)).bindTo(registry);
        } finally {
            System.setErr(err);
        }

        List<String> warnings = captured.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(line -> line.contains("WARN dev.leapgate.micrometer.LeapgateMetrics"))
                .toList();
        assertThat(warnings)
                .singleElement()
                .asString()
                .contains("leapgate.gate.requests")
                .contains("outcome=exempt")
                .contains("close");
    }
}
