package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.Clock;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.testing.HeldSleeper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The status JSON, and which requests get it. */
class GateStatusTest {

    private static final String NO_REJECTIONS =
            "\"rejected\":{\"limitExceeded\":0,\"notTracked\":0,\"tooManyPermits\":0,\"interrupted\":0,\"storeUnavailable\":0},"
                    + "\"rejectedBySecond\":[" + "0,".repeat(59) + "0]";

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

    private static HttpRequestView request(String method, String path, String peer) {
        return request(method, path, peer, "*/*");
    }

    private static HttpRequestView request(String method, String path, String peer, String accept) {
        return new HttpRequestView() {
            public String method() {
                return method;
            }

            public String rawPath() {
                return path;
            }

            public String remoteAddr() {
                return peer;
            }

            public List<String> headers(String name) {
                return name.equalsIgnoreCase("Accept") ? List.of(accept) : List.of();
            }

            public String principal() {
                return null;
            }
        };
    }

    @Test
    void theJson_describesEachRule_andWhatItHoldsNow_andWhomItRejectedMost() {
        HttpGate gate = gate(
                "rule.api.match", "/api/**",
                "rule.api.limit", "3/1m",
                "rule.api.scope", "per-origin",
                "rule.all.match", "/api/**",
                "rule.all.limit", "100/1m",
                "rule.slots.match", "/export",
                "rule.slots.in-flight", "2",
                "rule.trial.match", "/search",
                "rule.trial.limit", "1/1h",
                "rule.trial.mode", "shadow",
                "deny", "10.0.0.66");
        for (int i = 0; i < 5; i++) {
            if (gate.enter("GET", "/api/x", ip("203.0.113.7")) instanceof Entry entry) {
                entry.close();
            }
        }
        ((Entry) gate.enter("GET", "/api/x", ip("203.0.113.8"))).close();
        gate.enter("GET", "/export", ip("203.0.113.7")); // held
        gate.enter("GET", "/x", ip("10.0.0.66"));
        clock.advance(Duration.ofSeconds(1));

        String json = gate.statusJson();

        assertThat(json)
                .startsWith("{\"rules\":[{\"name\":\"api\",\"resource\":\"/api/**\",\"limit\":3,\"window\":\"1m in 10"
                        + " buckets, strict\",\"scope\":\"per-origin\",\"onExcess\":\"reject\",\"mode\":\"enforce\","
                        + "\"rejected\":{\"limitExceeded\":2,\"notTracked\":0,\"tooManyPermits\":0,\"interrupted\":0,\"storeUnavailable\":0},"
                        + "\"rejectedBySecond\":[" + "0,".repeat(59) + "2],"
                        + "\"maxOrigins\":100000,\"trackedClients\":2,\"limitedClients\":1,\"evictedClients\":0,\"rejectedMost\":[{\"client\":\"203.0.113.7\","
                        + "\"about\":2}]}")
                .contains("{\"name\":\"all\",\"resource\":\"/api/**\",\"limit\":100,\"window\":\"1m in 10 buckets,"
                        + " strict\",\"scope\":\"all\",\"onExcess\":\"reject\",\"mode\":\"enforce\"," + NO_REJECTIONS
                        + ",\"used\":4}")
                .contains("{\"name\":\"slots\",\"resource\":\"/export\",\"limit\":2,\"inFlightLimit\":true,"
                        + "\"scope\":\"all\",\"onExcess\":\"reject\",\"mode\":\"enforce\"," + NO_REJECTIONS
                        + ",\"inFlight\":1}")
                .contains("\"name\":\"trial\"")
                .contains("\"mode\":\"shadow\"")
                .contains("{\"resource\":\"/api/**\",\"inFlight\":0,\"lastMinute\":{\"admittedPerSecond\":")
                .contains(
                        "\"totals\":{\"admitted\":4,\"rejected\":2,\"shadowRejected\":0,\"succeeded\":4,\"failed\":0}")
                .contains("{\"resource\":\"/export\",\"inFlight\":1,")
                .as("second by second, oldest first: the requests were all in the second before this one")
                .contains("\"lastMinuteBySecond\":{\"admitted\":[" + "0,".repeat(59) + "4],\"rejected\":["
                        + "0,".repeat(59) + "2],\"shadowRejected\":["
                        + "0,".repeat(60).replaceAll(",$", "") + "]}")
                .endsWith("\"exemptRequests\":0,\"deniedRequests\":1}")
                .as("a client the rules never rejected is not named")
                .doesNotContain("203.0.113.8");
    }

