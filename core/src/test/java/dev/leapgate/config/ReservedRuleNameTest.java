package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.Quota;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A request from a denied origin is rejected as rule {@code deny} ({@code Rejection.rule()}, the
 * problem body's {@code "rule"}): a rule of that name could not be told from the deny list there.
 * The other names of the configuration's keys are no trouble: a rule's key is {@code
 * rule.<name>.<setting>}, split at its last dot, and a name has no dot.
 */
class ReservedRuleNameTest {

    private static final String RESERVED = " is reserved: a request from a denied origin is rejected as rule 'deny'"
            + " (Rejection.rule(), the problem body's \"rule\"), and this rule's rejections could not be told from"
            + " those; choose another name";

    @Test
    void ruleNamedDeny_inAnyCase_isRefused_inCode() {
        for (String name : List.of("deny", "Deny", "DENY")) {
            assertThatThrownBy(() -> FlowRule.builder(name)
                            .match("/x")
                            .limit(5, WindowSpec.of(Duration.ofMinutes(1)))
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("rule name '" + name + "'" + RESERVED);
        }
        assertThatThrownBy(() -> new Quota("deny", 5, Duration.ofMinutes(1), 5, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rule name 'deny'" + RESERVED);
    }

    @Test
    void ruleNamedDeny_inTheConfiguration_isReportedOnce_underItsFirstKey() {
        assertThat(ConfigProblems.ofRules("rule.deny.match=/x", "rule.deny.limit=10/s", "deny=203.0.113.7"))
                .containsExactly("line 1: rule.deny.match: rule name 'deny'" + RESERVED);
    }

    @Test
    void rulesNamedAfterOtherKeys_areTheirOwnRules() {
        RuleSet rules = ConfigParser.parseRules(
                String.join(
                        "\n",
                        "rule.exempt.match=/a",
                        "rule.exempt.limit=1/s",
                        "rule.rules.match=/b",
                        "rule.rules.limit=2/s",
                        "rule.status.match=/c",
                        "rule.status.limit=3/s",
                        "rule.rule.match=/d",
                        "rule.rule.limit=4/s",
                        "rule.limit.match=/e",
                        "rule.limit.limit=5/s",
                        "exempt=203.0.113.7"),
                "rules.properties");

        assertThat(rules.rules())
                .extracting(FlowRule::name, FlowRule::limit)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("exempt", 1L),
                        org.assertj.core.groups.Tuple.tuple("rules", 2L),
                        org.assertj.core.groups.Tuple.tuple("status", 3L),
                        org.assertj.core.groups.Tuple.tuple("rule", 4L),
                        org.assertj.core.groups.Tuple.tuple("limit", 5L));
    }
}
