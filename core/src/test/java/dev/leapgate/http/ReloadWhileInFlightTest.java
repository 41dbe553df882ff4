package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Configs;
import dev.leapgate.testing.Together;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Changing rules while requests are in progress: in-flight slots, listeners that throw, many threads. */
class ReloadWhileInFlightTest {

    private final ManualClock clock = new ManualClock();

    private HttpGate gate(FlowRule... rules) {
        return HttpGate.builder(Configs.withRules(RuleSet.of(rules)))
                .clock(clock)
                .build();
    }

    private static Origin ip(String address) {
        return Origin.ip(IpAddress.parse(address), 64);
    }

    /**
     * An in-flight rule left out of one version (a rules file read half-written) and written back
     * in the next, while the requests it admitted are still in flight: they still hold their slots,
     * so the rule written back must not admit beyond its limit (no fresh allowance), and the
     * resource's statistics must not go back.
     */
    @Test
    void inFlightRule_leftOutAndWrittenBack_whileRequestsAreInFlight_neverExceedsItsLimit() {
        FlowRule slots = FlowRule.builder("slots").match("/export").inFlight(2).build();
        FlowRule other = FlowRule.builder("other")
                .match("/other")
                .limit(10, WindowSpec.of(Duration.ofSeconds(10), 10))
                .build();
        HttpGate gate = gate(slots, other);
        List<Entry> held = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            held.add((Entry) gate.enter("POST", "/export", ip("203.0.113.1")));
        }

        gate.update(RuleSet.of(other)); // slots left out (file cut after "other")
        gate.update(RuleSet.of(slots, other)); // and back, the two requests still in flight

        assertThat(gate.enter("POST", "/export", ip("203.0.113.2")).admitted())
                .as("2 requests in flight, limit 2")
                .isFalse();
        assertThat(gate.stats("/export").orElseThrow().totals().admitted())
                .as("statistics never go backwards")
                .isEqualTo(2);
        held.forEach(Entry::close);
        assertThat(gate.enter("POST", "/export", ip("203.0.113.2")).admitted()).isTrue();
    }

    @TempDir
    Path dir;

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable e) throws E {
        throw (E) e;
    }

    /**
     * A rules listener that throws a checked exception it does not declare (a sneaky throw, which
     * the engine guards against elsewhere): "a listener that throws is logged, and the rules stay
     * in force", and a reload of the rules file never fails the request that checks it. The other
     * listeners still hear of the rules, and the reload counts as applied.
     */
    @Test
    void aListenerThatThrowsACheckedException_neverFailsTheRequestThatReloads() throws IOException {
        Path rules = dir.resolve("rules.properties");
        Files.writeString(rules, "rule.a.match = /a\nrule.a.limit = 5/1s\n");
        LeapgateConfig config =
                ConfigParser.parse(Map.of("rules-file", rules.toString(), "reload-interval", "1s"), "test");
        HttpGate gate = HttpGate.builder(config).clock(clock).build();
        gate.addRulesListener(r -> sneakyThrow(new IOException("metrics registry closed")));
        List<RuleSet> heard = new CopyOnWriteArrayList<>();
        gate.addRulesListener(heard::add);

        Files.writeString(rules, "rule.a.match = /a\nrule.a.limit = 6/1s\n");
        clock.advance(Duration.ofSeconds(2));

        assertThat(gate.enter("GET", "/a", ip("203.0.113.1")).admitted())
                .as("the request that reloads is decided")
                .isTrue();
        assertThat(gate.rules().rules().get(0).limit()).isEqualTo(6);
        assertThat(heard).as("the other listener heard of the new rules").hasSize(1);
        assertThat(gate.rulesFile().orElseThrow().appliedReloads()).isEqualTo(1);
    }

    /**
     * Threads entering and closing while in-flight limits change, are left out and written back:
     * every slot goes back exactly once into the counter in force, so that at the end, nothing in
     * flight, the last limit admits exactly its limit, and no release ever fails.
     */
    @Test
    void inFlight_manyThreadsWhileReloading_everySlotReleasedOnce_intoTheCounterInForce() throws Exception {
        for (Scope scope : List.of(Scope.all(), Scope.perOrigin())) {
            FlowRule other = FlowRule.builder("other")
                    .match("/other")
                    .limit(10, WindowSpec.of(Duration.ofSeconds(10), 10))
                    .build();
            List<RuleSet> versions = new ArrayList<>();
            for (long limit : new long[] {3, 5, 0, 4, 2, 0, 6, 3}) {
                versions.add(
                        limit == 0
                                ? RuleSet.of(other)
                                : RuleSet.of(
                                        FlowRule.builder("slots")
                                                .match("/x")
                                                .inFlight(limit)
                                                .scope(scope)
                                                .build(),
                                        other));
            }
            HttpGate gate = HttpGate.builder(Configs.withRules(versions.get(0)))
                    .clock(clock)
                    .build();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Origin client = ip("203.0.113.7");
            Together.run(4, id -> {
                if (id == 0) {
                    for (int round = 0; round < 200; round++) {
                        gate.update(versions.get(round % versions.size()));
                        Thread.yield();
                    }
                    gate.update(versions.get(versions.size() - 1));
                    running.set(false);
                    return;
                }
                try {
                    while (running.get()) {
                        if (gate.enter("GET", "/x", client) instanceof Entry e) {
                            Thread.yield();
                            e.close();
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            assertThat(failure.get()).as(scope + ": no release fails").isNull();
            int admitted = 0;
            while (gate.enter("GET", "/x", client) instanceof Entry) {
                admitted++;
            }
            assertThat(admitted).as(scope + ": nothing in flight, limit 3").isEqualTo(3);
        }
    }
}