    /** Jetty 12 reports an IPv6 peer in brackets: the default allow-list's {@code ::1} still matches it. */
    @Test
    void anIpv6PeerInBrackets_asJettyReportsIt_isAllowedByTheDefaultList() {
        HttpGate gate = gate("status-path", "/leapgate/status");

        assertThat(gate.status(request("GET", "/leapgate/status", "[0:0:0:0:0:0:0:1]")))
                .isPresent();
        assertThat(gate.status(request("GET", "/leapgate/status", "[::1]"))).isPresent();
        assertThat(gate.status(request("GET", "/leapgate/status", "::1"))).isPresent();
        assertThat(gate.status(request("GET", "/leapgate/status", "[2001:db8::1]")))
                .isEmpty();
    }

    @Test
    void onlyAGetOfTheStatusPath_fromAnAllowedPeer_getsTheStatus() {
        HttpGate gate = gate(
                "rule.api.match", "/**",
                "rule.api.limit", "3/1m",
                "status-path", "/leapgate/status",
                "status-allow", "127.0.0.1, 192.0.2.0/24");

        assertThat(gate.status(request("GET", "/leapgate/status", "127.0.0.1")))
                .get()
                .satisfies(json -> {
                    assertThat(json.contentType()).isEqualTo("application/json");
                    assertThat(json.text()).isEqualTo(gate.statusJson());
                    assertThat(json.headers()).containsEntry("Cache-Control", "no-store");
                });
        assertThat(gate.status(request("GET", "/leapgate//status?x=1", "192.0.2.9")))
                .as("the same path, spelled otherwise")
                .isPresent();
        assertThat(gate.status(request("GET", "/x/../leapgate/%73tatus;v=1", "127.0.0.1")))
                .as("encoded, with a dot segment and a matrix parameter")
                .isPresent();
        assertThat(gate.status(request("GET", "/leapgate/statu", "127.0.0.1"))).isEmpty();
        assertThat(gate.status(request("GET", "/leapgate/Status", "127.0.0.1"))).isEmpty();
        assertThat(gate.status(request("GET", "/leapgate/status", "203.0.113.1")))
                .isEmpty();
        assertThat(gate.status(request("GET", "/leapgate/status", "::1")))
                .as("not in this allow-list")
                .isEmpty();
        assertThat(gate.status(request("POST", "/leapgate/status", "127.0.0.1")))
                .isEmpty();
        assertThat(gate.status(request("GET", "/leapgate/status/x", "127.0.0.1")))
                .isEmpty();
        assertThat(gate.status(request("GET", "/leapgate/status", "unix:/run/app.sock")))
                .isEmpty();
    }

    /** A view of the application's own that has no path (null) is the root, as {@code enter} takes it: never a 500. */
    @Test
    void aViewWithoutAPath_isNoStatusRequest_andDecidedAsTheRoot() {
        HttpGate gate = gate(
                "rule.root.match", "/",
                "rule.root.limit", "1/1m",
                "status-path", "/leapgate/status");
        HttpRequestView noPath = request("GET", null, "127.0.0.1");

        assertThat(gate.status(noPath)).isEmpty();
        assertThat(gate.enter(noPath).admitted()).isTrue();
        assertThat(gate.enter(noPath).admitted())
                .as("the root's rule counted it")
                .isFalse();
    }

    /** A GET of {@code path} from {@code peer} with the given header fields (name, value, ...). */
    private static HttpRequestView relayed(String path, String peer, String... fields) {
        return new HttpRequestView() {
            public String method() {
                return "GET";
            }

            public String rawPath() {
                return path;
            }

            public String remoteAddr() {
                return peer;
            }

            public List<String> headers(String name) {
                List<String> values = new java.util.ArrayList<>();
                for (int i = 0; i < fields.length; i += 2) {
                    if (fields[i].equalsIgnoreCase(name)) {
                        values.add(fields[i + 1]);
                    }
                }
                return values;
            }

            public String principal() {
                return null;
            }
        };
    }

