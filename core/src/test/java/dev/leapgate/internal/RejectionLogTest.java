package dev.leapgate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Origin;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rejection log's state across reloads ({@link RejectionLog#rulesInForce}): a tally per rule in
 * force, however many names reloads bring and take. What the lines say is tested through the gate
 * ({@code dev.leapgate.http.RejectionLogTest}).
 */
class RejectionLogTest {

    private static final long S = 1_000_000_000L;

    private final List<String> lines = new ArrayList<>();
    private final RejectionLog log = new RejectionLog(Duration.ofSeconds(10), 64, lines::add);
    private final Origin client = Origin.ip(IpAddress.parse("203.0.113.7"), 64);

    private static FlowRule rule(String name, boolean shadow) {
        return FlowRule.builder(name)
                .limit(1, WindowSpec.of(Duration.ofMinutes(1)))
                .shadow(shadow)
                .build();
    }

    /**
     * A generated rules file: each reload replaces the rule by one of another name, which rejects
     * once. The log holds a tally for the one rule in force (and keeps the one the last reload
     * ended, for rejections under the rules before it), not one for every name ever in force; each
     * rejection is written, by the reload that removed its rule.
     */
    @Test
    void rulesRemovedByReloads_leaveNoTallyBehind_andEachRejectionIsWritten() {
        long now = 0;
        for (int i = 0; i < 200; i++) {
            log.rulesInForce(List.of(rule("r" + i, false), rule("s" + i, true)), now);
            log.record("r" + i, client, now);
            log.recordShadow("s" + i, client, now);
            now += 2 * S;
        }

        assertThat(log.tallies())
                .as("tallies with 2 rules in force (one enforced, one shadow)")
                .isEqualTo(2);
        assertThat(log.retiring()).as("tallies the last reload ended").isEqualTo(2);
        assertThat(lines)
                .as("a line for each rule a reload removed")
                .hasSize(2 * 199)
                .contains(
                        "Leapgate: rule 'r0' rejected 1 request in the last 2.0 s; most from 203.0.113.7 (about 1)",
                        "Leapgate: shadow rule 's198' would have rejected 1 request in the last 2.0 s; most from"
                                + " 203.0.113.7 (about 1)");
    }

    /**
     * A request that decided under the rules before a reload may be rejected by a rule the reload
     * removed after the reload wrote the rule's line: its rejection is written by the next reload,
     * and the tally it made is dropped then.
     */
    @Test
    void aRejectionByARemovedRule_whileTheReloadHappens_isWrittenByTheNextReload() {
        log.rulesInForce(List.of(rule("old", false)), 0);
        log.record("old", client, 0);
        log.rulesInForce(List.of(rule("new", false)), S); // writes old's one rejection
        log.record("old", client, 2 * S); // late: under the rules before the reload

        assertThat(lines)
                .containsExactly("Leapgate: rule 'old' rejected 1 request in the last 1.0 s; most from 203.0.113.7"
                        + " (about 1)");
        log.rulesInForce(List.of(rule("new", false)), 3 * S);

        assertThat(lines)
                .hasSize(2)
                .last()
                .isEqualTo("Leapgate: rule 'old' rejected 1 request in the last 1.0 s; most from 203.0.113.7"
                        + " (about 1)");
        assertThat(log.tallies()).isZero();
    }
}
