package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every {@code rule.<name>.<setting>}, each value form, and each mistake. */
class RuleSettingsTest {

    private static FlowRule rule(String... lines) {
        RuleSet rules = ConfigParser.parseRules(String.join("\n", lines), "rules.properties");
        assertThat(rules.rules()).hasSize(1);
        return rules.rules().get(0);
    }

    private static List<String> problems(String... lines) {
        return ConfigProblems.ofRules(lines);
    }

    // --- match

    @Test
    void match_withMethod_restrictsTheRuleToThatMethod() {
        FlowRule rule = rule("rule.login.match=POST /login", "rule.login.limit=5/1m");

        assertThat(rule.name()).isEqualTo("login");
        assertThat(rule.match().method()).contains("POST");
        assertThat(rule.match().path()).isEqualTo("/login");
        assertThat(rule.match().matches("POST", "/login")).isTrue();
        assertThat(rule.match().matches("GET", "/login")).isFalse();
    }

    @Test
    void match_withoutMethod_andWithWildcards_isThePathPattern() {
        assertThat(rule("rule.api.match=/api/**", "rule.api.limit=10/s").match().matches("DELETE", "/api/x/y"))
                .isTrue();
        FlowRule users = rule("rule.users.match=GET /users/{id}", "rule.users.limit=10/s");
        assertThat(users.resource()).isEqualTo("GET /users/{id}");
        assertThat(users.match().matches("GET", "/users/7")).isTrue();
    }

    @Test
    void match_invalidPattern_isReportedUnderMatch() {
        assertThat(problems("rule.a.match=/api//x", "rule.a.limit=10/s"))
                .singleElement(STRING)
                .startsWith("line 1: rule.a.match: invalid path pattern '/api//x'");
    }

    @Test
    void match_missing_isReportedAtTheRule() {
        assertThat(problems("# a rule without match", "rule.a.limit=10/s"))
                .containsExactly(
                        "line 2: rule.a: needs a match, e.g. rule.a.match=POST /login or rule.a.match=/api/**");
    }

    // --- limit and in-flight

