package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.testing.Configs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The header fields as sent, in whole seconds, against what happens next, for random rules of every
 * on-excess (and an in-flight rule), one to three on one path, per client and for everyone, windows
 * of 1 s, 1.5 s, 1 min and 1 h in buckets that are no whole seconds (1 min in 16 is 3.75 s), two
 * clients, in this process and in a shared store:
 *
 * <ul>
 *   <li>{@code RateLimit-Policy} and {@code RateLimit} are the documented structured-field lists,
 *       item for item the same rules, {@code q} the limit, {@code w} the window rounded up, {@code
 *       r} within 0 and the limit, {@code t} at most the window, a bucket and a queue;
 *   <li>{@code Retry-After} is at least 1, and the same client retrying exactly that many seconds
 *       later is admitted; for a lone {@code reject} window one second earlier it is not (the value
 *       is the least whole number of seconds that works);
 *   <li>the largest {@code t} of an admitted response later, a request is admitted.
 * </ul>
 */
class HeaderPromiseTest {

    private static final Origin A = Origin.ip(IpAddress.parse("203.0.113.1"), 64);
    private static final Origin B = Origin.ip(IpAddress.parse("203.0.113.2"), 64);
    private static final Pattern POLICY_ITEM =
            Pattern.compile("\"([A-Za-z0-9_-]+)\";q=(\\d+)(?:;w=(\\d+)|;qu=\"concurrent-requests\")");
    private static final Pattern RATE_ITEM = Pattern.compile("\"([A-Za-z0-9_-]+)\";r=(\\d+)(?:;t=(\\d+))?");

