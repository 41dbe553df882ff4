package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.Rejection;
import dev.leapgate.Sleeper;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.LeapgateConfig;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HttpGateTest {

    private final ManualClock clock = new ManualClock();

    /** A request; headers given as name, value pairs. */
    record Request(
            String method, String rawPath, String remoteAddr, String principal, Map<String, List<String>> headerMap)
            implements HttpRequestView {

        static Request of(String method, String rawPath, String remoteAddr, String... headers) {
            Map<String, List<String>> map = new HashMap<>();
            for (int i = 0; i < headers.length; i += 2) {
                map.put(headers[i].toLowerCase(), List.of(headers[i + 1]));
            }
            return new Request(method, rawPath, remoteAddr, null, map);
        }

        @Override
        public List<String> headers(String name) {
            return headerMap.getOrDefault(name.toLowerCase(), List.of());
        }
    }

    private HttpGate gate(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        LeapgateConfig config = ConfigParser.parse(settings, "test");
        return HttpGate.builder(config).clock(clock).build();
    }

    @Test
    void builderSettersCalledTwice_areRefused_notTheFirstValueSilentlyReplaced() {
        LeapgateConfig config = ConfigParser.parse(Map.of("rules", "none"), "test");
        ManualClock other = new ManualClock();
        assertThatThrownBy(() -> HttpGate.builder(config).clock(clock).clock(other))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("clock was already set to " + clock);
        Sleeper sleeper = nanos -> {};
        assertThatThrownBy(() -> HttpGate.builder(config).sleeper(sleeper).sleeper(Sleeper.system()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("sleeper was already set to " + sleeper);
    }

    @Test
    void perIpLimit_behindATrustedProxy_countsTheClientNotTheProxy() {
        HttpGate gate = gate(
                "trusted-proxies", "10.0.0.0/8",
                "rule.login.match", "POST /login",
                "rule.login.limit", "1/1m",
                "rule.login.scope", "per-origin");

        assertThat(gate.enter(Request.of("POST", "/login", "10.0.0.5", "X-Forwarded-For", "203.0.113.1"))
                        .admitted())
                .isTrue();
        assertThat(gate.enter(Request.of("POST", "/login", "10.0.0.6", "X-Forwarded-For", "203.0.113.1"))
                        .admitted())
                .as("same client through another proxy")
                .isFalse();
        assertThat(gate.enter(Request.of("POST", "/login", "10.0.0.5", "X-Forwarded-For", "203.0.113.2"))
                        .admitted())
                .isTrue();
    }

    /**
     * A server reached through a stateless translator (SIIT-DC, RFC 7755) with the well-known prefix
     * sees each IPv4 client as 64:ff9b::a.b.c.d (RFC 6052): one /64 for every IPv4 client there is.
     */
    @Test
    void ipv4ClientsInTheNat64WellKnownPrefix_areCountedOnePerIpv4Address() {
        HttpGate gate = gate(
                "rule.login.match", "POST /login",
                "rule.login.limit", "1/1m",
                "rule.login.scope", "per-origin");

        assertThat(gate.enter(Request.of("POST", "/login", "64:ff9b::198.51.100.1"))
                        .admitted())
                .isTrue();
        assertThat(gate.enter(Request.of("POST", "/login", "64:ff9b::203.0.113.2"))
                        .admitted())
                .as("another IPv4 host behind the translator is another client")
                .isTrue();
        assertThat(gate.enter(Request.of("POST", "/login", "64:ff9b::c633:6401"))
                        .admitted())
                .as("198.51.100.1 again, however it is written")
                .isFalse();
    }

    /**
     * A rule for one address compared the address with an identifier's text too: with a header or
     * principal origin, a key or user name "203.0.113.7" spent that address's window. Found by a
     * review helper.
     */
    @Test
    void aRuleForOneAddress_withAHeaderOrPrincipalOrigin_countsThatAddressOnly_notAnIdentifierWrittenSo() {
        for (String origin : new String[] {"header:X-Api-Key", "principal"}) {
            HttpGate gate = gate(
                    "origin", origin,
                    "rule.partner.match", "/api/**",
                    "rule.partner.limit", "2/1m",
                    "rule.partner.scope", "origin:203.0.113.7",
                    "rule.key.match", "/key/**",
                    "rule.key.limit", "1/1m",
                    "rule.key.scope", "origin:k-1");
            HttpRequestView spelledAsTheAddress = origin.equals("principal")
                    ? new Request("GET", "/api/x", "198.51.100.66", "203.0.113.7", Map.of())
                    : Request.of("GET", "/api/x", "198.51.100.66", "X-Api-Key", "203.0.113.7");
            for (int i = 0; i < 3; i++) {
                assertThat(gate.enter(spelledAsTheAddress).admitted())
                        .as("%s: an identifier written as the address is another client", origin)
                        .isTrue();
            }
            assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.7")).admitted())
                    .isTrue();
            assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.7")).admitted())
                    .isTrue();
            assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.7")).admitted())
                    .as("%s: the address, counted by its address", origin)
                    .isFalse();
            HttpRequestView named = origin.equals("principal")
                    ? new Request("GET", "/key/x", "198.51.100.66", "k-1", Map.of())
                    : Request.of("GET", "/key/x", "198.51.100.66", "X-Api-Key", "k-1");
            assertThat(gate.enter(named).admitted()).isTrue();
            assertThat(gate.enter(named).admitted())
                    .as("%s: a rule for an identifier still counts it", origin)
                    .isFalse();
        }
    }

    /**
     * A translator with a prefix of the operator's (nat64-prefixes) or in the fixed forms
     * ::ffff:0:a.b.c.d and ::a.b.c.d wrote every IPv4 client into one /64: one abusive IPv4 host
     * exhausted a per-client limit for all of them. Found by a review helper.
     */
    @Test
    void ipv4ClientsInTheOperatorsNat64PrefixAndTheFixedForms_areCountedOnePerIpv4Address() {
        HttpGate gate = gate(
                "nat64-prefixes", "64:ff9b:1::/96",
                "rule.login.match", "POST /login",
                "rule.login.limit", "1/1m",
                "rule.login.scope", "per-origin");

        for (String[] pair : new String[][] {
            {"64:ff9b:1::203.0.113.7", "64:ff9b:1::198.51.100.1"},
            {"::ffff:0:203.0.113.8", "::ffff:0:198.51.100.2"},
            {"::203.0.113.9", "::198.51.100.3"}
        }) {
            assertThat(gate.enter(Request.of("POST", "/login", pair[0])).admitted())
                    .isTrue();
            assertThat(gate.enter(Request.of("POST", "/login", pair[1])).admitted())
                    .as("%s is another IPv4 host than %s", pair[1], pair[0])
                    .isTrue();
            assertThat(gate.enter(Request.of("POST", "/login", pair[0])).admitted())
                    .as("%s again", pair[0])
                    .isFalse();
        }
        assertThat(gate.enter(Request.of("POST", "/login", "198.51.100.1")).admitted())
                .as("the IPv4 host of 64:ff9b:1::198.51.100.1, written as IPv4")
                .isFalse();
        assertThat(gate("nat64-prefixes", "64:ff9b:1::/96", "deny", "64:ff9b:1::198.51.100.1")
                        .warnings())
                .as("one IPv4 client, not one address of an IPv6 client's /64")
                .isEmpty();
    }

    /**
     * deny and exempt match a client behind a NAT64 translator by the address as written
     * (64:ff9b::c633:6401); the status named it by the IPv4 address it embeds, so that the deny an
     * operator wrote from the status (198.51.100.1) never matched it.
     */
    @Test
    void aNat64WrittenClient_namedByTheStatus_isDeniedByThatName() {
        HttpGate gate = gate(
                "rule.login.match", "POST /login",
                "rule.login.limit", "1/1m",
                "rule.login.scope", "per-origin");
        gate.enter(Request.of("POST", "/login", "64:ff9b::198.51.100.1"));
        gate.enter(Request.of("POST", "/login", "64:ff9b::198.51.100.1"));
        String status = gate.statusJson();
        String marker = "\"rejectedMost\":[{\"client\":\"";
        int at = status.indexOf(marker) + marker.length();
        String named = status.substring(at, status.indexOf('"', at));

        gate.update(ConfigParser.parseRules("rules = none\ndeny = " + named, "rules.properties"));

        assertThat(gate.enter(Request.of("GET", "/x", "64:ff9b::198.51.100.1")).admitted())
                .as("the client the status names %s, denied by that name", named)
                .isFalse();
    }

    @Test
    void forgedForwardingHeader_fromAnUntrustedPeer_getsNoExtraQuota() {
        HttpGate gate = gate(
                "trusted-proxies", "10.0.0.0/8",
                "rule.login.match", "POST /login",
                "rule.login.limit", "1/1m",
                "rule.login.scope", "per-origin");
        gate.enter(Request.of("POST", "/login", "198.51.100.7"));

        Decision forged = gate.enter(Request.of("POST", "/login", "198.51.100.7", "X-Forwarded-For", "203.0.113.99"));

        assertThat(forged.admitted()).isFalse();
    }

    @Test
    void pathSpellings_areOneResource() {
        HttpGate gate = gate("rule.admin.match", "/admin/**", "rule.admin.limit", "2/1m");

        gate.enter(Request.of("GET", "/admin/users", "203.0.113.1"));
        gate.enter(Request.of("GET", "//static/../admin;x=1/%75sers", "203.0.113.1"));

        assertThat(gate.enter(Request.of("GET", "/%61dmin", "203.0.113.1")).admitted())
                .isFalse();
    }

    @Test
    void aMethodSpelledInAnotherCase_countsAgainstTheRuleForIt() {
        // Apache CXF serves get, Get and head with a resource method annotated @GET.
        HttpGate gate = gate("rule.users.match", "GET /users/{id}", "rule.users.limit", "2/1m");

        assertThat(gate.enter(Request.of("get", "/users/1", "203.0.113.1")).admitted())
                .isTrue();
        assertThat(gate.enter(Request.of("head", "/users/2", "203.0.113.1")).admitted())
                .isTrue();
        assertThat(gate.enter(Request.of("Get", "/users/3", "203.0.113.1")).admitted())
                .isFalse();
        assertThat(gate.enter(Request.of("GET", "/users/3", "203.0.113.1")).admitted())
                .isFalse();
        assertThat(gate.enter(Request.of("post", "/users/3", "203.0.113.1")).admitted())
                .as("another method")
                .isTrue();
    }

    @Test
    void requestMatchingNoRule_neverLooksAtTheClient() {
        HttpGate gate = gate("rule.api.match", "/api/**", "rule.api.limit", "1/1s");
        HttpRequestView untouchable = new HttpRequestView() {
            public String method() {
                return "GET";
            }

            public String rawPath() {
                return "/static/app.js";
            }

            public String remoteAddr() {
                throw new AssertionError("origin resolved for a request no rule applies to");
            }

            public List<String> headers(String name) {
                throw new AssertionError("headers read for a request no rule applies to");
            }

            public String principal() {
                throw new AssertionError("principal read for a request no rule applies to");
            }
        };

        Decision d = gate.enter(untouchable);

        assertThat(d.admitted()).isTrue();
        assertThat(d.quotas()).isEmpty();
    }

    @Test
    void withoutTrustedProxies_forwardingHeadersAreNeverRead() {
        HttpGate gate = gate("rule.api.match", "/api/**", "rule.api.limit", "1/1s", "rule.api.scope", "per-origin");
        HttpRequestView noHeaders = new HttpRequestView() {
            public String method() {
                return "GET";
            }

            public String rawPath() {
                return "/api/x";
            }

            public String remoteAddr() {
                return "203.0.113.1";
            }

            public List<String> headers(String name) {
                throw new AssertionError("read " + name + " though no proxy is trusted");
            }

            public String principal() {
                return null;
            }
        };

        assertThat(gate.originOf(noHeaders).id()).isEqualTo("203.0.113.1");
        assertThat(gate.enter(noHeaders).admitted()).isTrue();
    }

    @Test
    void headerOrigin_countsPerApiKey_andFallsBackToTheIp() {
        HttpGate gate = gate(
                "origin", "header:X-Api-Key",
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1m",
                "rule.api.scope", "per-origin");

        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1", "X-Api-Key", "alpha"))
                        .admitted())
                .isTrue();
        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.2", "X-Api-Key", "alpha"))
                        .admitted())
                .isFalse();
        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1", "X-Api-Key", "beta"))
                        .admitted())
                .isTrue();
        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1")).admitted())
                .as("no key: counted by IP")
                .isTrue();
        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1")).admitted())
                .isFalse();
    }

    /**
     * The scheme of Authorization is case-insensitive, and servers accept blanks after it: each
     * spelling of one bearer token (64 for Bearer) was a client of its own, each with the limit.
     * The token itself is compared as sent.
     */
    @Test
    void authorizationOrigin_countsOneTokenOnce_howeverItsSchemeIsSpelled() {
        HttpGate gate = gate(
                "origin", "header:Authorization",
                "rule.api.match", "/api/**",
                "rule.api.limit", "2/1m",
                "rule.api.scope", "per-origin");

        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1", "Authorization", "Bearer t0ken"))
                        .admitted())
                .isTrue();
        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.2", "Authorization", "bEARER \t t0ken"))
                        .admitted())
                .isTrue();
        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.3", "Authorization", "BEARER t0ken"))
                        .admitted())
                .as("the same token")
                .isFalse();
        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.3", "Authorization", "Bearer T0KEN"))
                        .admitted())
                .as("another token")
                .isTrue();
        assertThat(HttpGate.credentials("Basic  YWxhZGRpbjpvcGVuc2VzYW1l")).isEqualTo("basic YWxhZGRpbjpvcGVuc2VzYW1l");
        // user:pass1, as Base64 with its padding, without it, and with other bits after the last byte
        for (String spelling :
                new String[] {"dXNlcjpwYXNzMQ==", "dXNlcjpwYXNzMQ", "dXNlcjpwYXNzMR==", "dXNlcjpwYXNzMf"}) {
            assertThat(HttpGate.credentials("Basic " + spelling)).isEqualTo("basic dXNlcjpwYXNzMQ==");
        }
        assertThat(HttpGate.credentials("Basic not*base64")).isEqualTo("basic not*base64");
        assertThat(HttpGate.credentials("t0ken")).isEqualTo("t0ken");
    }

    /** A denied network is refused whatever key a client sends; the keys themselves still count apart. */
    @Test
    void headerOrigin_deniedAddresses_areRefused_withOrWithoutTheHeader() {
        HttpGate gate = gate(
                "origin", "header:X-Api-Key",
                "deny", "198.51.100.0/24, blocked-key",
                "rule.api.match", "/api/**",
                "rule.api.limit", "5/1m",
                "rule.api.scope", "per-origin");

        assertThat(gate.enter(Request.of("GET", "/api/x", "198.51.100.9"))).isInstanceOf(Rejection.class);
        assertThat(gate.enter(Request.of("GET", "/api/x", "198.51.100.9", "X-Api-Key", "anything")))
                .as("a key does not take a denied network past deny")
                .isInstanceOf(Rejection.class);
        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1", "X-Api-Key", "blocked-key")))
                .isInstanceOf(Rejection.class);
        assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1", "X-Api-Key", "alpha")))
                .isInstanceOf(Entry.class);
    }

    @Test
    void principalOrigin_countsPerUser() {
        HttpGate gate = gate(
                "origin", "principal",
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/1m",
                "rule.api.scope", "per-origin");

        Request alice = new Request("GET", "/api/x", "203.0.113.1", "alice", Map.of());
        Request bob = new Request("GET", "/api/x", "203.0.113.1", "bob", Map.of());

        assertThat(gate.enter(alice).admitted()).isTrue();
        assertThat(gate.enter(alice).admitted()).isFalse();
        assertThat(gate.enter(bob).admitted()).isTrue();
    }

    @Test
    void rejection_theBodysRetryAfter_isTheHeaders_evenWhenTheClockCrossesASecondBetweenThem() {
        // A clock that moves 600 ms at every reading once the rejection is made: the response is
        // put together over more than a second, and each part asking the time anew would differ.
        boolean[] ticking = {false};
        dev.leapgate.Clock moving = () -> {
            if (ticking[0]) {
                clock.advance(java.time.Duration.ofMillis(600));
            }
            return clock.nanoTime();
        };
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of("rule.per-ip.match", "/api/**", "rule.per-ip.limit", "1/10s"), "test"))
                .clock(moving)
                .build();
        gate.enter(Request.of("GET", "/api/x", "203.0.113.1"));
        Rejection rejection = (Rejection) gate.enter(Request.of("GET", "/api/x", "203.0.113.1"));

        ticking[0] = true;
        RejectionResponse r = gate.rejection(rejection);

        String retryAfter = r.headers().get("Retry-After");
        assertThat(new String(r.body(), StandardCharsets.UTF_8))
                .as("the body tells the client what the Retry-After field does")
                .contains("Retry after " + retryAfter + " s.")
                .endsWith("\"retryAfter\":" + retryAfter + "}");
    }

    @Test
    void rejection_hasStatusRetryAfterRateLimitFieldsAndAProblemBody() {
        HttpGate gate = gate("rule.per-ip.match", "/api/**", "rule.per-ip.limit", "1/10s");
        gate.enter(Request.of("GET", "/api/x", "203.0.113.1"));
        clock.advance(java.time.Duration.ofMillis(3500));

        RejectionResponse r = gate.rejection((Rejection) gate.enter(Request.of("GET", "/api/x", "203.0.113.1")));

        assertThat(r.status()).isEqualTo(429);
        // The admission's bucket [0, 1s) leaves the strict 10 s window at 11 s: 7.5 s away.
        assertThat(r.headers())
                .containsExactly(
                        Map.entry("Retry-After", "8"),
                        Map.entry("RateLimit-Policy", "\"per-ip\";q=1;w=10"),
                        Map.entry("RateLimit", "\"per-ip\";r=0;t=8"),
                        Map.entry("Cache-Control", "no-store"));
        assertThat(r.contentType()).isEqualTo("application/problem+json");
        assertThat(new String(r.body(), StandardCharsets.UTF_8))
                .startsWith("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,")
                .endsWith("\"rule\":\"per-ip\",\"retryAfter\":8}");
    }

    @Test
    void rejection_bodiesOfRulesRejectingInTurn_eachNameItsOwnRuleAndRetryTime() {
        // The gate keeps the last rejection's body but for its retry time: a rule rejecting after
        // another must get its own, and each its own retry time, whatever its digits.
        HttpGate gate = gate(
                "rule.slow.match",
                "/slow/**",
                "rule.slow.limit",
                "1/1h",
                "rule.fast.match",
                "/fast/**",
                "rule.fast.limit",
                "1/5s");
        gate.enter(Request.of("GET", "/slow/x", "203.0.113.1"));
        gate.enter(Request.of("GET", "/fast/x", "203.0.113.1"));
        for (int round = 0; round < 2; round++) {
            for (String rule : List.of("slow", "fast", "fast", "slow")) {
                RejectionResponse r =
                        gate.rejection((Rejection) gate.enter(Request.of("GET", "/" + rule + "/x", "203.0.113.1")));
                String retryAfter = r.headers().get("Retry-After");
                // A strict window of 10 buckets frees its oldest a bucket after the window: 3,960 s and 5.5 s.
                assertThat(retryAfter).isEqualTo(rule.equals("slow") ? "3960" : "6");
                assertThat(new String(r.body(), StandardCharsets.UTF_8))
                        .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                                + "\"detail\":\"Rule '" + rule + "' rejected the request: limit exceeded. Retry after "
                                + retryAfter + " s.\",\"rule\":\"" + rule + "\",\"retryAfter\":" + retryAfter + "}");
            }
        }
    }

    @Test
    void rejection_headerFields_cannotBeChanged_andAMapFromElsewhereIsCopied() {
        HttpGate gate = gate("rule.per-ip.match", "/api/**", "rule.per-ip.limit", "1/10s");
        gate.enter(Request.of("GET", "/api/x", "203.0.113.1"));
        Map<String, String> headers = gate.rejection((Rejection) gate.enter(Request.of("GET", "/api/x", "203.0.113.1")))
                .headers();

        assertThat(headers)
                .isEqualTo(Map.of(
                        "Retry-After", "11",
                        "RateLimit-Policy", "\"per-ip\";q=1;w=10",
                        "RateLimit", "\"per-ip\";r=0;t=11",
                        "Cache-Control", "no-store"));
        assertThat(headers.hashCode()).isEqualTo(new HashMap<>(headers).hashCode());
        assertThat(headers.get("Content-Type")).isNull();
        assertThat(headers.containsKey("RateLimit")).isTrue();
        java.util.List<Runnable> changes = List.of(
                () -> headers.put("Retry-After", "0"),
                () -> headers.remove("Retry-After"),
                headers::clear,
                () -> headers.entrySet().iterator().next().setValue("0"),
                () -> {
                    var fields = headers.keySet().iterator();
                    fields.next();
                    fields.remove();
                });
        for (Runnable change : changes) {
            assertThatThrownBy(change::run).isInstanceOf(UnsupportedOperationException.class);
        }
        assertThat(headers).hasSize(4).containsEntry("Retry-After", "11");

        Map<String, String> mine = new LinkedHashMap<>(Map.of("Retry-After", "3"));
        RejectionResponse copied = new RejectionResponse(429, mine, null, new byte[0]);
        mine.put("Retry-After", "0");
        assertThat(copied.headers()).containsExactly(Map.entry("Retry-After", "3"));
    }

    @Test
    void admittedResponses_carryTheRateLimitFields_unlessConfiguredOtherwise() {
        HttpGate all = gate("rule.per-ip.match", "/api/**", "rule.per-ip.limit", "5/10s");
        Map<String, String> headers = new LinkedHashMap<>();

        Entry entry = (Entry) all.enter(Request.of("GET", "/api/x", "203.0.113.1"));
        all.admittedHeaders(entry, headers::put);

        assertThat(headers)
                .containsExactly(
                        Map.entry("RateLimit-Policy", "\"per-ip\";q=5;w=10"),
                        Map.entry("RateLimit", "\"per-ip\";r=4;t=11"));

        HttpGate rejectedOnly =
                gate("rate-limit-headers", "rejected", "rule.per-ip.match", "/api/**", "rule.per-ip.limit", "1/10s");
        Map<String, String> none = new LinkedHashMap<>();
        rejectedOnly.admittedHeaders(rejectedOnly.enter(Request.of("GET", "/api/x", "203.0.113.1")), none::put);
        assertThat(none).isEmpty();
        RejectionResponse r =
                rejectedOnly.rejection((Rejection) rejectedOnly.enter(Request.of("GET", "/api/x", "203.0.113.1")));
        assertThat(r.headers()).containsKeys("Retry-After", "RateLimit-Policy", "RateLimit");
    }

    /**
     * An adapter skips preparing for the fields (the servlet filter's response wrapper) when the
     * gate says there will be none: that must never drop a field the gate would have written, for
     * any setting and any kind of admitted request, also one admitted before a reload replaced its
     * rule (the setting is the gate's own: a reload does not change it).
     */
    @Test
    void mayWriteAdmittedHeaders_isFalseOnlyWhenAdmittedHeadersWritesNothing() {
        for (String setting : List.of("all", "rejected", "none")) {
            HttpGate gate = gate(
                    "rate-limit-headers", setting,
                    "rule.api.match", "/api/**",
                    "rule.api.limit", "5/10s",
                    "rule.trial.match", "/trial",
                    "rule.trial.limit", "5/10s",
                    "rule.trial.mode", "shadow",
                    "exempt", "10.0.0.1");
            Map<String, Decision> admitted = new LinkedHashMap<>();
            admitted.put("limited", gate.enter(Request.of("GET", "/api/x", "203.0.113.1")));
            admitted.put("shadow", gate.enter(Request.of("GET", "/trial", "203.0.113.1")));
            admitted.put("exempt", gate.enter(Request.of("GET", "/api/x", "10.0.0.1")));
            admitted.put("no rule", gate.enter(Request.of("GET", "/static/app.js", "203.0.113.1")));
            admitted.put("before a reload", gate.enter(Request.of("GET", "/api/y", "203.0.113.2")));
            gate.update(ConfigParser.parse(
                            Map.of(
                                    "rule.api.match", "/api/**",
                                    "rule.api.limit", "9/10s",
                                    "rule.trial.match", "/trial",
                                    "rule.trial.limit", "5/10s",
                                    "rule.trial.mode", "shadow"),
                            "test")
                    .rules());

            boolean all = setting.equals("all");
            admitted.forEach((kind, decision) -> {
                Map<String, String> written = new LinkedHashMap<>();
                gate.admittedHeaders(decision, written::put);
                if (!gate.mayWriteAdmittedHeaders(decision)) {
                    assertThat(written).as(setting + ", " + kind).isEmpty();
                } else if (kind.equals("limited") || kind.equals("before a reload")) {
                    assertThat(written).as(setting + ", " + kind).containsKeys("RateLimit-Policy", "RateLimit");
                }
            });
            assertThat(gate.mayWriteAdmittedHeaders(admitted.get("limited")))
                    .as(setting)
                    .isEqualTo(all);
            assertThat(gate.mayWriteAdmittedHeaders(admitted.get("before a reload")))
                    .as(setting)
                    .isEqualTo(all);
            assertThat(gate.mayWriteAdmittedHeaders(admitted.get("no rule"))).isFalse();
            assertThat(gate.mayWriteAdmittedHeaders(admitted.get("exempt"))).isFalse();
        }
    }

    @Test
    void clientRejectedForWantOfRoom_isOfferedNothing_inRateLimit() {
        // One client tracked at most: while it has a request in flight, another client is refused
        // (no room to track it), and its 429 must not offer it the rule's three slots.
        HttpGate gate = gate(
                "rule.slots.match", "/x",
                "rule.slots.in-flight", "3",
                "rule.slots.scope", "per-origin",
                "rule.slots.max-origins", "1");
        Entry holding = (Entry) gate.enter(Request.of("GET", "/x", "203.0.113.1"));

        Rejection rejection = (Rejection) gate.enter(Request.of("GET", "/x", "203.0.113.2"));

        assertThat(rejection.reason()).isEqualTo("too many origins tracked");
        assertThat(gate.rejection(rejection).headers()).containsEntry("RateLimit", "\"slots\";r=0");
        assertThat(rejection.quota().remaining()).isZero();
        holding.close();
    }

    @Test
    void rejectionByAShortRule_whileALongerRuleIsSpentToo_retriesAfterTheLongerOne() {
        for (String scope : List.of("per-origin", "all")) {
            clock.advance(java.time.Duration.ofDays(1)); // a fresh start of both windows' buckets
            HttpGate gate = gate(
                    "rule.burst.match", "/api/**",
                    "rule.burst.limit", "3/1s",
                    "rule.burst.scope", scope,
                    "rule.hourly.match", "/api/**",
                    "rule.hourly.limit", "3/1h",
                    "rule.hourly.scope", scope);
            for (int i = 0; i < 3; i++) {
                assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1")))
                        .isInstanceOf(Entry.class);
            }

            // The per-second rule is tried first and rejects; the hourly one is spent as well, and
            // its first bucket leaves the strict hour at 66 min: no retry succeeds before that.
            Rejection rejection = (Rejection) gate.enter(Request.of("GET", "/api/x", "203.0.113.1"));
            RejectionResponse r = gate.rejection(rejection);

            assertThat(rejection.rule()).as(scope).isEqualTo("burst");
            assertThat(r.headers())
                    .as(scope)
                    .containsExactly(
                            Map.entry("Retry-After", "3960"),
                            Map.entry("RateLimit-Policy", "\"burst\";q=3;w=1, \"hourly\";q=3;w=3600"),
                            Map.entry("RateLimit", "\"burst\";r=0;t=2, \"hourly\";r=0;t=3960"),
                            Map.entry("Cache-Control", "no-store"));
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).as(scope).endsWith("\"retryAfter\":3960}");

            clock.advance(java.time.Duration.ofSeconds(3959));
            assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1")))
                    .as(scope + ", 1 s before Retry-After")
                    .isInstanceOf(Rejection.class);
            clock.advance(java.time.Duration.ofSeconds(1));
            assertThat(gate.enter(Request.of("GET", "/api/x", "203.0.113.1")))
                    .as(scope + ", at Retry-After")
                    .isInstanceOf(Entry.class);
        }
    }

    @Test
    void admittedHeaders_ofPacedAndWarmUpRules_sayHowManyMoreTheScheduleAdmitsNow_andWhenItIsFree() {
        // One request every 10 s, a turn waited for at most 500 ms: after an admission the next
        // request is rejected for 9.5 s, so the fields must not offer one at once.
        HttpGate paced = gate("rule.paced.match", "/x", "rule.paced.limit", "6/1m", "rule.paced.on-excess", "pace");
        assertThat(admittedFields(paced)).containsEntry("RateLimit", "\"paced\";r=0;t=10");
        RejectionResponse next = paced.rejection((Rejection) paced.enter(Request.of("GET", "/x", "203.0.113.1")));
        assertThat(next.headers()).containsEntry("Retry-After", "10");
        clock.advance(java.time.Duration.ofSeconds(10)); // exactly as advertised
        assertThat(admittedFields(paced)).containsEntry("RateLimit", "\"paced\";r=0;t=10");

        // Warming up from cold, 10 per second for a start: the next request is rejected for 100 ms.
        HttpGate warm = gate("rule.warm.match", "/x", "rule.warm.limit", "30/1s", "rule.warm.on-excess", "warm-up");
        assertThat(admittedFields(warm)).containsEntry("RateLimit", "\"warm\";r=0;t=1");
        assertThat(warm.enter(Request.of("GET", "/x", "203.0.113.1"))).isInstanceOf(Rejection.class);

        // 100 per second, turns queued up to 500 ms: the next 50 requests are admitted at once
        // (each waits its turn, 10 ms after the one before), and the schedule is free again in
        // 10 ms, a second rounded up.
        HttpGate fast = gate("rule.fast.match", "/x", "rule.fast.limit", "100/1s", "rule.fast.on-excess", "pace");
        assertThat(admittedFields(fast)).containsEntry("RateLimit", "\"fast\";r=50;t=1");
    }

    /** The rate-limit fields of an admission of a request to {@code /x}, which must be admitted without waiting. */
    private Map<String, String> admittedFields(HttpGate gate) {
        Decision decision = gate.enter(Request.of("GET", "/x", "203.0.113.1"));
        assertThat(decision).isInstanceOf(Entry.class);
        Map<String, String> fields = new LinkedHashMap<>();
        gate.admittedHeaders(decision, fields::put);
        ((Entry) decision).close();
        return fields;
    }

    @Test
    void noHeadersAndNoBody_leaveJustStatusRetryAfterAndNoStore() {
        HttpGate gate = gate(
                "rate-limit-headers", "none",
                "body", "none",
                "status", "503",
                "rule.x.match", "/x",
                "rule.x.limit", "1/1s");
        gate.enter(Request.of("GET", "/x", "203.0.113.1"));

        RejectionResponse r = gate.rejection((Rejection) gate.enter(Request.of("GET", "/x", "203.0.113.1")));

        assertThat(r.status()).isEqualTo(503);
        assertThat(r.headers()).containsOnlyKeys("Retry-After", "Cache-Control");
        assertThat(r.contentType()).isNull();
        assertThat(r.body()).isEmpty();
    }

    @Test
    void garbageForwardingHeaders_neverThrow_andFallBackToThePeer() {
        HttpGate gate = gate(
                "trusted-proxies", "10.0.0.0/8",
                "rule.x.match", "/x",
                "rule.x.limit", "1/1m",
                "rule.x.scope", "per-origin");

        for (String garbage :
                List.of("", ",,,", "unknown", "not an ip", "[::1", "999.1.1.1", "\u0000\uffff", "1.2.3.4:99999")) {
            assertThat(gate.originOf(Request.of("GET", "/x", "10.0.0.1", "X-Forwarded-For", garbage))
                            .id())
                    .as("X-Forwarded-For: %s", garbage)
                    .isEqualTo("10.0.0.1");
        }
        assertThat(gate.originOf(Request.of("GET", "/x", "not-an-address")).id())
                .isEqualTo("unknown");
    }

    @Test
    void admittedHeaders_ofSeveralRules_listTheTightestFirst_asTheQuotasDo() {
        HttpGate gate = gate(
                "rule.per-ip.match", "/api/**",
                "rule.per-ip.limit", "5/10s",
                "rule.per-ip.scope", "per-origin",
                "rule.all.match", "/api/**",
                "rule.all.limit", "8/1m",
                "rule.slots.match", "/api/**",
                "rule.slots.in-flight", "4");
        List<Entry> open = new java.util.ArrayList<>();
        for (String client : List.of("203.0.113.1", "203.0.113.1", "203.0.113.2", "203.0.113.1")) {
            Entry entry = (Entry) gate.enter(Request.of("GET", "/api/x", client));
            open.add(entry);
            Map<String, String> written = new LinkedHashMap<>();
            gate.admittedHeaders(entry, written::put);

            assertThat(written)
                    .containsExactly(
                            Map.entry("RateLimit-Policy", RateLimitFields.policy(entry.quotas())),
                            Map.entry("RateLimit", RateLimitFields.rateLimit(entry.quotas())));
        }
        // The fourth: no slot left, 2 for the client (5 - 3), 4 for all (8 - 4).
        Map<String, String> last = new LinkedHashMap<>();
        gate.admittedHeaders(open.get(3), last::put);
        assertThat(last.get("RateLimit")).isEqualTo("\"slots\";r=0, \"per-ip\";r=2;t=11, \"all\";r=4;t=66");

        // After a reload that replaced the rules, an entry of the old ones still gets its fields.
        gate.update(ConfigParser.parse(Map.of("rule.other.match", "/x", "rule.other.limit", "1/s"), "test")
                .rules());
        Map<String, String> afterReload = new LinkedHashMap<>();
        gate.admittedHeaders(open.get(0), afterReload::put);
        assertThat(afterReload).containsKeys("RateLimit-Policy", "RateLimit");
        open.forEach(Entry::close);
    }

    @Test
    void admittedHeaders_ofTwoRules_areTheQuotasFields_forEveryKindAndOrder() {
        Map<String, List<String>> kinds = new LinkedHashMap<>();
        kinds.put("client", List.of("limit", "3/10s", "scope", "per-origin"));
        kinds.put("all", List.of("limit", "5/1m"));
        kinds.put("slots", List.of("in-flight", "2"));
        kinds.put("trial", List.of("limit", "1/10s", "mode", "shadow"));
        for (String one : kinds.keySet()) {
            for (String other : kinds.keySet()) {
                if (one.equals(other)) {
                    continue;
                }
                Map<String, String> settings = new LinkedHashMap<>();
                for (String rule : List.of(one, other)) {
                    settings.put("rule." + rule + ".match", "/api/**");
                    List<String> kind = kinds.get(rule);
                    for (int i = 0; i < kind.size(); i += 2) {
                        settings.put("rule." + rule + "." + kind.get(i), kind.get(i + 1));
                    }
                }
                HttpGate gate = HttpGate.builder(ConfigParser.parse(settings, "test"))
                        .clock(clock)
                        .build();
                java.util.Set<String> heads = new java.util.HashSet<>();
                for (String client :
                        List.of("203.0.113.1", "203.0.113.1", "203.0.113.2", "203.0.113.1", "203.0.113.3")) {
                    Entry entry = (Entry) gate.enter(Request.of("GET", "/api/x", client));
                    Map<String, String> written = new LinkedHashMap<>();
                    gate.admittedHeaders(entry, written::put);

                    Map<String, String> expected = new LinkedHashMap<>();
                    if (!entry.quotas().isEmpty()) {
                        expected.put("RateLimit-Policy", RateLimitFields.policy(entry.quotas()));
                        expected.put("RateLimit", RateLimitFields.rateLimit(entry.quotas()));
                        heads.add(entry.quotas().get(0).rule());
                    }
                    assertThat(written)
                            .as(one + " then " + other + ", " + client)
                            .containsExactlyEntriesOf(expected);
                    entry.close();
                    clock.advance(java.time.Duration.ofSeconds(1));
                }
                // Pairs of shown rules change places as the client's quota runs down: both orders are written.
                boolean bothShown = !one.equals("trial") && !other.equals("trial");
                assertThat(heads).as(one + " then " + other).hasSize(bothShown ? 2 : 1);
            }
        }
    }

    @Test
    void admittedHeaders_followTheOrderOfEachRequest_whenItChanges() {
        HttpGate gate = gate(
                "rule.per-ip.match", "/api/**",
                "rule.per-ip.limit", "2/10s",
                "rule.per-ip.scope", "per-origin",
                "rule.all.match", "/api/**",
                "rule.all.limit", "4/1m",
                "rule.slots.match", "/api/**",
                "rule.slots.in-flight", "3");
        List<String> policies = new java.util.ArrayList<>();
        Entry first = (Entry) gate.enter(Request.of("GET", "/api/x", "203.0.113.1"));
        policies.add(policyOf(gate, first)); // per-ip 1, slots 2, all 3
        first.close();
        Entry second = (Entry) gate.enter(Request.of("GET", "/api/x", "203.0.113.2"));
        policies.add(policyOf(gate, second)); // per-ip 1, all 2, slots 2: same head, the rest reordered
        Entry third = (Entry) gate.enter(Request.of("GET", "/api/x", "203.0.113.3"));
        policies.add(policyOf(gate, third)); // per-ip 1, all 1, slots 1
        Entry fourth = (Entry) gate.enter(Request.of("GET", "/api/x", "203.0.113.4"));
        policies.add(policyOf(gate, fourth)); // all 0, slots 0, per-ip 1: a new head
        policies.add(policyOf(gate, first)); // the first entry again, as things stand now: no slot left

        assertThat(policies)
                .containsExactly(
                        "\"per-ip\";q=2;w=10, \"slots\";q=3;qu=\"concurrent-requests\", \"all\";q=4;w=60",
                        "\"per-ip\";q=2;w=10, \"all\";q=4;w=60, \"slots\";q=3;qu=\"concurrent-requests\"",
                        "\"per-ip\";q=2;w=10, \"all\";q=4;w=60, \"slots\";q=3;qu=\"concurrent-requests\"",
                        "\"all\";q=4;w=60, \"slots\";q=3;qu=\"concurrent-requests\", \"per-ip\";q=2;w=10",
                        "\"slots\";q=3;qu=\"concurrent-requests\", \"per-ip\";q=2;w=10, \"all\";q=4;w=60");
        List.of(second, third, fourth).forEach(Entry::close);
    }

    /** The entry's {@code RateLimit-Policy} field, checked against the one its quotas give. */
    private static String policyOf(HttpGate gate, Entry entry) {
        Map<String, String> written = new LinkedHashMap<>();
        gate.admittedHeaders(entry, written::put);
        assertThat(written.get("RateLimit-Policy")).isEqualTo(RateLimitFields.policy(entry.quotas()));
        return written.get("RateLimit-Policy");
    }

    @Test
    void rejections_areNeverStored_evenWithAStatusCachesKeepByDefault() {
        // A 404 is cacheable by default (RFC 9110, 15.1): without no-store, a shared cache in front
        // would answer every client with what one denied or limited client got.
        HttpGate gate = gate(
                "deny", "198.51.100.0/24",
                "deny-status", "404",
                "status", "410",
                "rule.api.match", "/api/**",
                "rule.api.limit", "1/10s",
                "rule.api.scope", "per-origin");

        RejectionResponse denied = gate.rejection((Rejection) gate.enter(Request.of("GET", "/api/x", "198.51.100.7")));
        gate.enter(Request.of("GET", "/api/x", "203.0.113.1"));
        RejectionResponse limited = gate.rejection((Rejection) gate.enter(Request.of("GET", "/api/x", "203.0.113.1")));

        assertThat(denied.status()).isEqualTo(404);
        assertThat(denied.headers()).containsEntry("Cache-Control", "no-store");
        assertThat(limited.status()).isEqualTo(410);
        assertThat(limited.headers()).containsEntry("Cache-Control", "no-store");
    }

    @Test
    void deniedOrigin_gets403_withoutRetryAdvice_orRateLimitFields() {
        HttpGate gate = gate("deny", "198.51.100.0/24", "rule.api.match", "/api/**", "rule.api.limit", "1/10s");

        Rejection denied = (Rejection) gate.enter(Request.of("GET", "/anything", "198.51.100.7"));
        RejectionResponse response = gate.rejection(denied);

        assertThat(denied.rule()).isEqualTo("deny");
        assertThat(denied.retryAfter()).isZero();
        assertThat(response.status()).isEqualTo(403);
        assertThat(response.headers()).containsExactly(Map.entry("Cache-Control", "no-store"));
        assertThat(response.contentType()).isEqualTo("application/problem+json");
        assertThat(new String(response.body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Forbidden\",\"status\":403,"
                        + "\"detail\":\"Requests from this origin are denied.\",\"rule\":\"deny\"}");
        // Each answer has a body of its own: one changed does not change the next.
        java.util.Arrays.fill(response.body(), (byte) 'x');
        RejectionResponse next = gate.rejection(denied);
        assertThat(new String(next.body(), StandardCharsets.UTF_8)).startsWith("{\"type\":\"about:blank\"");

        HttpGate custom = gate("deny", "198.51.100.0/24", "deny-status", "404", "body", "none");
        RejectionResponse notFound =
                custom.rejection((Rejection) custom.enter(Request.of("GET", "/x", "198.51.100.7")));
        assertThat(notFound.status()).isEqualTo(404);
        assertThat(notFound.headers()).containsExactly(Map.entry("Cache-Control", "no-store"));
        assertThat(notFound.body()).isEmpty();

        // A limit's rejection is unchanged: 429 with Retry-After.
        gate.enter(Request.of("GET", "/api/x", "203.0.113.1"));
        RejectionResponse limited = gate.rejection((Rejection) gate.enter(Request.of("GET", "/api/x", "203.0.113.1")));
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.headers()).containsKey("Retry-After");
    }

    @Test
    void ipv6DenyEntriesAndOriginScopes_narrowerThanAClient_areWarnings_namingTheClientsBlock() {
        String counted = " (per-client rules count each /64 as one client: ipv6-prefix = 64)";
        HttpGate gate = gate(
                "rule.one.match", "/a",
                "rule.one.limit", "5/1m",
                "rule.one.scope", "origin:2001:db8:1:2::7",
                "rule.v4.match", "/a",
                "rule.v4.limit", "5/1m",
                "rule.v4.scope", "origin:192.0.2.7",
                "deny",
                        "2001:db8:1:2::7, 2001:db8:9::/96, 2001:db8:5::/64, 2001:db8::/48, 192.0.2.1, ::1, 64:ff9b::192.0.2.9");

        assertThat(gate.warnings())
                .containsExactlyInAnyOrder(
                        "deny: 2001:db8:1:2::7/128 is one IPv6 address, but an IPv6 client holds a whole /64 and"
                                + " escapes the denial by taking another address in 2001:db8:1:2::/64" + counted
                                + "; to deny that client, write 2001:db8:1:2::/64",
                        "deny: 2001:db8:9::/96 is narrower than /64, but an IPv6 client holds a whole /64 and"
                                + " escapes the denial by taking another address in 2001:db8:9::/64" + counted
                                + "; to deny that client, write 2001:db8:9::/64",
                        "rule 'one': scope origin:2001:db8:1:2::7 limits one IPv6 address, but an IPv6 client"
                                + " holds a whole /64 and escapes the rule by taking another address in"
                                + " 2001:db8:1:2::/64" + counted + "; a per-origin rule counts 2001:db8:1:2::/64 as"
                                + " one client");

        assertThat(gate("ipv6-prefix", "48", "deny", "2001:db8:5::/64").warnings())
                .containsExactly("deny: 2001:db8:5::/64 is narrower than /48, but an IPv6 client holds a whole /48"
                        + " and escapes the denial by taking another address in 2001:db8:5::/48 (per-client rules"
                        + " count each /48 as one client: ipv6-prefix = 48); to deny that client, write"
                        + " 2001:db8:5::/48");

        HttpGate reloaded = gate("deny", "2001:db8:5::/64, 192.0.2.1");
        assertThat(reloaded.warnings()).isEmpty();
        reloaded.update(ConfigParser.parseRules("rules = none\ndeny = 2001:db8:7::1", "rules.properties"));
        assertThat(reloaded.warnings())
                .as("checked again at every reload")
                .singleElement()
                .asString()
                .startsWith("deny: 2001:db8:7::1/128 is one IPv6 address");
    }

    @Test
    void aGateWithoutAnyRule_warnsThatItLimitsNothing_unlessTheConfigurationSaysSo() {
        String nothing = "no rule is configured, so every request passes unlimited: give rule.<name>.<setting>"
                + " settings or a rules-file, or say rules = none if there is no rule on purpose";

        assertThat(gate("status", "503").warnings()).containsExactly(nothing);
        assertThat(gate("rules", "none").warnings()).as("no rule on purpose").isEmpty();
        assertThat(gate("deny", "192.0.2.1").warnings()).as("a denial protects").isEmpty();
        assertThat(gate("rule.a.match", "/a", "rule.a.limit", "5/1m").warnings())
                .isEmpty();
        HttpGate coded = HttpGate.builder(LeapgateConfig.defaults())
                .clock(clock)
                .addRules(ConfigParser.parseRules("rule.a.match = /a\nrule.a.limit = 5/1m", "code")
                        .rules())
                .build();
        assertThat(coded.warnings()).as("rules given in code count").isEmpty();
    }

    /**
     * Tomcat resolves a dot segment before routing, plain or escaped ({@code /api/items/./price},
     * {@code /api/items/%2E/price}, {@code ..}, {@code .;x=1}): the servlet filter's path is {@code
     * /api/items/price}. Jersey routes the raw URI and serves it as {@code items/{id}/price} with the
     * id {@code .}: the rule on that route must count it too. Likewise an empty id ({@code //}, or
     * path parameters alone: {@code /;x=1/}), which Tomcat drops, and which Jersey, RESTEasy and CXF
     * serve through a template whose variable accepts it ({@code {id: [^/]*}}).
     */
    @ParameterizedTest
    @CsvSource({
        "%2E, /api/items/price",
        "., /api/items/price",
        ".., /api/price",
        "%2e., /api/price",
        ".;x=1, /api/items/price",
        "'', /api/items/price",
        ";x=1, /api/items/price",
        ";, /api/items/price"
    })
    void aDotOrEmptySegment_countsUnderTheRulesOfTheRawReading_too(String id, String resolved) {
        HttpGate gate = HttpGate.builder(ConfigParser.parse(
                        Map.of(
                                "rule.price.match", "GET /api/items/*/price",
                                "rule.price.limit", "2/1m",
                                "rule.price.scope", "per-origin"),
                        "test"))
                .build();
        HttpRequestView routed = new HttpRequestView() {
            public String method() {
                return "GET";
            }

            public String rawPath() {
                return "/app/api/items/" + id + "/price";
            }

            public String decodedPath() {
                return resolved; // what Tomcat gives
            }

            public String encodedPath() {
                return "/api/items/" + id + "/price";
            }

            public String remoteAddr() {
                return "203.0.113.9";
            }

            public List<String> headers(String name) {
                return List.of();
            }

            public String principal() {
                return null;
            }
        };
        assertThat(gate.enter(routed)).isInstanceOf(Entry.class);
        assertThat(gate.enter(routed)).isInstanceOf(Entry.class);
        assertThat(gate.enter(routed))
                .as("the third within the minute")
                .isInstanceOfSatisfying(
                        Rejection.class, r -> assertThat(r.rule()).isEqualTo("price"));
        assertThat(gate.enter("GET", resolved, Origin.id("other")))
                .as("the container's reading alone matches no rule")
                .isSameAs(dev.leapgate.internal.UnlimitedEntry.INSTANCE);
    }
}
