package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** What a gate tells an observer (a metrics binder): new rules as they come, exempt and denied requests. */
class GateListenersAndCountsTest {

    private static Origin ip(String address) {
        return Origin.ip(IpAddress.parse(address), 64);
    }

    @Test
    void exemptAndDeniedRequests_areCounted_onlyWhenTheyHappen() {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of(
                                "rule.api.match", "/api/**",
                                "rule.api.limit", "10/1m",
                                "exempt", "10.0.0.1",
                                "deny", "10.0.0.66"),
                        "test"))
                .build();

        gate.enter("GET", "/api/x", ip("10.0.0.1"));
        gate.enter("GET", "/api/x", ip("10.0.0.1"));
        gate.enter("GET", "/other", ip("10.0.0.1")); // no rule matches: not an exemption
        gate.enter("GET", "/other", ip("10.0.0.66"));
        gate.enter("GET", "/api/x", ip("203.0.113.5"));

        assertThat(gate.exemptRequests()).isEqualTo(2);
        assertThat(gate.deniedRequests()).isEqualTo(1);
    }

    @Test
    void rulesListeners_hearEveryNewRuleSet_afterItIsInForce_evenIfOneFails() {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(Map.of("rules", "none"), "test"))
                .build();
        List<RuleSet> heard = new ArrayList<>();
        gate.addRulesListener(rules -> {
            throw new IllegalStateException("a broken listener");
        });
        gate.addRulesListener(rules -> {
            assertThat(gate.rules()).isSameAs(rules);
            heard.add(rules);
        });
        RuleSet next =
                RuleSet.of(FlowRule.builder("slots").match("/x").inFlight(2).build());

        gate.update(next);

        assertThat(heard).containsExactly(next);
        assertThat(gate.rules()).isSameAs(next);
    }

    @Test
    void aRemovedRulesListener_isNotCalledAgain_andTheOthersStillAre() {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(Map.of("rules", "none"), "test"))
                .build();
        List<RuleSet> removedHeard = new ArrayList<>();
        List<RuleSet> keptHeard = new ArrayList<>();
        Consumer<RuleSet> removed = removedHeard::add;
        gate.addRulesListener(removed);
        gate.addRulesListener(keptHeard::add);
        RuleSet first =
                RuleSet.of(FlowRule.builder("slots").match("/x").inFlight(2).build());
        RuleSet second =
                RuleSet.of(FlowRule.builder("slots").match("/x").inFlight(3).build());

        gate.update(first);
        gate.removeRulesListener(removed);
        gate.update(second);
        gate.removeRulesListener(removed); // not there any more: nothing happens

        assertThat(removedHeard).containsExactly(first);
        assertThat(keptHeard).containsExactly(first, second);
    }

    @Test
    void aCheckThatFailsOnNewRules_leavesThemInForce_andTheListenersHearOfThem() {
        int[] runs = {0};
        HttpGate gate = HttpGate.builder(ConfigParser.parse(Map.of("rules", "none"), "test"))
                .check(rules -> {
                    if (++runs[0] > 1) {
                        throw new IllegalStateException("a broken check");
                    }
                    return List.of();
                })
                .build();
        List<RuleSet> heard = new ArrayList<>();
        gate.addRulesListener(heard::add);
        RuleSet next =
                RuleSet.of(FlowRule.builder("slots").match("/x").inFlight(2).build());

        gate.update(next); // threw, after the rules were in force but before any listener heard

        assertThat(gate.rules()).isSameAs(next);
        assertThat(heard).containsExactly(next);
    }
}