    /**
     * A reverse proxy on this machine connects from an allowed address for every client it serves:
     * the README's own Boot example trusts a proxy at 127.0.0.1, which the default status-allow
     * also lists. A relayed request gets the status only from a client the trusted proxies name
     * and status-allow lists.
     */
    @Test
    void throughAReverseProxyOnThisMachine_onlyAnAllowedClientGetsTheStatus() {
        HttpGate behindTrusted = gate("status-path", "/leapgate/status", "trusted-proxies", "127.0.0.1");

        assertThat(behindTrusted.status(relayed("/leapgate/status", "127.0.0.1", "X-Forwarded-For", "203.0.113.9")))
                .as("a client on the Internet, through the proxy")
                .isEmpty();
        assertThat(behindTrusted.status(
                        relayed("/leapgate/status", "127.0.0.1", "X-Forwarded-For", "127.0.0.1, 203.0.113.9")))
                .as("that forges this machine's address before the proxy's entry")
                .isEmpty();
        assertThat(behindTrusted.status(relayed("/leapgate/status", "127.0.0.1", "X-Forwarded-For", "127.0.0.1")))
                .as("a browser on this machine, through the proxy")
                .isPresent();
        assertThat(behindTrusted.status(relayed("/leapgate/status", "127.0.0.1")))
                .as("not relayed")
                .isPresent();
        assertThat(behindTrusted.status(relayed("/leapgate/status", "127.0.0.1", "X-Real-IP", "203.0.113.9")))
                .as("relayed by a trusted proxy that names the client only in a header not believed")
                .isEmpty();

        HttpGate noTrusted = gate("status-path", "/leapgate/status");
        for (String[] relay : new String[][] {
            {"X-Forwarded-For", "203.0.113.9"}, {"Forwarded", "for=203.0.113.9"}, {"X-Real-IP", "203.0.113.9"}
        }) {
            assertThat(noTrusted.status(relayed("/leapgate/status", "127.0.0.1", relay)))
                    .as("relayed by a proxy that is not trusted to say for whom: %s", relay[0])
                    .isEmpty();
        }
        assertThat(noTrusted.status(relayed("/leapgate/status", "127.0.0.1", "X-Forwarded-For", " ")))
                .as("a blank field relays nothing")
                .isPresent();
    }

    /**
     * A trusted proxy on an allowed address that names no client (unknown, obfuscated, a unix
     * socket behind another proxy) gave every client it relays the status: the resolver fell back
     * to the proxy's own address, 127.0.0.1. Found by a review helper.
     */
    @Test
    void throughATrustedProxyThatNamesNoClient_noOneGetsTheStatus() {
        HttpGate rfc7239 = gate(
                "status-path", "/leapgate/status",
                "trusted-proxies", "127.0.0.1",
                "forwarded-header", "forwarded");
        for (String value : new String[] {"for=unknown", "for=_hidden", "for=\"unix:/run/nginx.sock\"", "by=x", ","}) {
            assertThat(rfc7239.status(relayed("/leapgate/status", "127.0.0.1", "Forwarded", value)))
                    .as(value)
                    .isEmpty();
        }
        assertThat(rfc7239.status(relayed("/leapgate/status", "127.0.0.1", "Forwarded", "for=127.0.0.1")))
                .as("a browser on this machine, named")
                .isPresent();
        HttpGate xff = gate("status-path", "/leapgate/status", "trusted-proxies", "127.0.0.1");
        for (String value : new String[] {"unknown", "unix:", "_hidden", "203.0.113.9, unknown"}) {
            assertThat(xff.status(relayed("/leapgate/status", "127.0.0.1", "X-Forwarded-For", value)))
                    .as(value)
                    .isEmpty();
        }
    }