    private static List<FlowRule> randomRules(SplittableRandom random) {
        int n = 1 + random.nextInt(3);
        List<FlowRule> rules = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Duration[] lengths = {
                Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofHours(1), Duration.ofMillis(1500)
            };
            Duration length = lengths[random.nextInt(lengths.length)];
            int[] buckets = {1, 3, 7, 8, 16, 32, 64, 9, 10, 12, 125};
            int b = buckets[random.nextInt(buckets.length)];
            WindowSpec window;
            try {
                window = new WindowSpec(length, b, random.nextBoolean() ? WindowMode.STRICT : WindowMode.SLIDING);
            } catch (IllegalArgumentException notEven) {
                window = new WindowSpec(length, 8, random.nextBoolean() ? WindowMode.STRICT : WindowMode.SLIDING);
            }
            int limit = 1 + random.nextInt(random.nextBoolean() ? 3 : 12);
            long lengthMs = length.toMillis();
            Duration queue =
                    Duration.ofMillis(random.nextInt(3) == 0 ? 0 : random.nextLong(Math.min(60_000, 2 * lengthMs) + 1));
            double coldFactor = random.nextBoolean() ? 1.0001 + random.nextInt(5) : 100;
            Duration warmUp = Duration.ofMillis(1 + random.nextLong(Math.min(60_000, 3 * lengthMs)));
            int kind = random.nextInt(6);
            if (kind == 5) {
                rules.add(FlowRule.builder("f" + k)
                        .match("/x")
                        .inFlight(1000)
                        .scope(random.nextBoolean() ? Scope.perOrigin() : Scope.all())
                        .build());
                continue;
            }
            OnExcess onExcess = switch (kind) {
                case 0 -> OnExcess.reject();
                case 1 -> OnExcess.pace(queue);
                case 2 -> OnExcess.warmUp(coldFactor, warmUp);
                case 3 -> OnExcess.warmUpPace(coldFactor, warmUp, queue);
                default -> OnExcess.borrow(queue);
            };
            boolean perOrigin = random.nextBoolean();
            try {
                rules.add(FlowRule.builder("r-" + k)
                        .match("/x")
                        .limit(limit, window)
                        .onExcess(onExcess)
                        .scope(perOrigin ? Scope.perOrigin() : Scope.all())
                        .build());
            } catch (IllegalArgumentException e) {
                rules.add(FlowRule.builder("r-" + k)
                        .match("/x")
                        .limit(limit, window)
                        .scope(perOrigin ? Scope.perOrigin() : Scope.all())
                        .build());
            }
        }
        return rules;
    }

    private static void checkFields(String at, Map<String, String> fields, Map<String, FlowRule> byName) {
        String policy = fields.get("RateLimit-Policy");
        String rate = fields.get("RateLimit");
        assertThat(policy).as(at).isNotNull();
        assertThat(rate).as(at).isNotNull();
        String[] policyItems = policy.split(", ", -1);
        String[] rateItems = rate.split(", ", -1);
        assertThat(policyItems.length).as("%s: %s / %s", at, policy, rate).isEqualTo(rateItems.length);
        for (int i = 0; i < policyItems.length; i++) {
            Matcher p = POLICY_ITEM.matcher(policyItems[i]);
            Matcher r = RATE_ITEM.matcher(rateItems[i]);
            assertThat(p.matches()).as("%s: policy item %s", at, policyItems[i]).isTrue();
            assertThat(r.matches()).as("%s: rate item %s", at, rateItems[i]).isTrue();
            assertThat(p.group(1)).as(at).isEqualTo(r.group(1));
            FlowRule rule = byName.get(p.group(1));
            assertThat(Long.parseLong(p.group(2))).as(at).isEqualTo(rule.limit());
            assertThat(Long.parseLong(r.group(2))).as("%s: %s", at, rate).isBetween(0L, rule.limit());
            if (rule.isInFlight()) {
                assertThat(p.group(3)).as(at).isNull();
                assertThat(r.group(3)).as(at).isNull();
            } else {
                long w = Long.parseLong(p.group(3));
                assertThat(w).as(at).isEqualTo((rule.window().lengthNanos() + 999_999_999L) / 1_000_000_000L);
                long t = Long.parseLong(r.group(3));
                // at most the window and one bucket, plus a queue or a loan
                long bound = rule.window().lengthNanos() + rule.window().bucketNanos() + 60_000_000_000L;
                assertThat(t * 1_000_000_000L).as("%s: %s", at, rate).isLessThanOrEqualTo(bound + 999_999_999L);
            }
        }
    }

    private static long maxT(String rate) {
        long max = 0;
        Matcher r = RATE_ITEM.matcher(rate);
        while (r.find()) {
            if (r.group(3) != null) {
                max = Math.max(max, Long.parseLong(r.group(3)));
            }
        }
        return max;
    }

    @ParameterizedTest(name = "seeds from {0}")
    @ValueSource(ints = {0, 300, 600, 1000, 1300, 1600})
    void headersAsSent_areWhatHappensNext(int firstSeed) {
        boolean inStore = firstSeed >= 1000;
        long retried = 0;
        for (int seed = firstSeed; seed < firstSeed + 300; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            ManualClock clock = new ManualClock(random.nextLong());
            List<FlowRule> rules = randomRules(random);
            RuleSet ruleSet;
            try {
                ruleSet = RuleSet.of(rules.toArray(FlowRule[]::new));
            } catch (IllegalArgumentException twoEqualRules) {
                continue;
            }
            Map<String, FlowRule> byName = new HashMap<>();
            rules.forEach(r -> byName.put(r.name(), r));
            HttpGate.Builder builder =
                    HttpGate.builder(Configs.withRules(ruleSet)).clock(clock).sleeper(clock::advanceNanos);
            if (inStore) {
                builder.windowStore(new dev.leapgate.testing.FakeWindowStore(clock));
            }
            HttpGate gate = builder.build();
            boolean loneReject = rules.size() == 1
                    && rules.get(0).window() != null
                    && rules.get(0).onExcess().kind() == OnExcess.Kind.REJECT;
            for (int i = 0; i < 150; i++) {
                String at = "seed " + seed + ", request " + i + ", " + rules;
                int step = random.nextInt(10);
                long lengthNanos = rules.get(0).window() == null
                        ? 1_000_000_000L
                        : rules.get(0).window().lengthNanos();
                clock.advanceNanos(
                        step < 4
                                ? 0
                                : step < 8
                                        ? random.nextLong(lengthNanos / 20 + 1)
                                        : random.nextLong(lengthNanos / 2 + 1));
                Origin who = random.nextInt(4) == 0 ? B : A;
                Decision d = gate.enter("GET", "/x", who);
                if (d instanceof Rejection r) {
                    RejectionResponse response = gate.rejection(r);
                    long retryAfter = Long.parseLong(response.headers().get("Retry-After"));
                    assertThat(retryAfter).as(at).isPositive();
                    checkFields(at + " rejected " + r.rule(), response.headers(), byName);
                    if (random.nextBoolean()) {
                        if (loneReject && retryAfter > 1 && random.nextBoolean()) {
                            clock.advanceNanos((retryAfter - 1) * 1_000_000_000L);
                            Decision early = gate.enter("GET", "/x", who);
                            assertThat(early.admitted())
                                    .as("%s: a retry 1 s before %s s (%s)", at, retryAfter, response.headers())
                                    .isFalse();
                            clock.advanceNanos(1_000_000_000L);
                        } else {
                            clock.advanceNanos(retryAfter * 1_000_000_000L);
                        }
                        Decision again = gate.enter("GET", "/x", who);
                        assertThat(again.admitted())
                                .as("%s: a retry after %s s (%s)", at, retryAfter, response.headers())
                                .isTrue();
                        ((Entry) again).close();
                        retried++;
                    }
                    continue;
                }
                Map<String, String> fields = new HashMap<>();
                gate.admittedHeaders(d, fields::put);
                ((Entry) d).close();
                checkFields(at + " admitted", fields, byName);
                if (random.nextInt(3) == 0) {
                    long t = maxT(fields.get("RateLimit"));
                    clock.advanceNanos(t * 1_000_000_000L);
                    Decision next = gate.enter("GET", "/x", who);
                    assertThat(next.admitted())
                            .as("%s: %s s after %s", at, t, fields)
                            .isTrue();
                    ((Entry) next).close();
                }
            }
        }
        assertThat(retried).as("retries").isGreaterThan(300);
    }
}
