package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.leapgate.Origin;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.RuleSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Configuration that would quietly weaken protection is refused, with a message naming key and
 * value and saying how to mean it: trusted proxies and exemptions that cover nearly everyone,
 * exemptions and denials that can never match the configured origin, a rule that is another rule
 * under a second name, names that differ only in case, and keys that collide once trimmed.
 */
class SilentWeakeningTest {

    private static Map<String, String> map(String... keyValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    private static LeapgateConfig parse(String... keyValues) {
        return ConfigParser.parse(map(keyValues), "web.xml");
    }

    private static List<String> problems(String... keyValues) {
        return ConfigProblems.of(() -> parse(keyValues));
    }

    @Test
    void trustedProxiesCoveringNearlyEveryone_areRefused_unlessAcknowledged() {
        assertThat(problems("trusted-proxies", "10.0.0.0/8, 0.0.0.0/0"))
                .containsExactly("trusted-proxies: '0.0.0.0/0' trusts every IPv4 address: any client could then choose"
                        + " its own address with a forwarding header and escape every per-client limit; list your"
                        + " proxies' addresses or networks, or, if they can really be anywhere, say so with"
                        + " allow-wide-trusted-proxies = true");
        assertThat(problems("trusted-proxies", "::/0, 128.0.0.0/1"))
                .containsExactly(
                        "trusted-proxies: '::/0' trusts every IPv6 address: any client could then choose its own"
                                + " address with a forwarding header and escape every per-client limit; list your"
                                + " proxies' addresses or networks, or, if they can really be anywhere, say so with"
                                + " allow-wide-trusted-proxies = true",
                        "trusted-proxies: '128.0.0.0/1' trusts nearly every IPv4 address (a prefix shorter than /8):"
                                + " any client could then choose its own address with a forwarding header and escape"
                                + " every per-client limit; list your proxies' addresses or networks, or, if they can"
                                + " really be anywhere, say so with allow-wide-trusted-proxies = true");

        assertThat(parse("trusted-proxies", "0.0.0.0/0", "allow-wide-trusted-proxies", "true")
                        .clientIp()
                        .trustedProxies()
                        .toString())
                .isEqualTo("0.0.0.0/0");
        assertThat(parse("trusted-proxies", "10.0.0.0/8, 172.16.0.0/12, fc00::/7")
                        .clientIp()
                        .trustedProxies()
                        .cidrs())
                .as("the widest private networks are not wide")
                .hasSize(3);
        assertThat(problems("allow-wide-trusted-proxies", "yes"))
                .containsExactly("allow-wide-trusted-proxies: 'yes' is not allowed; expected true or false");
    }

    @Test
    void exemptionsCoveringNearlyEveryone_areRefused_unlessAcknowledged_inARulesFileToo() {
        assertThat(problems("exempt", "0.0.0.0/0"))
                .containsExactly("exempt: '0.0.0.0/0' exempts every IPv4 address from every rule; list the networks to"
                        + " exempt, or, if that is meant, say so with allow-wide-exempt = true");
        assertThat(ConfigProblems.ofRules("rule.a.match=/a", "rule.a.limit=1/s", "exempt = ::/3"))
                .containsExactly("line 3: exempt: '::/3' exempts nearly every IPv6 address (a prefix shorter than /7)"
                        + " from every rule; list the networks to exempt, or, if that is meant, say so with"
                        + " allow-wide-exempt = true");

        RuleSet rules = ConfigParser.parseRules(
                "rule.a.match=/a\nrule.a.limit=1/s\nexempt = 0.0.0.0/0\nallow-wide-exempt = true", "rules.properties");
        assertThat(rules.exempt().contains(Origin.ip(IpAddress.parse("198.51.100.7"), 64)))
                .isTrue();
    }

    @Test
    void namesInExemptOrDeny_areRefusedWithOriginIp_andAcceptedWithAnIdentifierOrigin() {
        assertThat(problems("exempt", "localhost, 127.0.0.1", "deny", "bad-bot"))
                .containsExactly(
                        "exempt: 'localhost' is not an IP address or block, and with origin = ip every client is an"
                                + " address, so it can never match; names are not resolved: write an address, e.g."
                                + " 127.0.0.1 or ::1 (identifiers apply with origin = header:<Name> or principal)",
                        "deny: 'bad-bot' is not an IP address or block, and with origin = ip every client is an"
                                + " address, so it can never match; names are not resolved: write an address, e.g."
                                + " 127.0.0.1 or ::1 (identifiers apply with origin = header:<Name> or principal)");

        RuleSet rules = parse("origin", "principal", "exempt", "127.0.0.1, health-checker", "deny", "mallory")
                .rules();
        assertThat(rules.exempt().contains(Origin.id("health-checker"))).isTrue();
        assertThat(rules.exempt().contains(Origin.ip(IpAddress.parse("127.0.0.1"), 64)))
                .as("an anonymous request falls back to its address, which exempt still matches")
                .isTrue();
        assertThat(rules.deny().contains(Origin.id("mallory"))).isTrue();

        assertThat(ConfigProblems.of(() ->
                        ConfigParser.parseRules("rules = none\ndeny = bad-bot", "rules.properties", OriginSource.ip())))
                .singleElement()
                .asString()
                .startsWith("line 2: deny: 'bad-bot' is not an IP address or block");
        assertThat(ConfigParser.parseRules(
                                "rules = none\ndeny = bad-bot", "rules.properties", OriginSource.header("X-Api-Key"))
                        .deny()
                        .contains(Origin.id("bad-bot")))
                .isTrue();
    }

    /** No client sends from a multicast address: a rule for one could never apply (found by a review helper). */
    @Test
    void aRuleForOneMulticastAddress_isRefused() {
        for (String address : List.of("224.0.0.1", "ff02::1")) {
            assertThat(problems(
                            "rule.one.match", "/api/**",
                            "rule.one.limit", "1/1m",
                            "rule.one.scope", "origin:" + address))
                    .singleElement()
                    .asString()
                    .isEqualTo("rule.one.scope: 'origin:" + address + "' names a multicast address, which is never a"
                            + " client's: the rule could never apply");
        }
    }

    @Test
    void aRuleForOneOriginNamedByAnIdentifier_isRefusedWithOriginIp_andAcceptedWithAnIdentifierOrigin() {
        assertThat(problems(
                        "rule.batch.match", "/api/**",
                        "rule.batch.limit", "1/1m",
                        "rule.batch.scope", "origin:batch-host"))
                .containsExactly("rule.batch.scope: 'origin:batch-host' names no IP address, and with origin = ip"
                        + " every client is an address, so the rule can never apply; names are not resolved: write"
                        + " an address, e.g. origin:203.0.113.7 (identifiers apply with origin = header:<Name> or"
                        + " principal)");
        assertThat(problems(
                        "rule.batch.match", "/api/**",
                        "rule.batch.limit", "1/1m",
                        "rule.batch.scope", "origin:[2001:db8::1]"))
                .as("an address in brackets is not an address here")
                .hasSize(1);

        assertThat(parse(
                                "rule.batch.match",
                                "/api/**",
                                "rule.batch.limit",
                                "1/1m",
                                "rule.batch.scope",
                                "origin:2001:db8::1")
                        .rules()
                        .rules())
                .hasSize(1);
        assertThat(parse(
                                "origin", "header:X-Job",
                                "rule.batch.match", "/api/**",
                                "rule.batch.limit", "1/1m",
                                "rule.batch.scope", "origin:batch-host")
                        .rules()
                        .rules())
                .hasSize(1);
    }

    /**
     * An exempt origin passes every rule, its own included: "internal callers are exempt, but limit
     * the batch host that hammers us" would start, and leave the batch host unlimited.
     */
    @Test
    void aRuleForOneOriginThatExemptLists_isRefused_asOneThatCouldNeverApply() {
        assertThat(problems(
                        "exempt", "192.0.2.10, 10.0.0.0/8",
                        "rule.batch.match", "/api/**",
                        "rule.batch.limit", "100/1m",
                        "rule.batch.scope", "origin:10.20.0.5"))
                .containsExactly("rule.batch.scope: 'origin:10.20.0.5' names an origin that exempt lists"
                        + " (10.0.0.0/8), and an exempt origin passes every rule, so this rule can never apply"
                        + " and 10.20.0.5 is not limited at all; to limit it, take it out of exempt (narrow or"
                        + " split the block), or remove the rule");

        assertThat(ConfigProblems.of(() -> ConfigParser.parseRules(
                        "exempt = monitor, 2001:db8::/32\n"
                                + "rule.monitor.match = /api/**\n"
                                + "rule.monitor.limit = 10/1s\n"
                                + "rule.monitor.scope = origin:monitor\n"
                                + "rule.v6.match = /api/**\n"
                                + "rule.v6.limit = 10/1s\n"
                                + "rule.v6.scope = origin:2001:DB8::7\n",
                        "rules.properties",
                        OriginSource.header("X-Api-Key"))))
                .as("in a rules file too, for an identifier (an API key, named by its fingerprint) and for an"
                        + " address in an exempt block")
                .containsExactly(
                        "line 4: rule.monitor.scope: 'origin:" + Origin.secret("monitor")
                                + "' names an origin that exempt lists (" + Origin.secret("monitor") + "),"
                                + " and an exempt origin passes every rule, so this rule can never apply and "
                                + Origin.secret("monitor")
                                + " is not limited at all; to limit it, take it out of exempt (narrow or split the"
                                + " block), or remove the rule",
                        "line 7: rule.v6.scope: 'origin:2001:DB8::7' names an origin that exempt lists"
                                + " (2001:db8::/32), and an exempt origin passes every rule, so this rule can never"
                                + " apply and 2001:db8::7 is not limited at all; to limit it, take it out of exempt"
                                + " (narrow or split the block), or remove the rule");

        RuleSet rules = parse(
                        "exempt", "10.0.0.0/8",
                        "rule.batch.match", "/api/**",
                        "rule.batch.limit", "100/1m",
                        "rule.batch.scope", "origin:192.0.2.7")
                .rules();
        assertThat(rules.rules()).as("an origin outside exempt").hasSize(1);
    }

    /**
     * A zero-width space, soft hyphen, word joiner or direction mark copied along with a path from a
     * web page or a chat cannot be seen in the file, and was taken as part of the value: the rule
     * matched no request clients send, and a deny entry or a rule's origin no client.
     */
    @Test
    void anInvisibleCharacterInAPathOrAnIdentifier_isRefused_ratherThanMatchingNothing() {
        assertThat(ConfigProblems.ofRules("rule.login.match = POST /login\u200B", "rule.login.limit = 5/1m"))
                .containsExactly("line 1: rule.login.match: 'POST /login\\u200B' holds an invisible character,"
                        + " \\u200B (a zero-width space, soft hyphen, word joiner, direction mark or byte-order"
                        + " mark, as text copied from a web page or a chat may carry): it would count as part of"
                        + " the value, which would then match nothing clients send; remove it (a path that really"
                        + " holds it is written percent-encoded: %E2%80%8B)");
        assertThat(problems("rule.login.match", "POST /log\u00ADin", "rule.login.limit", "5/1m"))
                .singleElement(STRING)
                .startsWith("rule.login.match: 'POST /log\\u00ADin' holds an invisible character, \\u00AD (");
        assertThat(problems("rule.login.match", "POST\u2060 /login", "rule.login.limit", "5/1m"))
                .as("in the method, rather than 'method 'POST' is not an HTTP method token'")
                .singleElement(STRING)
                .startsWith("rule.login.match: 'POST\\u2060 /login' holds an invisible character, \\u2060 (");

        assertThat(problems(
                        "origin", "header:X-Api-Key",
                        "deny", "leaked-key\u200D",
                        "rule.batch.match", "/api/**",
                        "rule.batch.limit", "10/1m",
                        "rule.batch.scope", "origin:\u202Ebatch-key"))
                .containsExactly(
                        "deny: '" + Origin.secret("leaked-key\u200D")
                                + "' holds an invisible character, \\u200D (a zero-width space, soft"
                                + " hyphen, word joiner, direction mark or byte-order mark, as text copied from a web"
                                + " page or a chat may carry): it would count as part of the value, which would then"
                                + " match nothing clients send; remove it",
                        "rule.batch.scope: 'origin:" + Origin.secret("\u202Ebatch-key")
                                + "' holds an invisible character, \\u202E (a"
                                + " zero-width space, soft hyphen, word joiner, direction mark or byte-order mark, as"
                                + " text copied from a web page or a chat may carry): it would count as part of the"
                                + " value, which would then match nothing clients send; remove it");

        assertThat(parse("rule.zw.match", "/notes/%E2%80%8B", "rule.zw.limit", "5/1m")
                        .rules()
                        .rules())
                .as("written percent-encoded, a path that really holds one is meant")
                .hasSize(1);
    }

    /**
     * A control character (a properties escape such as {@code \u0007}) in an identifier was taken
     * as part of it: no header field carries one, so the exemption, the deny entry or the rule's
     * origin matched no client.
     */
    @Test
    void aControlCharacterInAnIdentifier_isRefused_ratherThanMatchingNothing() {
        assertThat(problems(
                        "origin", "header:X-Api-Key",
                        "exempt", "monitor\u0007-key",
                        "deny", "leaked\u007F-key",
                        "rule.batch.match", "/api/**",
                        "rule.batch.limit", "10/1m",
                        "rule.batch.scope", "origin:batch\u0000-key"))
                .containsExactly(
                        "exempt: '" + Origin.secret("monitor\u0007-key") + "' holds a control character, \\u0007,"
                                + " which no request carries in a header field or a path: the value would match"
                                + " nothing clients send; remove it",
                        "deny: '" + Origin.secret("leaked\u007F-key") + "' holds a control character, \\u007F,"
                                + " which no request carries in a header field or a path: the value would match"
                                + " nothing clients send; remove it",
                        "rule.batch.scope: 'origin:" + Origin.secret("batch\u0000-key")
                                + "' holds a control character, \\u0000, which no request carries in a header field"
                                + " or a path: the value would match nothing clients send; remove it");
        assertThat(ConfigProblems.ofRules("rule.a.match = /a", "rule.a.limit = 5/1m", "deny = 192.0.2.1\u0007"))
                .singleElement(STRING)
                .startsWith("line 3: deny: '192.0.2.1\\u0007' holds a control character, \\u0007,");
        assertThat(parse(
                                "origin",
                                "header:X-Api-Key",
                                "exempt",
                                "a-key\tb-key\nc-key",
                                "rule.a.match",
                                "/a",
                                "rule.a.limit",
                                "5/1m")
                        .rules()
                        .exempt()
                        .identifiers())
                .as("tabs and line breaks still separate entries")
                .containsExactlyInAnyOrder("a-key", "b-key", "c-key");
    }

    /**
     * {@code GET|POST} and {@code *} are valid HTTP tokens, so a rule took them as one method of that
     * name, which no client sends: the rule limited nothing.
     */
    @Test
    void aMethodWrittenAsAListOrAWildcard_isRefused_ratherThanMatchingNothing() {
        assertThat(problems(
                        "rule.login.match", "GET|POST /login",
                        "rule.login.limit", "5/1m",
                        "rule.api.match", "* /api/**",
                        "rule.api.limit", "100/10s"))
                .containsExactly(
                        "rule.login.match: 'GET|POST /login' names the method 'GET|POST', which no client sends"
                                + " (methods are letters, digits, '-' and '_'); a rule names one method, and one without a"
                                + " method matches every method: write /login, or a rule per method",
                        "rule.api.match: '* /api/**' names the method '*', which no client sends (methods are"
                                + " letters, digits, '-' and '_'); a rule names one method, and one without a method"
                                + " matches every method: write /api/**");

        assertThat(parse(
                                "rule.dav.match", "PROPFIND /files/**",
                                "rule.dav.limit", "5/1s",
                                "rule.ssdp.match", "M-SEARCH /upnp",
                                "rule.ssdp.limit", "5/1s")
                        .rules()
                        .rules())
                .as("extension methods as registered")
                .hasSize(2);
    }

    @Test
    void allowWideExempt_inlineBesideARulesFile_isRefused_asExemptIs() {
        assertThat(problems("rules-file", "/etc/leapgate/rules.properties", "allow-wide-exempt", "true"))
                .containsExactly("allow-wide-exempt: with rules-file, allow-wide-exempt belongs in the rules file"
                        + " /etc/leapgate/rules.properties, so that it is reloaded with the rules");
    }

    @Test
    void aRuleThatIsAnotherUnderASecondName_isRefused_naturallyDifferentOnesAreNot() {
        assertThat(problems(
                        "rule.login.match", "POST /login",
                        "rule.login.limit", "5/1m",
                        "rule.login-copy.match", "POST /login",
                        "rule.login-copy.limit", "5/1m",
                        "rule.login-hourly.match", "POST /login",
                        "rule.login-hourly.limit", "20/1h"))
                .containsExactly("rule.login-copy: rule 'login-copy' is the same rule as 'login' (match, limit,"
                        + " window, scope and on-excess): a copy that was probably meant to say something else;"
                        + " change or remove one");
    }

    @Test
    void ruleNamesDifferingOnlyInCase_areRefused() {
        assertThat(problems(
                        "rule.login.match", "POST /login",
                        "rule.login.limit", "5/1m",
                        "rule.Login.match", "POST /login",
                        "rule.Login.limit", "50/1h"))
                .containsExactly("rule.Login: rule names 'login' and 'Login' differ only in case; names must differ"
                        + " ignoring case (clients see them in RateLimit fields)");
    }

    @Test
    void twoKeysThatAreOneOnceTrimmed_areReportedWithBothSpellings() {
        assertThat(problems(
                        "rule.a.match", "/a",
                        "rule.a.limit", "5/1m",
                        "rule.a.limit ", "50/1m"))
                .containsExactly("rule.a.limit: is set twice (written 'rule.a.limit' and 'rule.a.limit ': blanks"
                        + " around a key do not count)");
        assertThat(parse("  rule.a.match\n", "/a", "rule.a.limit", "5/1m")
                        .rules()
                        .rules())
                .as("a key spread over lines in web.xml is read trimmed")
                .hasSize(1);
    }

    @Test
    void denyStatus_isItsOwnSetting_403ByDefault() {
        assertThat(parse().response().denyStatus()).isEqualTo(403);
        assertThat(parse("deny-status", "404").response().denyStatus()).isEqualTo(404);
        assertThat(problems("deny-status", "200")).containsExactly("deny-status: must be between 400 and 599, was 200");
    }

    @Test
    void keysWrittenWithAPrefix_areNamedAndSuggestedWithIt() {
        assertThat(ConfigProblems.of(() -> ConfigParser.parse(
                        map("rules.c.limit", "5/1m", "rule.c.match", "/c", "rule.c.lmit", "5/1m", "statsu", "503"),
                        "JAX-RS properties leapgate.*",
                        "leapgate.")))
                .containsExactlyInAnyOrder(
                        "leapgate.rules.c.limit: unknown key; did you mean leapgate.rule.c.limit?",
                        "leapgate.rule.c.lmit: unknown rule setting 'lmit'; did you mean leapgate.rule.c.limit?",
                        "leapgate.statsu: unknown key; did you mean leapgate.status?");
    }
}
