package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGateTest.Request;
import dev.leapgate.net.IpAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The rejection log: at most one line per rule and interval, with the count and the top senders,
 * written by the rule's first rejection after the interval; never a line per request.
 */
class RejectionLogTest {

    private final ManualClock clock = new ManualClock();
    /** Written by whichever thread's rejection ends an interval. */
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());

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

    private static Origin client(int n) {
        return Origin.ip(IpAddress.parse("203.0.113." + n), 64);
    }

    @Test
    void aRule_saysOncePerInterval_howManyItRejected_andWhoSentMost() {
        HttpGate gate = gate(
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1h",
                "rule.api.scope", "per-origin");
        for (int n = 1; n <= 3; n++) {
            gate.enter("GET", "/api/x", client(n)); // each client's one admission
        }
        for (int i = 0; i < 50; i++) {
            gate.enter("GET", "/api/x", client(1));
        }
        for (int i = 0; i < 20; i++) {
            gate.enter("GET", "/api/x", client(2));
        }
        gate.enter("GET", "/api/x", client(3));

        assertThat(lines).as("no line within the first interval").isEmpty();
        clock.advance(Duration.ofSeconds(12));
        gate.enter("GET", "/api/x", client(3)); // the first rejection after the interval writes the line

        assertThat(lines)
                .containsExactly("Leapgate: rule 'api' rejected 71 requests in the last 12.0 s; most from"
                        + " 203.0.113.1 (about 50), 203.0.113.2 (about 20), 203.0.113.3 (about 1)");
        clock.advance(Duration.ofSeconds(3));
        gate.enter("GET", "/api/x", client(3));
        assertThat(lines).as("the next line waits for the next interval").hasSize(1);
        clock.advance(Duration.ofSeconds(10));
        gate.enter("GET", "/api/x", client(3));
        assertThat(lines)
                .last()
                .isEqualTo("Leapgate: rule 'api' rejected 2 requests in the last 13.0 s; most from 203.0.113.3"
                        + " (about 2)");
    }

    /**
     * An identifier is the client's own text (an API key header, a principal): a line break or
     * another control character in it must not start a forged log line or rewrite the terminal.
     */
    @Test
    void anIdentifierWithLineBreaksOrControlCharacters_isWrittenEscaped_onOneLine() {
        HttpGate gate = gate(
                "origin", "header:X-Api-Key",
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1h",
                "rule.api.scope", "per-origin");
        Origin forger = Origin.id("k1\r\nLeapgate: rule 'login' rejected 0 requests\u001b[2J\u0085\u2028\u202e");
        sendThreeThenOneAfterTheInterval(gate, forger);

        assertThat(lines)
                .containsExactly("Leapgate: rule 'api' rejected 2 requests in the last 10.0 s; most from"
                        + " 'k1\\r\\nLeapgate: rule \\'login\\' rejected 0 requests\\u001B[2J\\u0085\\u2028\\u202E'"
                        + " (about 2)");
    }

    /**
     * A format character beyond the BMP (a tag character, which shows nothing) is escaped as the BMP
     * ones are, so that "admin" and "admin" with a tag character are not the same name in the log;
     * half of a surrogate pair alone, which the log's encoding would write as {@code ?}, too.
     */
    @Test
    void anIdentifierWithAnInvisibleCharacterBeyondTheBmp_orHalfAPair_isWrittenEscaped() {
        HttpGate gate = gate(
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1h",
                "rule.api.scope", "per-origin");
        Origin tagged = Origin.id("admin\udb40\udc41 \ud83d\ude00 \ud800");
        sendThreeThenOneAfterTheInterval(gate, tagged);

        assertThat(lines)
                .as("a visible character beyond the BMP (an emoji) stays as it is")
                .containsExactly("Leapgate: rule 'api' rejected 2 requests in the last 10.0 s; most from"
                        + " 'admin\\uDB40\\uDC41 \ud83d\ude00 \\uD800' (about 2)");
    }

    /**
     * An IPv6 client is its prefix (/64 by default, ipv6-prefix), whichever of its addresses it
     * sends from: the log and the status name the prefix they counted, not the one address that
     * happened to come first (denying that address alone would stop nothing).
     */
    @Test
    void anIpv6Client_isNamedByTheNetworkItIsCountedAs_inTheLogAndTheStatus() {
        for (String prefix : new String[] {"64", "48"}) {
            lines.clear();
            HttpGate gate = gate(
                    "ipv6-prefix", prefix,
                    "rule.api.match", "/api/**",
                    "rule.api.limit", "1/1h",
                    "rule.api.scope", "per-origin");
            for (int i = 1; i <= 4; i++) { // four addresses of one subscriber: one client, one admission
                gate.enter(Request.of("GET", "/api/x", "2001:db8:1:2::" + Integer.toHexString(i * 0x1111)));
            }
            clock.advance(Duration.ofSeconds(10));
            gate.enter(Request.of("GET", "/api/x", "2001:db8:1:2:aaaa::5"));

            String client = prefix.equals("64") ? "2001:db8:1:2::/64" : "2001:db8:1::/48";
            assertThat(lines)
                    .as("ipv6-prefix " + prefix)
                    .containsExactly("Leapgate: rule 'api' rejected 3 requests in the last 10.0 s; most from " + client
                            + " (about 3)");
            assertThat(gate.statusJson())
                    .as("ipv6-prefix " + prefix)
                    .contains("\"rejectedMost\":[{\"client\":\"" + client + "\",\"about\":4}]");
        }
    }

    /**
     * A header shown as sent is as long as the client makes it (containers take 8 KB and more): the
     * log line and the status name its first 100 characters and its length, so that a client cannot
     * write kilobytes into every line (which log shippers split into entries that then start with
     * the client's text), nor into every poll of the status.
     */
    @Test
    void aVeryLongIdentifier_isCutAt100Characters_inTheLogAndTheStatus() {
        HttpGate gate = gate(
                "origin", "header:X-Api-Key",
                "header-origin-shown", "as-sent",
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1h",
                "rule.api.scope", "per-origin");
        String key = "k".repeat(99) + "\uD83D\uDE00" + " 2026-11-26 ERROR forged".repeat(300);
        Request request = Request.of("GET", "/api/x", "203.0.113.1", "X-Api-Key", key);
        for (int i = 0; i < 3; i++) {
            gate.enter(request);
        }
        clock.advance(Duration.ofSeconds(10));
        gate.enter(request);

        String shown = "k".repeat(99) + "...(" + key.length() + " characters)";
        assertThat(lines)
                .as("cut before a character it would split in half")
                .containsExactly("Leapgate: rule 'api' rejected 2 requests in the last 10.0 s; most from '" + shown
                        + "' (about 2)");
        assertThat(gate.statusJson()).contains("\"rejectedMost\":[{\"client\":\"" + shown + "\",\"about\":3}]");
    }

    /**
     * A header origin is usually a credential (an API key): the log names its fingerprint, never the
     * key, unless header-origin-shown = as-sent.
     */
    @Test
    void aHeaderOrigin_isNamedByItsFingerprint_unlessShownAsSent() {
        for (String shown : new String[] {"fingerprint", "as-sent"}) { // fingerprint: the default
            lines.clear();
            HttpGate gate = gate(
                    "origin",
                    "header:X-Api-Key",
                    // the fingerprint by default: then a setting that changes nothing takes the place
                    shown.equals("as-sent") ? "header-origin-shown" : "rejection-log",
                    shown.equals("as-sent") ? "as-sent" : "10s",
                    "rule.api.match",
                    "/api/**",
                    "rule.api.limit",
                    "1/1h",
                    "rule.api.scope",
                    "per-origin");
            Request request = Request.of("GET", "/api/x", "203.0.113.1", "X-Api-Key", "k-1f0e2d3c4b5a");
            for (int i = 0; i < 3; i++) {
                gate.enter(request);
            }
            clock.advance(Duration.ofSeconds(10));
            gate.enter(request);

            // printf %s k-1f0e2d3c4b5a | sha256sum | cut -c1-12
            String named = shown.equals("as-sent") ? "'k-1f0e2d3c4b5a'" : "sha256:7b1976ad0b1e";
            assertThat(lines)
                    .as(shown)
                    .containsExactly("Leapgate: rule 'api' rejected 2 requests in the last 10.0 s; most from " + named
                            + " (about 2)");
        }
    }

    /**
     * An identifier shown as sent is the client's text: in quotes, its own quotes and backslashes
     * escaped, so that it cannot make a line name clients and counts that were never rejected.
     */
    @Test
    void anIdentifierThatReadsLikeOtherClients_isQuoted_andCannotForgeThem() {
        HttpGate gate = gate(
                "origin", "principal",
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1h",
                "rule.api.scope", "per-origin");
        Origin forger = Origin.id("alice' (about 1), 203.0.113.66 (about 99999), \\'x");
        sendThreeThenOneAfterTheInterval(gate, forger);

        assertThat(lines)
                .containsExactly("Leapgate: rule 'api' rejected 2 requests in the last 10.0 s; most from"
                        + " 'alice\\' (about 1), 203.0.113.66 (about 99999), \\\\\\'x' (about 2)");
    }

    @Test
    void admissions_writeNothing_andTheLogIsOffWithZero() {
        HttpGate quiet = gate("rule.api.match", "/api/**", "rule.api.limit", "1/1h", "rejection-log", "0s");
        HttpGate busy = gate("rule.api.match", "/api/**", "rule.api.limit", "1000/1h");
        for (int i = 0; i < 5; i++) {
            quiet.enter("GET", "/api/x", client(1));
            busy.enter("GET", "/api/x", client(1));
            clock.advance(Duration.ofSeconds(11));
        }

        assertThat(lines).isEmpty();
    }

    /**
     * A logger may throw (Log4j's appenders when told not to ignore their errors): the rejection
     * that writes the line still gets its answer, is counted, and the next line is written.
     */
    @Test
    void aLoggerThatThrows_losesItsLine_neverTheRequest() {
        List<String> written = new ArrayList<>();
        HttpGate gate = HttpGate.builder(
                        ConfigParser.parse(Map.of("rule.api.match", "/api/**", "rule.api.limit", "1/1h"), "test"))
                .clock(clock)
                .rejectionLines(line -> {
                    written.add(line);
                    if (written.size() == 1) {
                        throw new IllegalStateException("appender failed");
                    }
                })
                .build();
        gate.enter("GET", "/api/x", client(1));
        gate.enter("GET", "/api/x", client(1));
        clock.advance(Duration.ofSeconds(10));

        assertThat(gate.enter("GET", "/api/x", client(1)))
                .as("the line's rejection")
                .isInstanceOf(Rejection.class);
        clock.advance(Duration.ofSeconds(10));
        gate.enter("GET", "/api/x", client(1));

        assertThat(written).hasSize(2);
        assertThat(written.get(1)).startsWith("Leapgate: rule 'api' rejected 1 request in the last 10.0 s");
        assertThat(gate.stats("/api/**").orElseThrow().totals().rejected()).isEqualTo(3);
    }

    @Test
    void manySenders_nameTheHeaviestOnes_andCountEveryRejection() {
        HttpGate gate = gate("rule.all.match", "/**", "rule.all.limit", "1/1h");
        gate.enter("GET", "/x", client(200));
        for (int n = 1; n <= 100; n++) {
            for (int i = 0; i < (n == 7 ? 500 : 1); i++) {
                gate.enter("GET", "/x", client(n));
            }
        }
        clock.advance(Duration.ofSeconds(10));
        gate.enter("GET", "/x", client(1));

        assertThat(lines)
                .singleElement()
                .asString()
                .startsWith("Leapgate: rule 'all' rejected 599 requests in the last 10.0 s; most from 203.0.113.7"
                        + " (about 5");
    }

    @Test
    void rejectionsFromManyThreads_areAllCounted() throws InterruptedException {
        HttpGate gate = gate("rule.all.match", "/**", "rule.all.limit", "1/1h");
        gate.enter("GET", "/x", client(250));
        int threads = 4;
        int each = 20_000;

        dev.leapgate.testing.Together.run(threads, t -> {
            for (int i = 0; i < each; i++) {
                gate.enter("GET", "/x", client(t + 1));
            }
        });
        clock.advance(Duration.ofSeconds(10));
        gate.enter("GET", "/x", client(1));

        assertThat(lines)
                .singleElement()
                .asString()
                .startsWith("Leapgate: rule 'all' rejected " + threads * each + " requests in the last 10.0 s");
    }

    /**
     * Threads reject while the clock crosses many intervals, so that lines are written (by the
     * rejection that ends each interval) while other threads go on counting: the lines together
     * say every rejection, none twice. The threads move the clock themselves, 10 ms every 100
     * rejections (20 s in all): a thread of its own moving it could be left without a processor
     * while they ran (2 of 2 cores busy), and one run saw a single line written.
     */
    @Test
    void rejectionsFromManyThreads_acrossManyLines_areEachInExactlyOneLine() throws Exception {
        HttpGate gate = gate("rule.all.match", "/**", "rule.all.limit", "1/1h", "rejection-log", "1s");
        gate.enter("GET", "/x", client(250));
        int threads = 4;
        int each = 50_000;
        LongAdder rejected = new LongAdder(); // as the callers saw them
        dev.leapgate.testing.Together.run(threads, t -> {
            for (int i = 0; i < each; i++) {
                if (i % 100 == 0) {
                    clock.advance(Duration.ofMillis(10));
                }
                if (gate.enter("GET", "/x", client(t + 1)) instanceof Rejection) {
                    rejected.increment();
                }
            }
        });
        clock.advance(Duration.ofSeconds(2));
        gate.enter("GET", "/x", client(1)); // ends the last interval; counted in the next, never written

        Pattern count = Pattern.compile("rejected (\\d+) requests? in the last");
        long said = 0;
        synchronized (lines) {
            assertThat(lines).as("lines written while the threads rejected").hasSizeGreaterThan(10);
            for (String line : lines) {
                Matcher m = count.matcher(line);
                assertThat(m.find()).as(line).isTrue();
                said += Long.parseLong(m.group(1));
            }
        }
        assertThat(rejected.sum())
                .as("all the threads sent: 20 s of an hour's limit of 1")
                .isEqualTo(threads * each);
        assertThat(said).isEqualTo(rejected.sum());
    }

    @Test
    void aShadowRule_saysWhatItWouldHaveRejected_inALineOfItsOwn() {
        HttpGate gate = gate(
                "rule.trial.match", "/api/**",
                "rule.trial.limit", "2/1h",
                "rule.trial.scope", "per-origin",
                "rule.trial.mode", "shadow",
                "rule.all.match", "/api/**",
                "rule.all.limit", "100/1h");
        for (int i = 0; i < 10; i++) {
            assertThat(gate.enter("GET", "/api/x", client(9))).isInstanceOf(dev.leapgate.Entry.class);
        }
        clock.advance(Duration.ofSeconds(10));
        gate.enter("GET", "/api/x", client(9));

        assertThat(lines)
                .containsExactly("Leapgate: shadow rule 'trial' would have rejected 8 requests in the last 10.0 s;"
                        + " most from 203.0.113.9 (about 8)");
    }

    private static dev.leapgate.rule.RuleSet rules(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        return ConfigParser.parse(settings, "test").rules();
    }

    /**
     * A rule a reload removes has no next rejection to write its line: the reload writes what it
     * counted since its last line, then and there, and the rule the reload keeps says nothing yet.
     */
    @Test
    void aRuleRemovedByAReload_writesWhatItHadPending_atTheReload() {
        HttpGate gate = gate(
                "rule.old.match", "/old/**",
                "rule.old.limit", "1/1h",
                "rule.old.scope", "per-origin",
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1h");
        gate.enter("GET", "/old/x", client(1));
        for (int i = 0; i < 3; i++) {
            gate.enter("GET", "/old/x", client(1));
        }
        gate.enter("GET", "/old/x", client(2));
        gate.enter("GET", "/old/x", client(2));
        gate.enter("GET", "/api/x", client(1));
        gate.enter("GET", "/api/x", client(1));
        clock.advance(Duration.ofSeconds(4));

        gate.update(rules("rule.api.match", "/api/**", "rule.api.limit", "1/1h"));

        assertThat(lines)
                .containsExactly("Leapgate: rule 'old' rejected 4 requests in the last 4.0 s; most from"
                        + " 203.0.113.1 (about 3), 203.0.113.2 (about 1)");
    }

    /**
     * A rule is its name and its mode: a reload that switches a rule from enforced to shadow ends
     * the enforced rule's tally with a line, and the shadow rule's lines are a tally of their own.
     */
    @Test
    void aRuleSwitchedToShadowByAReload_writesWhatItRejected_andItsShadowLinesAreTheirOwn() {
        HttpGate gate = gate(
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1h");
        gate.enter("GET", "/api/x", client(1));
        gate.enter("GET", "/api/x", client(1));
        gate.enter("GET", "/api/x", client(1));
        clock.advance(Duration.ofSeconds(2));

        gate.update(rules("rule.api.match", "/api/**", "rule.api.limit", "1/1h", "rule.api.mode", "shadow"));
        gate.enter("GET", "/api/x", client(3));
        clock.advance(Duration.ofSeconds(10));
        gate.enter("GET", "/api/x", client(3));

        assertThat(lines)
                .containsExactly(
                        "Leapgate: rule 'api' rejected 2 requests in the last 2.0 s; most from 203.0.113.1 (about 2)",
                        "Leapgate: shadow rule 'api' would have rejected 1 request in the last 10.0 s; most from"
                                + " 203.0.113.3 (about 1)");
    }

    /**
     * Threads reject under rule 'kept' while reloads change its limit (a new version of it each
     * time, going on from its counts) and replace another rule by one of a new name: rejections by
     * either version of 'kept', also a version a reload has just replaced, count toward its next
     * line. A last reload removes 'kept', which writes what it still had pending (never nothing:
     * the rejection that writes a line is counted in the next). The lines of 'kept' together say
     * every rejection by 'kept', none twice.
     */
    @Test
    void aRuleKeptAcrossReloads_whileThreadsReject_keepsItsPendingCount_andItsLinesSayEveryRejection()
            throws Exception {
        HttpGate gate = gate(
                "rule.kept.match", "/api/**",
                "rule.kept.limit", "1/1h",
                "rule.other0.match", "/other/**",
                "rule.other0.limit", "1/1h",
                "rejection-log", "1s");
        gate.enter("GET", "/api/x", client(250));
        int threads = 4;
        int each = 20_000;
        LongAdder rejected = new LongAdder(); // by 'kept', as the callers saw them

        dev.leapgate.testing.Together.run(threads, t -> {
            for (int i = 0; i < each; i++) {
                if (i % 100 == 0) {
                    clock.advance(Duration.ofMillis(10));
                }
                if (t == 0 && i % 500 == 0) {
                    int v = i / 500 + 1;
                    gate.update(rules(
                            "rule.kept.match",
                            "/api/**",
                            "rule.kept.limit",
                            v % 2 == 0 ? "1/1h" : "2/1h",
                            "rule.other" + v + ".match",
                            "/other/**",
                            "rule.other" + v + ".limit",
                            "1/1h"));
                }
                if (gate.enter("GET", "/api/x", client(t + 1)) instanceof Rejection r) {
                    assertThat(r.rule()).isEqualTo("kept");
                    rejected.increment();
                }
            }
        });
        synchronized (lines) {
            assertThat(lines)
                    .as("lines of 'kept' written while the threads rejected")
                    .filteredOn(line -> line.startsWith("Leapgate: rule 'kept'"))
                    .hasSizeGreaterThan(5);
        }
        gate.update(rules("rule.last.match", "/other/**", "rule.last.limit", "1/1h"));

        Pattern count = Pattern.compile("^Leapgate: rule 'kept' rejected (\\d+) requests? in the last");
        long said = 0;
        synchronized (lines) {
            for (String line : lines) {
                Matcher m = count.matcher(line);
                if (m.find()) {
                    said += Long.parseLong(m.group(1));
                }
            }
        }
        assertThat(rejected.sum()).as("rejections by 'kept'").isGreaterThan(threads * each - 100);
        assertThat(said).as("what the lines of 'kept' say").isEqualTo(rejected.sum());
    }

    /** Three requests (one admitted, two rejected), then one 10 s later, which writes the line. */
    private void sendThreeThenOneAfterTheInterval(HttpGate gate, Origin origin) {
        for (int i = 0; i < 3; i++) {
            gate.enter("GET", "/api/x", origin);
        }
        clock.advance(Duration.ofSeconds(10));
        gate.enter("GET", "/api/x", origin);
    }
}