    /**
     * DNS rebinding: a page from another site points its own host name at an allowed address (this
     * machine, by default) and reads the status through the visitor's browser, which still names
     * the site's host in Host. Only IP addresses, localhost and the names in status-hosts get it.
     */
    @Test
    void aRequestForAnotherHostName_asADnsRebindingPageSendsIt_doesNotGetTheStatus() {
        HttpGate gate = gate("rule.api.match", "/**", "rule.api.limit", "3/1m", "status-path", "/status");
        for (String host :
                List.of("127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST.:8080", "[::1]:8080", "[::1]")) {
            assertThat(gate.status(relayed("/status", "127.0.0.1", "Host", host)))
                    .as(host)
                    .isPresent();
        }
        for (String host : List.of(
                "attacker.example",
                "attacker.example:8080",
                "127.0.0.1.attacker.example",
                "localhost.attacker.example",
                "::1",
                "[::1",
                "[::1]attacker.example",
                "[::1]@attacker.example",
                "[::1]:",
                "localhost:attacker",
                "127.0.0.1:80x",
                "localhost:123456",
                "")) {
            assertThat(gate.status(relayed("/status", "127.0.0.1", "Host", host)))
                    .as("Host: %s", host)
                    .isEmpty();
        }
        assertThat(gate.status(relayed("/status", "127.0.0.1")))
                .as("no Host (HTTP/1.0)")
                .isPresent();
        assertThat(gate.status(relayed("/status", "127.0.0.1", "Host", "127.0.0.1", "Host", "attacker.example")))
                .as("two Host fields, an allowed one first")
                .isEmpty();

        HttpGate named = gate(
                "rule.api.match",
                "/**",
                "rule.api.limit",
                "3/1m",
                "status-path",
                "/status",
                "status-hosts",
                "ops.example, Status.Internal.");
        assertThat(named.status(relayed("/status", "127.0.0.1", "Host", "OPS.example:443")))
                .isPresent();
        assertThat(named.status(relayed("/status", "127.0.0.1", "Host", "status.internal")))
                .isPresent();
        assertThat(named.status(relayed("/status", "127.0.0.1", "Host", "attacker.example")))
                .isEmpty();
        HttpGate any =
                gate("rule.api.match", "/**", "rule.api.limit", "3/1m", "status-path", "/status", "status-hosts", "*");
        assertThat(any.status(relayed("/status", "127.0.0.1", "Host", "attacker.example")))
                .isPresent();
    }

    @Test
    void withoutAStatusPath_noRequestGetsTheStatus_andByDefaultOnlyThisMachineDoes() {
        assertThat(gate("rule.api.match", "/**", "rule.api.limit", "3/1m")
                        .status(request("GET", "/leapgate/status", "127.0.0.1")))
                .isEmpty();
        HttpGate gate = gate("rule.api.match", "/**", "rule.api.limit", "3/1m", "status-path", "/status");
        assertThat(gate.status(request("GET", "/status", "127.0.0.1"))).isPresent();
        assertThat(gate.status(request("GET", "/status", "::1"))).isPresent();
        assertThat(gate.status(request("GET", "/status", "10.0.0.1"))).isEmpty();
    }

    @Test
    void theBody_cannotBeChangedThroughTheResponse_forTheNextRequestOrAnotherGate() {
        HttpGate gate = gate("rule.api.match", "/**", "rule.api.limit", "3/1m", "status-path", "/status");
        HttpGate other = gate("rule.b.match", "/b", "rule.b.limit", "3/1m", "status-path", "/status");
        HttpRequestView browser = request("GET", "/status", "127.0.0.1", "text/html");
        StatusResponse first = gate.status(browser).orElseThrow();
        String page = first.text();

        java.util.Arrays.fill(first.body(), (byte) 'x');

        assertThat(first.text()).isEqualTo(page);
        assertThat(gate.status(browser).orElseThrow().text()).isEqualTo(page);
        assertThat(other.status(browser).orElseThrow().text()).isEqualTo(page);
        assertThat(gate.status(browser).orElseThrow()).isEqualTo(first).hasSameHashCodeAs(first);

        byte[] given = "{}".getBytes(StandardCharsets.UTF_8);
        StatusResponse made = new StatusResponse(Map.of(), "application/json", given);
        given[0] = 'x';
        assertThat(made.text()).isEqualTo("{}");
        assertThat(made.toString()).isEqualTo("StatusResponse[headers={}, contentType=application/json, body=2 bytes]");
    }