    @ParameterizedTest
    @CsvSource({
        "100/10s, 100, PT10S",
        "5/1m, 5, PT1M",
        "1000/1h, 1000, PT1H",
        "10/s, 10, PT1S",
        "10/m, 10, PT1M",
        "3/h, 3, PT1H",
        "10/100ms, 10, PT0.1S",
        "7/24h, 7, PT24H",
    })
    void limit_everyForm_givesCountAndWindow(String text, long count, String window) {
        FlowRule rule = rule("rule.a.match=/x", "rule.a.limit=" + text);

        assertThat(rule.isInFlight()).isFalse();
        assertThat(rule.limit()).isEqualTo(count);
        assertThat(rule.window().length()).isEqualTo(Duration.parse(window));
        assertThat(rule.window().buckets()).isEqualTo(10);
        assertThat(rule.window().mode()).isEqualTo(WindowMode.STRICT);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "0/1s    | rule.a.limit: limit must be between 1 and 134217727 for window 1s in 10 buckets, strict,"
                        + " was 0 (rule 'a')",
                "10/0s   | rule.a.limit: window must be between 100ms and 24h, was 0s",
                "10/25h  | rule.a.limit: window must be between 100ms and 24h, was 25h",
                "10/50ms | rule.a.limit: window must be between 100ms and 24h, was 50ms",
                "10/9223372036854775807s | rule.a.limit: window must be between 100ms and 24h, was"
                        + " 9223372036854775807s",
                "abc     | rule.a.limit: 'abc' is not a limit; expected N/window",
                "100     | rule.a.limit: '100' is not a limit (no window; add one, e.g. 100/1s)",
                "-5/1s   | rule.a.limit: '-5/1s' is not a limit (N must be a positive whole number)",
                "1.5/1s  | rule.a.limit: '1.5/1s' is not a limit (N must be a positive whole number)",
                "/1s     | rule.a.limit: '/1s' is not a limit (N must be a positive whole number)",
                "10/1d   | rule.a.limit: '10/1d' is not a limit (window '1d': unknown unit 'd'; write 24h for a"
                        + " day); expected N/window, e.g. 100/10s, 5/1m, 1000/1h, 10/s (window units ms, s, m, h)",
                "10/x    | rule.a.limit: '10/x' is not a limit (window 'x' is not a duration)",
                "99999999999999999999/1s | rule.a.limit: '99999999999999999999/1s' is not a limit (N is too large)",
            })
    void limit_invalid_isReportedWithKeyValueAndWhatIsAllowed(String text, String expected) {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=" + text))
                .singleElement(STRING)
                .startsWith("line 2: " + expected);
    }

    @Test
    void limit_withSpaceInside_isRejected() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=100 / 10s"))
                .singleElement(STRING)
                .startsWith("line 2: rule.a.limit: '100 / 10s' is not a limit (no space is allowed inside)");
    }

    @Test
    void limit_tooLargeForTheWindow_isTheRulesOwnMessage() {
        // 1 ms buckets hold at most 2^20 - 1 per bucket.
        assertThat(problems("rule.a.match=/x", "rule.a.limit=2000000/100ms", "rule.a.buckets=100"))
                .singleElement(STRING)
                .isEqualTo("line 2: rule.a.limit: limit must be between 1 and 1048575 for window 100ms in 100 buckets,"
                        + " strict, was 2000000 (rule 'a')");
    }

    @Test
    void limit_withBorrow_isCheckedAgainstTheSmallerBorrowingMaximum_underLimit() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=20000/1s", "rule.a.on-excess=borrow"))
                .singleElement(STRING)
                .startsWith("line 2: rule.a.limit: limit must be between 1 and ")
                .contains("with on-excess borrow, was 20000 (rule 'a')");
    }

    @Test
    void inFlight_isAConcurrencyLimit() {
        FlowRule rule = rule("rule.a.match=/x", "rule.a.in-flight=20");

        assertThat(rule.isInFlight()).isTrue();
        assertThat(rule.limit()).isEqualTo(20);
        assertThat(rule.window()).isNull();
    }

    @Test
    void inFlight_zeroOrNotANumber_isRejected() {
        assertThat(problems("rule.a.match=/x", "rule.a.in-flight=0"))
                .containsExactly(
                        "line 2: rule.a.in-flight: in-flight limit must be between 1 and 2147483647, was 0 (rule 'a')");
        assertThat(problems("rule.a.match=/x", "rule.a.in-flight=twenty"))
                .containsExactly("line 2: rule.a.in-flight: 'twenty' is not a positive whole number");
    }

    @Test
    void limitAndInFlight_together_areRejectedAtTheLaterOne() {
        assertThat(problems("rule.a.match=/x", "rule.a.in-flight=20", "rule.a.limit=10/s"))
                .containsExactly("line 3: rule.a.limit: a rule has either limit (requests per window) or in-flight"
                        + " (requests at once), not both; write a second rule for the other");
    }

    @Test
    void limitAndInFlight_bothMissing_isReportedAtTheRule() {
        assertThat(problems("rule.a.match=/x"))
                .containsExactly("line 1: rule.a: needs a limit, e.g. rule.a.limit=100/10s, or an in-flight limit,"
                        + " e.g. rule.a.in-flight=20");
    }

    // --- buckets and window

    @Test
    void bucketsAndWindow_shapeTheWindow() {
        FlowRule rule = rule("rule.a.match=/x", "rule.a.limit=100/1m", "rule.a.buckets=60", "rule.a.window=sliding");

        assertThat(rule.window().buckets()).isEqualTo(60);
        assertThat(rule.window().mode()).isEqualTo(WindowMode.SLIDING);
        assertThat(rule("rule.a.match=/x", "rule.a.limit=1/s", "rule.a.window=strict")
                        .window()
                        .mode())
                .isEqualTo(WindowMode.STRICT);
    }

    @Test
    void buckets_notDividingTheWindow_isReportedUnderBuckets() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/1s", "rule.a.buckets=3"))
                .singleElement(STRING)
                .startsWith("line 3: rule.a.buckets: window 1s cannot be cut into 3 buckets");
    }

    @Test
    void buckets_shorterThan1ms_isReportedUnderBuckets() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/100ms", "rule.a.buckets=1000"))
                .singleElement(STRING)
                .startsWith("line 3: rule.a.buckets: buckets must be at least 1ms long")
                .endsWith("use at most 100 buckets");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "0    | must be between 1 and 1000, was 0",
                "1001 | must be between 1 and 1000, was 1001",
                "ten  | 'ten' is not a whole number; expected 1 to 1000"
            })
    void buckets_outOfRange_isRejected(String buckets, String message) {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.buckets=" + buckets))
                .containsExactly("line 3: rule.a.buckets: " + message);
    }

    @Test
    void window_misspelt_isRejectedWithASuggestion() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.window=slidng"))
                .containsExactly("line 3: rule.a.window: 'slidng' is not allowed; expected strict or sliding;"
                        + " did you mean 'sliding'?");
    }

    @Test
    void bucketsAndWindow_withInFlight_doNotApply() {
        assertThat(problems("rule.a.match=/x", "rule.a.in-flight=5", "rule.a.buckets=5", "rule.a.window=sliding"))
                .containsExactly(
                        "line 3: rule.a.buckets: applies only to a limit per window (limit), not to in-flight",
                        "line 4: rule.a.window: applies only to a limit per window (limit), not to in-flight");
    }

    // --- scope and max-origins

    @ParameterizedTest
    @CsvSource({
        "all, all",
        "per-origin, per-origin",
        "origin:203.0.113.7, origin:203.0.113.7",
        "origin:2001:DB8:0:0::1, origin:2001:db8::1",
        "origin:::ffff:192.0.2.1, origin:192.0.2.1",
        "origin:batch-job, origin:batch-job",
        "origin: batch-job, origin:batch-job",
    })
    void scope_everyForm_withIpsCanonicalized(String text, String scope) {
        // With origin = header:<Name>, where an origin may be an address or an identifier.
        RuleSet rules = ConfigParser.parseRules(
                "rule.a.match=/x\nrule.a.limit=10/s\nrule.a.scope=" + text,
                "rules.properties",
                OriginSource.header("X-Job"));
        assertThat(rules.rules().get(0).scope().toString()).isEqualTo(scope);
    }

    @Test
    void scope_defaultsToAll() {
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s").scope()).isEqualTo(Scope.all());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "origin:10.0.0.256 | 'origin:10.0.0.256' is not allowed",
                "origin:10.0.0.0/8 | 'origin:10.0.0.0/8' is a range",
                "origin:           | 'origin:' names no origin",
                "per_origin        | 'per_origin' is not allowed; expected all, per-origin or origin:<value>;"
                        + " did you mean 'per-origin'?",
            })
    void scope_invalid_isRejected(String text, String message) {
        List<String> problems = problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.scope=" + text);
        assertThat(problems).hasSize(1);
        assertThat(problems.get(0)).startsWith("line 3: rule.a.scope: ");
        if (text.equals("origin:10.0.0.256")) {
            assertThat(problems.get(0)).contains("invalid IP address '10.0.0.256'");
        } else {
            assertThat(problems.get(0)).contains(message);
        }
    }

    @Test
    void maxOrigins_withPerOrigin_boundsTheTable() {
        FlowRule rule =
                rule("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.scope=per-origin", "rule.a.max-origins=5000");

        assertThat(rule.maxOrigins()).isEqualTo(5000);
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.scope=per-origin")
                        .maxOrigins())
                .isEqualTo(100_000);
    }

    @Test
    void maxOrigins_outOfRange_orWithoutPerOrigin_isRejected() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.scope=per-origin", "rule.a.max-origins=0"))
                .containsExactly("line 4: rule.a.max-origins: must be between 1 and 100000000, was 0");
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.max-origins=5000"))
                .containsExactly(
                        "line 3: rule.a.max-origins: applies only to scope per-origin; this rule's scope is all");
    }

    // --- on-excess and its settings

    @Test
    void onExcess_defaultsToReject() {
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s").onExcess()).isEqualTo(OnExcess.reject());
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=reject")
                        .onExcess())
                .isEqualTo(OnExcess.reject());
    }

    @Test
    void onExcessPace_takesMaxQueue_withDefault500ms() {
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=pace")
                        .onExcess())
                .isEqualTo(OnExcess.pace(Duration.ofMillis(500)));
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=pace", "rule.a.max-queue=2s")
                        .onExcess())
                .isEqualTo(OnExcess.pace(Duration.ofSeconds(2)));
    }

    @Test
    void onExcessWarmUp_takesColdFactorAndWarmUp_withDefaults3And10s() {
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=warm-up")
                        .onExcess())
                .isEqualTo(OnExcess.warmUp(3.0, Duration.ofSeconds(10)));
        assertThat(rule(
                                "rule.a.match=/x",
                                "rule.a.limit=10/s",
                                "rule.a.on-excess=warm-up",
                                "rule.a.cold-factor=2.5",
                                "rule.a.warm-up=30s")
                        .onExcess())
                .isEqualTo(OnExcess.warmUp(2.5, Duration.ofSeconds(30)));
    }

    @Test
    void onExcessWarmUpPace_takesAllThree() {
        assertThat(rule(
                                "rule.a.match=/x",
                                "rule.a.limit=10/s",
                                "rule.a.on-excess=warm-up-pace",
                                "rule.a.cold-factor=4",
                                "rule.a.warm-up=1m",
                                "rule.a.max-queue=250ms")
                        .onExcess())
                .isEqualTo(OnExcess.warmUpPace(4.0, Duration.ofMinutes(1), Duration.ofMillis(250)));
    }

    @Test
    void onExcessBorrow_takesMaxWait_withDefault500ms() {
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=borrow")
                        .onExcess())
                .isEqualTo(OnExcess.borrow(Duration.ofMillis(500)));
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=borrow", "rule.a.max-wait=0s")
                        .onExcess())
                .isEqualTo(OnExcess.borrow(Duration.ZERO));
    }

    @Test
    void onExcess_misspelt_isRejectedWithASuggestion() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=warmup"))
                .containsExactly("line 3: rule.a.on-excess: 'warmup' is not allowed; expected reject, pace, warm-up,"
                        + " warm-up-pace or borrow; did you mean 'warm-up'?");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "reject | max-queue=1s   | max-queue: applies only to on-excess pace or warm-up-pace;"
                        + " this rule's on-excess is reject",
                "warm-up | max-queue=1s  | max-queue: applies only to on-excess pace or warm-up-pace;"
                        + " this rule's on-excess is warm-up",
                "pace   | max-wait=1s    | max-wait: applies only to on-excess borrow; this rule's on-excess is pace",
                "borrow | cold-factor=2  | cold-factor: applies only to on-excess warm-up or warm-up-pace;"
                        + " this rule's on-excess is borrow",
                "pace   | warm-up=5s     | warm-up: applies only to on-excess warm-up or warm-up-pace;"
                        + " this rule's on-excess is pace",
            })
    void setting_notForTheOnExcess_isRejectedNamingWhereItApplies(String onExcess, String setting, String message) {
        assertThat(problems(
                        "rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=" + onExcess, "rule.a." + setting))
                .containsExactly("line 4: rule.a." + message);
    }

    @Test
    void setting_forAnOnExcess_withoutOnExcess_isRejectedAsNotForReject() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.max-wait=1s"))
                .containsExactly(
                        "line 3: rule.a.max-wait: applies only to on-excess borrow; this rule's on-excess is reject");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "10    | ' (no unit)'",
                "10 s  | ' (no space is allowed inside)'",
                "-1s   | ' (negative)'",
                "1d    | ' (unknown unit ''d''; write 24h for a day)'",
                "10S   | ' (unknown unit ''S''; units are lower case: s)'",
                "2secs | ' (unknown unit ''secs''; write s for seconds)'",
                "1.5s  | ' (not a whole number; use a smaller unit, e.g. 1500ms for 1.5s)'",
                "99999999999999999999s | ' (too large)'",
                "9223372036854775807h  | ' (too large)'",
                "soon  | ''",
            })
    void duration_invalid_isRejectedWithTheReason(String text, String reason) {
        assertThat(problems(
                        "rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=pace", "rule.a.max-queue=" + text))
                .containsExactly("line 4: rule.a.max-queue: '" + text + "' is not a duration" + reason
                        + "; expected a whole number and a unit ms, s, m or h, e.g. 250ms, 10s, 1m, 24h");
    }

    @Test
    void waits_longerThanAMinute_orAZeroWarmUp_areRejected() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=pace", "rule.a.max-queue=2m"))
                .containsExactly("line 4: rule.a.max-queue: must be between 0s and 1m, was 2m");
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.on-excess=warm-up", "rule.a.warm-up=0s"))
                .containsExactly("line 4: rule.a.warm-up: must be longer than 0s and at most 1m, was 0s");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "1     | cold-factor must be greater than 1 and at most 100, was 1",
                "101   | cold-factor must be greater than 1 and at most 100, was 101",
                // Beyond a double's precision: read as 100, it would pass; read as 1, it would be
                // refused as "1.0", a value other than the one written.
                "100.000000000000001 | cold-factor must be greater than 1 and at most 100, was 100.000000000000001",
                "1.0000000000000001  | cold-factor must be greater than 1 and at most 100, was 1.0000000000000001"
                        + " (too close to 1 to be told apart from it; write e.g. 1.01)",
                "three | 'three' is not a decimal number; expected e.g. 3 or 2.5",
                "1e3   | '1e3' is not a decimal number; expected e.g. 3 or 2.5",
            })
    void coldFactor_invalid_isRejected(String text, String message) {
        assertThat(problems(
                        "rule.a.match=/x",
                        "rule.a.limit=10/s",
                        "rule.a.on-excess=warm-up",
                        "rule.a.cold-factor=" + text))
                .containsExactly("line 4: rule.a.cold-factor: " + message);
    }

    @Test
    void perOriginWithPace_isTheRulesOwnMessage_underOnExcess() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.scope=per-origin", "rule.a.on-excess=pace"))
                .containsExactly("line 4: rule.a.on-excess: on-excess pace is not supported with scope per-origin;"
                        + " use reject or borrow (rule 'a')");
    }

    @Test
    void inFlightWithPace_isTheRulesOwnMessage_underOnExcess() {
        assertThat(problems("rule.a.match=/x", "rule.a.in-flight=3", "rule.a.on-excess=borrow"))
                .containsExactly("line 3: rule.a.on-excess: on-excess borrow needs a request rate; an in-flight limit"
                        + " can only reject (rule 'a')");
    }

    // --- names and unknown settings

    @Test
    void unknownSetting_withinEditDistance2_suggestsTheSetting_andDoesNotAlsoReportItMissing() {
        assertThat(problems("rule.a.match=/x", "rule.a.limt=10/s"))
                .containsExactly("line 2: rule.a.limt: unknown rule setting 'limt'; did you mean rule.a.limit?");
        assertThat(problems("rule.a.mtach=/x", "rule.a.in-fligth=3"))
                .containsExactly(
                        "line 1: rule.a.mtach: unknown rule setting 'mtach'; did you mean rule.a.match?",
                        "line 2: rule.a.in-fligth: unknown rule setting 'in-fligth'; did you mean rule.a.in-flight?");
    }

    @Test
    void unknownSetting_farFromAny_listsTheSettings() {
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.colour=red"))
                .containsExactly("line 3: rule.a.colour: unknown rule setting 'colour'; rule settings are match, limit,"
                        + " in-flight, buckets, window, scope, on-excess, max-queue, cold-factor, warm-up, max-wait,"
                        + " max-origins, mode, store or store-on-failure");
    }

    @Test
    void invalidRuleName_isReportedOnce() {
        assertThat(problems("rule.my.rule.match=/x", "rule.my.rule.limit=10/s"))
                .containsExactly(
                        "line 1: rule.my.rule.match: rule name 'my.rule' must be 1 to 64 letters, digits, '-' or '_'");
    }

    @Test
    void ruleKey_withoutSetting_isRejected() {
        assertThat(problems("rule.login=POST /login"))
                .singleElement(STRING)
                .startsWith("line 1: rule.login: expected rule.<name>.<setting>, e.g. rule.login.match");
    }

    @Test
    void rules_keepTheOrderOfFirstAppearance_evenWhenTheirKeysInterleave() {
        RuleSet rules = ConfigParser.parseRules(
                String.join(
                        "\n",
                        "rule.zeta.match=/z",
                        "rule.alpha.match=/a",
                        "rule.zeta.limit=1/s",
                        "rule.mid.in-flight=2",
                        "rule.alpha.limit=2/s",
                        "rule.mid.match=/m"),
                "rules.properties");

        assertThat(rules.rules()).extracting(FlowRule::name).containsExactly("zeta", "alpha", "mid");
    }

    @Test
    void mistakesInSeveralRules_areAllReported_inLineOrder() {
        assertThat(problems(
                        "rule.a.match=/a",
                        "rule.a.limit=10/1d",
                        "rule.b.limit=5/s",
                        "rule.a.buckets=0",
                        "rule.c.match=/c",
                        "rule.c.in-flight=3",
                        "rule.c.scope=everyone"))
                .hasSize(4)
                .satisfiesExactly(
                        p -> assertThat(p).startsWith("line 2: rule.a.limit: '10/1d' is not a limit"),
                        p -> assertThat(p).startsWith("line 3: rule.b: needs a match"),
                        p -> assertThat(p).startsWith("line 4: rule.a.buckets: must be between 1 and 1000, was 0"),
                        p -> assertThat(p).startsWith("line 7: rule.c.scope: 'everyone' is not allowed"));
    }

    @Test
    void mode_isEnforceByDefault_orShadow_andAMisspeltModeIsNamed() {
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s").shadow()).isFalse();
        assertThat(rule("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.mode=enforce")
                        .shadow())
                .isFalse();
        assertThat(rule("rule.a.match=/x", "rule.a.in-flight=3", "rule.a.mode=shadow")
                        .shadow())
                .isTrue();
        assertThat(problems("rule.a.match=/x", "rule.a.limit=10/s", "rule.a.mode=shadw"))
                .singleElement()
                .asString()
                .startsWith("line 3: rule.a.mode: ")
                .contains("'shadw'")
                .endsWith("expected enforce or shadow; did you mean 'shadow'?");
    }
}