    @Test
    void aBrowser_getsTheLivePage_withAPolicyThatAllowsOnlyItsOwnStyleAndScript() throws Exception {
        HttpGate gate = gate("rule.api.match", "/**", "rule.api.limit", "3/1m", "status-path", "/status");

        StatusResponse page = gate.status(request(
                        "GET",
                        "/status",
                        "127.0.0.1",
                        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"))
                .orElseThrow();
        StatusResponse json = gate.status(request("GET", "/status", "127.0.0.1", "application/json"))
                .orElseThrow();

        assertThat(page.contentType()).isEqualTo("text/html;charset=utf-8");
        assertThat(page.text()).contains("<title>Leapgate status</title>").doesNotContain("src=\"http");
        String html = page.text();
        String script = html.substring(html.indexOf("<script>") + 8, html.indexOf("</script>"));
        String style = html.substring(html.indexOf("<style>") + 7, html.indexOf("</style>"));
        assertThat(page.headers())
                .containsEntry("Cache-Control", "no-store")
                .containsEntry("X-Content-Type-Options", "nosniff")
                .containsEntry(
                        "Content-Security-Policy",
                        "default-src 'none'; script-src 'sha256-" + sha256(script) + "'; style-src 'sha256-"
                                + sha256(style) + "'; connect-src 'self'; img-src data:; base-uri 'none';"
                                + " form-action 'none'; frame-ancestors 'none'");
        assertThat(json.contentType()).as("what the page itself asks for").isEqualTo("application/json");
        assertThat(json.text()).startsWith("{\"rules\":[");
    }

    /**
     * A browser hashes an inline script or style as the HTML parser leaves it, every CR LF and lone
     * CR made a LF. Git for Windows checks a text file out with CR LF by default (core.autocrlf),
     * and a jar built from such a checkout carries the page so: its policy must still allow its
     * script and style, or the page stays at "loading…".
     */
    @Test
    void thePagesPolicy_allowsItsScriptAndStyle_asABrowserReadsThem_whateverItsLineBreaks() throws Exception {
        String html = "<!DOCTYPE html>\r\n<html><head><style>\r\nbody { margin: 0; }\r\n</style></head>\r\n"
                + "<body><script>\r\n'use strict';\r\nconsole.log(1);\r\r</script></body></html>\r\n";

        StatusResponse page = StatusResponse.page(html);

        assertThat(page.headers().get("Content-Security-Policy"))
                .contains("script-src 'sha256-" + sha256("\n'use strict';\nconsole.log(1);\n\n") + "'")
                .contains("style-src 'sha256-" + sha256("\nbody { margin: 0; }\n") + "'");
        assertThat(page.text()).as("the page as hashed").doesNotContain("\r");
    }

    private static String sha256(String text) throws Exception {
        return java.util.Base64.getEncoder()
                .encodeToString(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Test
    void aPacedRule_saysHowManyRequestsWaitNow_andHowLongTheyWaited() throws Exception {
        HeldSleeper sleeper = new HeldSleeper(clock);
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of(
                                "rule.paced.match", "/slow",
                                "rule.paced.limit", "10/1s",
                                "rule.paced.on-excess", "pace",
                                "rule.quick.match", "/quick",
                                "rule.quick.limit", "10/1s"),
                        "test"))
                .clock(clock)
                .sleeper(sleeper)
                .build();
        ((Entry) gate.enter("GET", "/slow", ip("203.0.113.1"))).close(); // its turn at once
        // 100 ms later, on a thread of its own: what it decides (or throws) comes back through the future.
        CompletableFuture<Decision> waiter = CompletableFuture.supplyAsync(
                () -> gate.enter("GET", "/slow", ip("203.0.113.1")), task -> new Thread(task, "waiter").start());
        try {
            sleeper.awaitAsleep();

            assertThat(gate.waits("paced")).get().satisfies(w -> {
                assertThat(w.waitingNow()).isEqualTo(1);
                assertThat(w.waited()).isZero();
            });
            assertThat(gate.statusJson())
                    .contains("\"mode\":\"enforce\"," + NO_REJECTIONS + ",\"waiting\":1,\"waited\":0}");
        } finally {
            sleeper.wake(); // never leave the waiter asleep, even when an assertion failed
        }
        assertThat(waiter.get(10, TimeUnit.SECONDS))
                .as("admitted after its wait")
                .isInstanceOf(Entry.class);
        ((Entry) waiter.get()).close();

        assertThat(gate.waits("paced")).get().satisfies(w -> {
            assertThat(w.waitingNow()).isZero();
            assertThat(w.waited()).isEqualTo(1);
            assertThat(w.averageWaitMillis()).isEqualTo(100.0);
        });
        assertThat(gate.statusJson()).contains("\"waiting\":0,\"waited\":1,\"averageWaitMillis\":100}");
        assertThat(gate.waits("quick"))
                .as("a rule that rejects its excess never makes one wait")
                .isEmpty();
        assertThat(gate.waits("no-such-rule")).isEmpty();
    }

    @Test
    void limitedClients_areThoseAtTheirLimitNow() {
        HttpGate gate = gate(
                "rule.api.match", "/api/**",
                "rule.api.limit", "2/1m",
                "rule.api.scope", "per-origin",
                "rule.slots.match", "/export",
                "rule.slots.in-flight", "2",
                "rule.slots.scope", "per-origin");
        for (int c = 1; c <= 5; c++) {
            for (int i = 0; i < c; i++) {
                gate.enter("GET", "/api/x", ip("203.0.113." + c)); // clients 2 to 5 reach 2 of 2
            }
        }
        Entry first = (Entry) gate.enter("GET", "/export", ip("198.51.100.1"));
        gate.enter("GET", "/export", ip("198.51.100.1"));
        gate.enter("GET", "/export", ip("198.51.100.2")); // one of two: not at its limit

        assertThat(gate.limitedOrigins("api")).hasValue(4);
        assertThat(gate.limitedOrigins("slots")).hasValue(1);
        first.close();
        assertThat(gate.limitedOrigins("slots")).hasValue(0);
        clock.advance(Duration.ofSeconds(65)); // strict: the first 6 s bucket leaves the window at 66 s
        assertThat(gate.limitedOrigins("api")).hasValue(4);
        clock.advance(Duration.ofSeconds(1));
        assertThat(gate.limitedOrigins("api")).as("the window moved on").hasValue(0);
        assertThat(gate.limitedOrigins("no-such-rule")).isEmpty();
    }

    @Test
    void limitedClients_afterAReloadThatChangesTheWindow_countTheClientsStillAtTheirLimit() {
        HttpGate gate = gate("rule.api.match", "/api/**", "rule.api.limit", "5/10s", "rule.api.scope", "per-origin");
        for (int c = 1; c <= 3; c++) {
            for (int i = 0; i < 6; i++) {
                gate.enter("GET", "/api/x", ip("203.0.113." + c)); // 5 admitted, the sixth rejected
            }
        }
        gate.enter("GET", "/api/x", ip("203.0.113.9")); // 1 of 5
        assertThat(gate.limitedOrigins("api")).hasValue(3);
        assertThat(gate.trackedOrigins("api")).hasValue(4);

        // Another window: a new table, which takes each client over when it is next seen.
        gate.update(RuleSet.of(FlowRule.builder("api")
                .match("/api/**")
                .limit(5, WindowSpec.of(Duration.ofSeconds(20), 10))
                .scope(Scope.perOrigin())
                .build()));
        clock.advance(Duration.ofSeconds(1));

        assertThat(gate.limitedOrigins("api")).as("no client came back yet").hasValue(3);
        assertThat(gate.statusJson())
                .contains("\"limitedClients\":3,")
                .contains("\"rejectedMost\":[{\"client\":\"203.0.113.");
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.1")))
                .as("the status is right: the client is still at its limit")
                .isInstanceOf(Rejection.class);
        assertThat(gate.limitedOrigins("api"))
                .as("one taken over, two still to be")
                .hasValue(3);
        assertThat(gate.stats("/api/**").orElseThrow().totals().admitted())
                .as("the resource's statistics go on across the reload")
                .isEqualTo(16);
        assertThat(gate.stats("/api/**").orElseThrow().totals().rejected()).isEqualTo(4);

        clock.advance(Duration.ofSeconds(24));
        assertThat(gate.limitedOrigins("api")).as("25 s: past both windows").hasValue(0);
    }

    @Test
    void theJson_duringAReload_showsTheRulesAndTheResourcesOfOneVersion() {
        AtomicReference<Runnable> onClockRead = new AtomicReference<>();
        Clock hooked = () -> {
            Runnable reload = onClockRead.getAndSet(null);
            if (reload != null) {
                reload.run();
            }
            return clock.nanoTime();
        };
        HttpGate gate = HttpGate.builder(
                        ConfigParser.parse(Map.of("rule.old.match", "/old/**", "rule.old.limit", "5/1m"), "test"))
                .clock(hooked)
                .build();
        ((Entry) gate.enter("GET", "/old/x", ip("203.0.113.7"))).close();
        // A reload on another thread, landing between the status's reading of the rules and of
        // the resources (statusJson reads the clock between the two).
        onClockRead.set(() -> gate.update(RuleSet.of(FlowRule.builder("new")
                .match("/new/**")
                .limit(5, WindowSpec.of(Duration.ofMinutes(1), 10))
                .build())));

        String json = gate.statusJson();

        assertThat(onClockRead.get()).as("the reload ran").isNull();
        assertThat(json)
                .contains("\"rules\":[{\"name\":\"old\",\"resource\":\"/old/**\"")
                .contains("\"resources\":[{\"resource\":\"/old/**\"")
                .doesNotContain("/new/**");
    }

    @Test
    void aRuleAddedByAReload_countsItsRejectionsInTheSecondsOfItsResource() {
        HttpGate gate = gate("rule.wide.match", "/api/**", "rule.wide.limit", "100/1m");
        clock.advance(Duration.ofMillis(500));
        gate.update(RuleSet.of(
                gate.rules().rules().get(0),
                FlowRule.builder("tight")
                        .match("/api/**")
                        .limit(1, WindowSpec.of(Duration.ofMinutes(1), 10))
                        .build()));
        clock.advance(Duration.ofMillis(700)); // 1.2 s: in the second second of the resource
        ((Entry) gate.enter("GET", "/api/x", ip("203.0.113.7"))).close();
        assertThat(gate.enter("GET", "/api/x", ip("203.0.113.7"))).isInstanceOf(Rejection.class);
        clock.advance(Duration.ofMillis(500)); // 1.7 s: the rejection's second is not over
        assertThat(rejectedBySecond(gate, "tight"))
                .as("the rule's seconds are its resource's")
                .containsExactly(resourceRejectedBySecond(gate))
                .containsOnly(0);

        clock.advance(Duration.ofMillis(400)); // 2.1 s: now it is
        long[] resource = resourceRejectedBySecond(gate);
        assertThat(resource[59]).as("the resource's second from 1 to 2 s").isEqualTo(1);
        assertThat(rejectedBySecond(gate, "tight")).containsExactly(resource);
    }

    private static long[] resourceRejectedBySecond(HttpGate gate) {
        return gate.stats("/api/**").orElseThrow().lastMinuteBySecond().stream()
                .mapToLong(StatsSnapshot::rejected)
                .toArray();
    }

    private static long[] rejectedBySecond(HttpGate gate, String rule) {
        String json = gate.statusJson();
        String series =
                json.substring(json.indexOf("\"rejectedBySecond\":[", json.indexOf("\"name\":\"" + rule + "\"")));
        return Arrays.stream(series.substring(series.indexOf('[') + 1, series.indexOf(']'))
                        .split(","))
                .mapToLong(Long::parseLong)
                .toArray();
    }

    @Test
    void theClientsRejectedMost_areThoseOfTheLastMinuteOrTwo() {
        HttpGate gate = gate("rule.api.match", "/**", "rule.api.limit", "1/1h", "rule.api.scope", "per-origin");
        for (int i = 0; i < 4; i++) {
            gate.enter("GET", "/x", ip("203.0.113.1"));
        }
        clock.advance(Duration.ofSeconds(70)); // a new minute
        for (int i = 0; i < 6; i++) {
            gate.enter("GET", "/x", ip("203.0.113.2"));
        }
        gate.enter("GET", "/x", ip("203.0.113.1"));

        assertThat(gate.statusJson())
                .contains("\"rejectedMost\":[{\"client\":\"203.0.113.2\",\"about\":5},{\"client\":\"203.0.113.1\","
                        + "\"about\":4}]");
        clock.advance(Duration.ofSeconds(70)); // the first minute is over two minutes old
        gate.enter("GET", "/x", ip("203.0.113.2"));
        assertThat(gate.statusJson())
                .contains("\"rejectedMost\":[{\"client\":\"203.0.113.2\",\"about\":6},{\"client\":\"203.0.113.1\","
                        + "\"about\":1}]");
    }

    /**
     * A client's identifier (a principal, a header shown as sent) is its own text, and the README
     * has operators read the JSON with curl in a terminal: what the rejection log writes as escapes
     * (C1 controls such as CSI, DEL, bidi and other format characters, line and paragraph
     * separators, spaces other than a space) is written as JSON escapes, the same string to a
     * parser, never as raw characters that a terminal acts on.
     */
    @Test
    void aClientsIdentifier_inTheJson_holdsNoCharacterATerminalActsOn() {
        HttpGate gate = gate("rule.api.match", "/**", "rule.api.limit", "1/1h", "rule.api.scope", "per-origin");
        String id = "u\u009b2J\u001b]0;pwned\u0007\u007f\u202e\u2028\u00a0\u200b\ufeffend";
        for (int i = 0; i < 2; i++) {
            gate.enter("GET", "/x", Origin.id(id));
        }

        String json = gate.statusJson();
        assertThat(json)
                .contains("\"rejectedMost\":[{\"client\":\"u\\u009b2J\\u001b]0;pwned\\u0007\\u007f\\u202e\\u2028"
                        + "\\u00a0\\u200b\\ufeffend\",\"about\":1}]");
        assertThat(json.chars().filter(c -> c < 0x20 || (c >= 0x7f && c <= 0x9f) || c > 0x7e))
                .as("only printable ASCII in the JSON")
                .isEmpty();
    }

    /**
     * A format character beyond the BMP (a tag character such as U+E0041, which shows nothing) is two
     * UTF-16 units, neither of them a format character by itself: it is written as escapes all the
     * same. Half of a surrogate pair alone, which UTF-8 cannot carry (the body would say {@code ?},
     * as for any other such client), is written as its escape too.
     */
    @Test
    void aClientsIdentifier_withAnInvisibleCharacterBeyondTheBmp_orHalfAPair_isWrittenAsEscapes() {
        HttpGate gate = gate(
                "rule.api.match",
                "/**",
                "rule.api.limit",
                "1/1h",
                "rule.api.scope",
                "per-origin",
                "status-path",
                "/leapgate/status");
        for (String id : new String[] {"admin\udb40\udc41", "bob\ud800", "carol\udc00x"}) {
            for (int i = 0; i < 2; i++) {
                gate.enter("GET", "/x", Origin.id(id));
            }
        }

        String sent = gate.status(request("GET", "/leapgate/status", "127.0.0.1"))
                .orElseThrow()
                .text();
        assertThat(sent)
                .contains("{\"client\":\"admin\\udb40\\udc41\",\"about\":1}")
                .contains("{\"client\":\"bob\\ud800\",\"about\":1}")
                .contains("{\"client\":\"carol\\udc00x\",\"about\":1}");
        assertThat(sent.chars().filter(c -> c < 0x20 || c > 0x7e))
                .as("only printable ASCII in the JSON")
                .isEmpty();
    }

    /** An API key is a credential: the status names a header origin by its fingerprint, unless shown as sent. */
    @Test
    void theClientsRejectedMost_byAHeader_areFingerprints_unlessShownAsSent() {
        for (String shown : new String[] {"fingerprint", "as-sent"}) { // fingerprint: the default
            HttpGate gate = gate(
                    "origin",
                    "header:X-Api-Key",
                    // the fingerprint by default: then a setting that changes nothing takes the place
                    shown.equals("as-sent") ? "header-origin-shown" : "rejection-log",
                    shown.equals("as-sent") ? "as-sent" : "10s",
                    "rule.api.match",
                    "/**",
                    "rule.api.limit",
                    "1/1h",
                    "rule.api.scope",
                    "per-origin");
            for (int i = 0; i < 3; i++) {
                gate.enter(HttpGateTest.Request.of("GET", "/x", "203.0.113.1", "X-Api-Key", "k-1f0e2d3c4b5a"));
            }

            // printf %s k-1f0e2d3c4b5a | sha256sum | cut -c1-12
            String client = shown.equals("as-sent") ? "k-1f0e2d3c4b5a" : "sha256:7b1976ad0b1e";
            assertThat(gate.statusJson())
                    .as(shown)
                    .contains("\"rejectedMost\":[{\"client\":\"" + client + "\",\"about\":2}]");
            if (!shown.equals("as-sent")) {
                assertThat(gate.statusJson()).doesNotContain("k-1f0e2d3c4b5a");
            }
        }
    }

    @Test
    void theRulesFile_saysWhenItWasLastApplied_andWhyTheLastChangeWasRejected(@TempDir Path dir) throws Exception {
        Path rules = dir.resolve("rules.properties");
        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = 2/1h\n");
        HttpGate gate = gate("rules-file", rules.toString(), "reload-interval", "0s");
        assertThat(gate.statusJson())
                .contains(",\"appliedReloads\":0,\"rejectedReloads\":0}")
                .doesNotContain("lastApplied")
                .doesNotContain("lastError");

        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = 3/1h\n");
        gate.rulesFile().orElseThrow().reload();
        assertThat(gate.statusJson())
                .containsPattern(",\"appliedReloads\":1,\"rejectedReloads\":0,\"lastApplied\":\"20\\d\\d-[^\"]+Z\"}")
                .doesNotContain("lastError");

        Files.writeString(rules, "rule.api.match = /api/**\nrule.api.limit = lots\n");
        assertThatThrownBy(() -> gate.rulesFile().orElseThrow().reload()).isInstanceOf(ConfigException.class);
        assertThat(gate.statusJson())
                .contains(",\"appliedReloads\":1,\"rejectedReloads\":1,\"lastApplied\":")
                .containsPattern("\"lastError\":\"1 problem in [^\"]*rules.properties:\\\\n[^\"]*lots")
                .contains("\"limit\":3");
    }
}
