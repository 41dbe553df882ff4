package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.leapgate.Origin;
import dev.leapgate.net.Cidr;
import dev.leapgate.net.ForwardingHeader;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The keys of the main configuration, read from a map as a filter's init-params are. */
class GlobalSettingsTest {

    private static final String SOURCE = "web.xml init-params";

    private static LeapgateConfig parse(String... keysAndValues) {
        return ConfigParser.parse(map(keysAndValues), SOURCE);
    }

    private static List<String> problems(String... keysAndValues) {
        return ConfigProblems.of(() -> ConfigParser.parse(map(keysAndValues), SOURCE));
    }

    private static Map<String, String> map(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    @Test
    void emptyMap_givesTheDefaults() {
        LeapgateConfig config = parse();
        LeapgateConfig defaults = LeapgateConfig.defaults();

        assertThat(config.rules()).isEqualTo(RuleSet.empty());
        assertThat(config.rulesFile()).isEmpty();
        assertThat(config.reloadInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.clientIp().trustedProxies().isEmpty()).isTrue();
        assertThat(config.clientIp().forwardingHeader()).isEqualTo(ForwardingHeader.X_FORWARDED_FOR);
        assertThat(config.clientIp().ipv6PrefixLength()).isEqualTo(64);
        assertThat(config.origin()).isEqualTo(OriginSource.ip());
        assertThat(config.response()).isEqualTo(new ResponseSettings(429, 403, RateLimitHeaders.ALL, true));
        assertThat(defaults.rules()).isEqualTo(config.rules());
        assertThat(defaults.reloadInterval()).isEqualTo(config.reloadInterval());
        assertThat(defaults.origin()).isEqualTo(config.origin());
        assertThat(defaults.response()).isEqualTo(config.response());
        assertThat(defaults.clientIp().toString()).isEqualTo(config.clientIp().toString());
    }

    // --- header-origin-shown

    @Test
    void headerOriginShown_fingerprintByDefault_asSentOnRequest_onlyForAHeaderOrigin() {
        assertThat(parse("origin", "header:X-Api-Key").origin().valuesShown()).isFalse();
        assertThat(parse("origin", "header:X-Api-Key", "header-origin-shown", "fingerprint")
                        .origin()
                        .valuesShown())
                .isFalse();
        assertThat(parse("origin", "header:X-Client-Id", "header-origin-shown", "as-sent")
                        .origin())
                .isEqualTo(OriginSource.header("X-Client-Id").valuesShownAsSent());

        assertThat(problems("header-origin-shown", "as-sent"))
                .containsExactly("header-origin-shown: applies only with origin = header:<Header-Name>, and"
                        + " origin is ip (whose values are shown as they are); remove it");
        assertThat(problems("origin", "principal", "header-origin-shown", "fingerprint"))
                .singleElement()
                .asString()
                .contains("origin is principal");
        assertThat(problems("origin", "header:X-Api-Key", "header-origin-shown", "raw"))
                .singleElement()
                .asString()
                .startsWith("header-origin-shown: 'raw' is not allowed; expected fingerprint or as-sent");
    }

    // --- rules-file and reload-interval

    @Test
    void rulesFile_isAPath_andLeavesTheRulesToBeReadFromIt() {
        LeapgateConfig config = parse("rules-file", "/etc/leapgate/rules.properties", "reload-interval", "30s");

        assertThat(config.rulesFile()).contains(Path.of("/etc/leapgate/rules.properties"));
        assertThat(config.reloadInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.rules()).isEqualTo(RuleSet.empty());
    }

    @Test
    void reloadInterval_zero_meansNever() {
        assertThat(parse("rules-file", "rules.properties", "reload-interval", "0s")
                        .reloadInterval())
                .isZero();
    }

    @Test
    void reloadInterval_belowTheMinimum_orWithoutRulesFile_isRejected() {
        assertThat(problems("rules-file", "rules.properties", "reload-interval", "10ms"))
                .containsExactly("reload-interval: must be 0s (never) or between 100ms and 24h, was '10ms'");
        assertThat(problems("rules-file", "rules.properties", "reload-interval", "25h"))
                .containsExactly("reload-interval: must be 0s (never) or between 100ms and 24h, was '25h'");
        assertThat(problems("reload-interval", "1m"))
                .containsExactly(
                        "reload-interval: applies only with rules-file; without one there is nothing to reload");
        assertThat(problems("rules-file", "rules.properties", "reload-interval", "5"))
                .singleElement(STRING)
                .startsWith("reload-interval: '5' is not a duration (no unit)");
    }

    /**
     * With a key prefix (the JAX-RS provider's {@code leapgate.}), a key that a message tells the
     * user to set or remove keeps the prefix, as the key it names the problem by does
     * (jaxrs-filter/README.md: "Every message and suggestion keeps the prefix"). These said
     * {@code rules-file} and {@code origin}, keys the provider would not read.
     */
    @Test
    void withAKeyPrefix_theKeysAMessageNamesKeepIt() {
        assertThat(prefixed("reload-interval", "5s"))
                .containsExactly("leapgate.reload-interval: applies only with leapgate.rules-file; without one there is"
                        + " nothing to reload");
        assertThat(prefixed(
                        "rules-file", "r.properties", "rule.a.match", "/a", "rule.a.limit", "1/s", "deny", "10.0.0.2"))
                .containsExactly(
                        "leapgate.rule.a.match: rules come either inline or from leapgate.rules-file, not both; move"
                                + " the leapgate.rule.* settings to r.properties or remove leapgate.rules-file",
                        // in the rules file, the key has no prefix
                        "leapgate.deny: with leapgate.rules-file, deny belongs in the rules file r.properties, so"
                                + " that it is reloaded with the rules");
        assertThat(prefixed("header-origin-shown", "as-sent"))
                .containsExactly(
                        "leapgate.header-origin-shown: applies only with leapgate.origin = header:<Header-Name>,"
                                + " and leapgate.origin is ip (whose values are shown as they are); remove it");
        assertThat(prefixed("exempt", "bob"))
                .singleElement(STRING)
                .startsWith("leapgate.exempt: 'bob' is not an IP address or block, and with leapgate.origin = ip every"
                        + " client is an address")
                .endsWith("(identifiers apply with leapgate.origin = header:<Name> or principal)");
        assertThat(prefixed("rule.a.match", "/a", "rule.a.limit", "1/s", "rule.a.scope", "origin:bob"))
                .singleElement(STRING)
                .startsWith("leapgate.rule.a.scope: 'origin:bob' names no IP address, and with leapgate.origin = ip"
                        + " every")
                .endsWith("(identifiers apply with leapgate.origin = header:<Name> or principal)");
        assertThat(prefixed(
                        "rule.a.match",
                        "/a",
                        "rule.a.limit",
                        "1/s",
                        "rule.a.scope",
                        "origin:10.0.0.5",
                        "exempt",
                        "10.0.0.0/8"))
                .singleElement(STRING)
                .contains("take it out of leapgate.exempt");
        assertThat(prefixed("origin", "header:X-Forwarded-For"))
                .singleElement(STRING)
                .endsWith("keep leapgate.origin = ip and set leapgate.trusted-proxies (and leapgate.forwarded-header),"
                        + " which walks the header from the right");
        assertThat(problems("origin", "header:X-Forwarded-For"))
                .singleElement(STRING)
                .endsWith("keep origin = ip and set trusted-proxies (and forwarded-header), which walks the header"
                        + " from the right");
    }

    private static List<String> prefixed(String... keysAndValues) {
        return ConfigProblems.of(() -> ConfigParser.parse(map(keysAndValues), SOURCE, "leapgate."));
    }

    @Test
    void rulesFile_empty_isRejected() {
        assertThat(problems("rules-file", "  ")).containsExactly("rules-file: the empty value is not a file path");
    }

    @Test
    void rulesFile_writtenAsAClasspathOrUrlLocation_isRejected_namingTheSetting() {
        for (String location : List.of("classpath:leapgate-rules.properties", "file:/etc/leapgate/rules.properties")) {
            assertThat(problems("rules-file", location))
                    .singleElement(STRING)
                    .startsWith("rules-file: must be a path in the file system, was '" + location + "'")
                    .contains("watched for changes");
        }
        // A Windows drive letter is a path, not a scheme.
        assertThat(parse("rules-file", "C:/leapgate/rules.properties").rulesFile())
                .isPresent();
    }

    @Test
    void store_thatDoesNotParse_isNamedWithoutItsPassword() {
        // A password with a character a URI must escape ('#', ' ', '%'): the usual reason.
        List<String> problems = problems("store", "redis://app:s3cret pa#ss@redis.internal:6379");

        assertThat(problems)
                .singleElement(STRING)
                .startsWith("store: 'redis://app:***@redis.internal:6379' is not a URI")
                .doesNotContain("s3cret")
                .contains("percent-encoded");
        assertThat(problems("store", ":pw@h")).singleElement(STRING).doesNotContain("pw");
    }

    @Test
    void rulesFile_withInlineRules_isRejectedOnce() {
        assertThat(problems(
                        "rule.login.match", "POST /login",
                        "rule.login.limit", "5/1m",
                        "rules-file", "/etc/leapgate/rules.properties"))
                .containsExactly("rule.login.match: rules come either inline or from rules-file, not both; move the"
                        + " rule.* settings to /etc/leapgate/rules.properties or remove rules-file");
    }

    @Test
    void rulesFile_withInlineExemptOrDeny_isRejected() {
        assertThat(problems("rules-file", "r.properties", "exempt", "10.0.0.0/8", "deny", "192.0.2.1"))
                .containsExactly(
                        "exempt: with rules-file, exempt belongs in the rules file r.properties, so that it is"
                                + " reloaded with the rules",
                        "deny: with rules-file, deny belongs in the rules file r.properties, so that it is reloaded"
                                + " with the rules");
    }

    @Test
    void rulesNone_inline_saysThereIsNoRuleOnPurpose_andIsRefusedWithRulesOrARulesFile() {
        LeapgateConfig none = parse("rules", "none", "deny", "192.0.2.1");
        assertThat(none.rules().rules()).isEmpty();
        assertThat(none.rules().deny().toString()).isEqualTo("192.0.2.1/32");

        assertThat(problems("rule.login.match", "POST /login", "rule.login.limit", "5/1m", "rules", "none"))
                .containsExactly(
                        "rules: says there is no rule, but rule.* settings are given; remove one or the other");
        assertThat(problems("rules", "none", "rules-file", "/etc/leapgate/rules.properties"))
                .containsExactly("rules: says there is no rule, but rules-file names a file of rules"
                        + " (/etc/leapgate/rules.properties); remove one or the other (a rules file that holds no"
                        + " rule on purpose says rules = none itself)");
        assertThat(problems("rules", "all"))
                .containsExactly("rules: 'all' is not allowed; rules = none says that there is no rule on purpose,"
                        + " and rules go in rule.<name>.<setting>");
        assertThat(ConfigProblems.of(() -> ConfigParser.parse(
                        map("rules", "none", "rule.a.match", "/a", "rule.a.limit", "1/s"), SOURCE, "leapgate.")))
                .containsExactly("leapgate.rules: says there is no rule, but leapgate.rule.* settings are given;"
                        + " remove one or the other");
    }

    // --- client IP

    @Test
    void trustedProxies_isACidrList() {
        LeapgateConfig config = parse("trusted-proxies", "10.0.0.0/8, 192.168.0.0/16 ::1");

        assertThat(config.clientIp().trustedProxies().cidrs())
                .containsExactly(Cidr.parse("10.0.0.0/8"), Cidr.parse("192.168.0.0/16"), Cidr.parse("::1"));
        assertThat(config.clientIp().resolve("10.1.2.3", List.of(), List.of("203.0.113.9")))
                .contains(IpAddress.parse("203.0.113.9"));
    }

    @Test
    void trustedProxies_badCidr_isRejectedNamingIt() {
        assertThat(problems("trusted-proxies", "10.0.0.0/8, 10.0.0.0/33"))
                .singleElement(STRING)
                .startsWith("trusted-proxies: invalid CIDR '10.0.0.0/33'");
    }

    @ParameterizedTest
    @CsvSource({"x-forwarded-for, X_FORWARDED_FOR", "forwarded, FORWARDED", "prefer-forwarded, PREFER_FORWARDED"})
    void forwardedHeader_eachValue(String text, ForwardingHeader header) {
        assertThat(parse("trusted-proxies", "10.0.0.0/8", "forwarded-header", text)
                        .clientIp()
                        .forwardingHeader())
                .isEqualTo(header);
    }

    /**
     * Forwarding headers are read only from a trusted proxy. Without one, a forwarded-header set for
     * a proxy did nothing, silently: every client behind the proxy counted as the proxy and shared
     * its per-client limits.
     */
    @Test
    void forwardedHeader_withoutATrustedProxy_isRefused_asASettingThatWouldDoNothing() {
        String refusal = "forwarded-header: applies only with trusted-proxies, and no proxy is trusted: the header"
                + " is never read, and every request counts as from its TCP peer (behind a proxy, every client as"
                + " the proxy, sharing its per-client limits); list your proxies in trusted-proxies, or remove"
                + " forwarded-header";
        assertThat(problems("forwarded-header", "forwarded")).containsExactly(refusal);
        assertThat(problems("trusted-proxies", "", "forwarded-header", "x-forwarded-for"))
                .as("an empty list trusts no proxy either")
                .containsExactly(refusal);
        assertThat(problems("trusted-proxies", "10.0.0.0/33", "forwarded-header", "forwarded"))
                .as("an invalid list is reported alone")
                .singleElement(STRING)
                .startsWith("trusted-proxies: invalid CIDR '10.0.0.0/33'");
    }

    @Test
    void forwardedHeader_misspelt_isRejectedWithTheChoices() {
        assertThat(problems("forwarded-header", "x-forwarded"))
                .containsExactly("forwarded-header: 'x-forwarded' is not allowed; expected x-forwarded-for, forwarded"
                        + " or prefer-forwarded; did you mean 'forwarded'?");
    }

    @Test
    void ipv6Prefix_from32To64() {
        assertThat(parse("ipv6-prefix", "48").clientIp().ipv6PrefixLength()).isEqualTo(48);
        assertThat(parse("ipv6-prefix", "32").clientIp().ipv6PrefixLength()).isEqualTo(32);
        assertThat(problems("ipv6-prefix", "80")).containsExactly("ipv6-prefix: must be between 32 and 64, was 80");
        assertThat(problems("ipv6-prefix", "-48")).containsExactly("ipv6-prefix: must be between 32 and 64, was -48");
        assertThat(problems("ipv6-prefix", "/64"))
                .containsExactly("ipv6-prefix: '/64' is not a whole number; expected 32 to 64");
    }

    @Test
    void nat64Prefixes_ipv6Slash96Only() {
        assertThat(parse("nat64-prefixes", "64:ff9b:1::/96, 2001:db8:64::/96")
                        .clientIp()
                        .nat64Prefixes())
                .hasToString("64:ff9b:1::/96, 2001:db8:64::/96");
        assertThat(parse("trusted-proxies", "10.0.0.0/8")
                        .clientIp()
                        .nat64Prefixes()
                        .isEmpty())
                .as("none by default")
                .isTrue();
        assertThat(problems("nat64-prefixes", "64:ff9b:1::/64"))
                .singleElement()
                .asString()
                .startsWith("nat64-prefixes: 64:ff9b:1::/64 is not an IPv6 /96 prefix: a translator writes an IPv4"
                        + " client in the last 32 bits of an address of its /96");
        assertThat(problems("nat64-prefixes", "nat64.example"))
                .singleElement()
                .asString()
                .startsWith("nat64-prefixes: invalid CIDR 'nat64.example': not an IP address");
    }

    // --- origin

    @Test
    void origin_eachForm() {
        assertThat(parse("origin", "ip").origin()).isEqualTo(OriginSource.ip());
        assertThat(parse("origin", "principal").origin()).isEqualTo(OriginSource.principal());
        OriginSource header = parse("origin", "header:X-Api-Key").origin();
        assertThat(header.kind()).isEqualTo(OriginSource.Kind.HEADER);
        assertThat(header.headerName()).isEqualTo("X-Api-Key");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "header:        | origin: 'header:' names no header; expected e.g. header:X-Api-Key",
                "ipp            | origin: 'ipp' is not allowed; expected ip, header:<Header-Name> or principal;"
                        + " did you mean 'ip'?",
                "user           | origin: 'user' is not allowed; expected ip, header:<Header-Name> or principal",
            })
    void origin_invalid_isRejected(String text, String message) {
        assertThat(problems("origin", text)).containsExactly(message);
    }

    @Test
    void origin_headerNameThatIsNotAToken_isRejected() {
        String allowed = "origin: header name must be an RFC 9110 token (letters, digits and !#$%&'*+-.^_`|~), was ";
        assertThat(problems("origin", "header:X Api")).containsExactly(allowed + "'X Api'");
        assertThat(problems("origin", "header:Key(1)")).containsExactly(allowed + "'Key(1)'");
    }

    /**
     * A forwarding list's first entry is the client's own text (each proxy appends after it): as an
     * origin it would let every client name itself anew with each request and escape every
     * per-origin limit. The address behind a proxy is what origin = ip with trusted-proxies gives.
     */
    @ParameterizedTest
    @CsvSource({
        "header:X-Forwarded-For, X-Forwarded-For",
        "header:x-forwarded-for, x-forwarded-for",
        "header:Forwarded, Forwarded"
    })
    void origin_aForwardingHeader_isRefused_pointingToTrustedProxies(String text, String name) {
        assertThat(problems("origin", text))
                .containsExactly("origin: '" + text + "' would let every client choose its origin: the first entry of "
                        + name + " is what the client wrote (each proxy appends after it), so a client that"
                        + " sends another one with each request escapes every per-origin limit; to count"
                        + " clients by their address behind a proxy, keep origin = ip and set trusted-proxies"
                        + " (and forwarded-header), which walks the header from the right");
        assertThat(parse("origin", "header:X-Real-IP").origin().headerName())
                .as("a single address that a proxy sets, not a list")
                .isEqualTo("X-Real-IP");
    }

    /**
     * The same refusal where code builds the origin ({@code LeapgateConfig}, {@code readRulesFile(Path,
     * OriginSource)}, {@code ReloadingRules.load}): not only where a configuration is parsed.
     */
    @ParameterizedTest
    @CsvSource({"X-Forwarded-For", "x-forwarded-for", "Forwarded"})
    void originSource_aForwardingHeader_isRefusedInCodeToo(String name) {
        String message = "origin header:" + name + " would let every client choose its origin: the first entry of "
                + name + " is what the client wrote (each proxy appends after it), so a client that"
                + " sends another one with each request escapes every per-origin limit; to count"
                + " clients by their address behind a proxy, keep origin = ip and set trusted-proxies"
                + " (and forwarded-header), which walks the header from the right";
        assertThatThrownBy(() -> OriginSource.header(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
        assertThatThrownBy(() -> new OriginSource(OriginSource.Kind.HEADER, name, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
        assertThat(OriginSource.header("X-Forwarded-Host").headerName()).isEqualTo("X-Forwarded-Host");
    }

    // --- exempt and deny

    @Test
    void exemptAndDeny_areOriginLists() {
        RuleSet rules = parse(
                        "origin",
                        "header:X-Api-Key",
                        "exempt",
                        "10.0.0.0/8, health-check",
                        "deny",
                        "203.0.113.0/24 bad-bot")
                .rules();

        assertThat(rules.exempt().contains(Origin.ip(IpAddress.parse("10.9.9.9"), 64)))
                .isTrue();
        assertThat(rules.exempt().contains(Origin.id("health-check"))).isTrue();
        assertThat(rules.exempt().contains(Origin.id("bad-bot"))).isFalse();
        assertThat(rules.deny().contains(Origin.ip(IpAddress.parse("203.0.113.50"), 64)))
                .isTrue();
        assertThat(rules.deny().contains(Origin.id("bad-bot"))).isTrue();
    }

    @Test
    void exempt_badRange_isRejected() {
        assertThat(problems("exempt", "10.0.0.0/40")).singleElement(STRING).startsWith("exempt: invalid CIDR");
        assertThat(problems("deny", "10.0.0.300")).singleElement(STRING).startsWith("deny: invalid CIDR '10.0.0.300'");
    }

    @Test
    void exemptAndDeny_addressesJoinedBySemicolons_areRejected_neverReadAsOneIdentifier() {
        // With a header origin, an entry that is no address is an identifier: read so,
        // "203.0.113.5;203.0.113.6" would deny neither address, and nothing would say so.
        assertThat(problems("origin", "header:X-Api-Key", "deny", "203.0.113.5;203.0.113.6"))
                .containsExactly("deny: invalid CIDR '203.0.113.5;203.0.113.6': entries are separated by commas"
                        + " or spaces, not ';': write 203.0.113.5, 203.0.113.6");
        assertThat(problems("exempt", "10.0.0.0/8;192.168.0.0/16"))
                .containsExactly("exempt: invalid CIDR '10.0.0.0/8;192.168.0.0/16': entries are separated by"
                        + " commas or spaces, not ';': write 10.0.0.0/8, 192.168.0.0/16");
        // An identifier with a ';' that is not a list of addresses stays an identifier.
        assertThat(parse("origin", "header:X-Api-Key", "exempt", "key;one")
                        .rules()
                        .exempt()
                        .contains(Origin.id("key;one")))
                .isTrue();
    }

    /**
     * With a header or principal origin, an entry that is no address is an identifier: a no-break
     * space (copied from a web page) stuck to an address, a form feed between two keys, an IPv6
     * address in brackets or with a zone each made one that no client has, so that nothing was
     * denied or exempted, and nothing said so.
     */
    @Test
    void exemptAndDeny_entriesThatWouldSilentlyBecomeIdentifiers_areRejected() {
        for (String origin : List.of("header:X-Api-Key", "principal")) {
            assertThat(problems("origin", origin, "deny", "198.51.100.7\u00A0"))
                    .singleElement(STRING)
                    .startsWith("deny: ")
                    .contains("holds a blank other than a space, \\u00A0");
            assertThat(problems("origin", origin, "deny", "stolen-key\u00A0# abuser"))
                    .singleElement(STRING)
                    .contains("holds a blank other than a space");
            assertThat(problems("origin", origin, "exempt", "k1\fk2"))
                    .singleElement(STRING)
                    .startsWith("exempt: ")
                    .contains("holds a blank other than a space");
            assertThat(problems("origin", origin, "deny", "[2001:db8::1]"))
                    .containsExactly("deny: '[2001:db8::1]' is an address in brackets, as in a URL: write 2001:db8::1");
            assertThat(problems("origin", origin, "deny", "fe80::1%eth0"))
                    .containsExactly(
                            "deny: 'fe80::1%eth0' has a zone (%eth0), which no client's address carries: write fe80::1");
        }
        // What is fine stays so.
        assertThat(parse("origin", "header:X-Api-Key", "deny", "198.51.100.7 key-1,\tkey-2")
                        .rules()
                        .deny()
                        .identifiers())
                .containsExactlyInAnyOrder("key-1", "key-2");
    }

    /** origin:<value> names one origin; several addresses were one identifier with a header origin. */
    @Test
    void aScopeNamingSeveralAddresses_orAnAddressWithABlank_isRejected() {
        String[] rule = {"rule.crawlers.match", "/api/**", "rule.crawlers.limit", "1/1m"};
        for (String scope : List.of("origin:203.0.113.5, 203.0.113.6", "origin:203.0.113.5;203.0.113.6")) {
            assertThat(problems(with(rule, "origin", "header:X-Api-Key", "rule.crawlers.scope", scope)))
                    .singleElement(STRING)
                    .contains("names several addresses; origin:<value> takes one: write a rule for each"
                            + " (203.0.113.5, 203.0.113.6)");
        }
        assertThat(problems(with(rule, "origin", "principal", "rule.crawlers.scope", "origin:203.0.113.7\u00A0")))
                .singleElement(STRING)
                .contains("holds a blank other than a space");
        // A principal's name with a comma is one origin.
        assertThat(parse(with(rule, "origin", "principal", "rule.crawlers.scope", "origin:CN=a, O=b"))
                        .rules()
                        .rules()
                        .get(0)
                        .scope())
                .isEqualTo(dev.leapgate.rule.Scope.origin("CN=a, O=b"));
    }

    private static String[] with(String[] rule, String... more) {
        String[] all = java.util.Arrays.copyOf(rule, rule.length + more.length);
        System.arraycopy(more, 0, all, rule.length, more.length);
        return all;
    }

    @Test
    void trustedProxiesAndStatusAllow_blocksJoinedBySemicolons_areRejectedSayingHowToSeparate() {
        assertThat(problems("trusted-proxies", "10.0.0.0/8;192.168.0.0/16"))
                .containsExactly("trusted-proxies: invalid CIDR '10.0.0.0/8;192.168.0.0/16': entries are separated"
                        + " by commas or spaces, not ';': write 10.0.0.0/8, 192.168.0.0/16");
        assertThat(problems("status-path", "/leapgate/status", "status-allow", "127.0.0.1;::1"))
                .containsExactly("status-allow: invalid CIDR '127.0.0.1;::1': entries are separated by commas or"
                        + " spaces, not ';': write 127.0.0.1, ::1");
    }

    // --- response

    @Test
    void status_from400To599() {
        assertThat(parse("status", "503").response().status()).isEqualTo(503);
        assertThat(problems("status", "200")).containsExactly("status: must be between 400 and 599, was 200");
        assertThat(problems("status", "600")).containsExactly("status: must be between 400 and 599, was 600");
    }

    @ParameterizedTest
    @CsvSource({"all, ALL", "rejected, REJECTED", "none, NONE"})
    void rateLimitHeaders_eachValue(String text, RateLimitHeaders headers) {
        assertThat(parse("rate-limit-headers", text).response().headers()).isEqualTo(headers);
    }

    @Test
    void body_problemOrNone() {
        assertThat(parse("body", "problem").response().problemBody()).isTrue();
        assertThat(parse("body", "none").response().problemBody()).isFalse();
        assertThat(problems("body", "json")).containsExactly("body: 'json' is not allowed; expected problem or none");
    }

    // --- keys

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "stauts            | stauts: unknown key; did you mean status?",
                "Status            | Status: unknown key; did you mean status?",
                "trusted-proxys    | trusted-proxys: unknown key; did you mean trusted-proxies?",
                "ipv6_prefix       | ipv6_prefix: unknown key; did you mean ipv6-prefix?",
                "rules.login.match | rules.login.match: unknown key; did you mean rule.login.match?",
                "trusted-proxy     | trusted-proxy: unknown key; did you mean trusted-proxies?",
                "rule-b.match      | rule-b.match: unknown key; did you mean rule.b.match?",
                "rule_api.mtach    | rule_api.mtach: unknown key; did you mean rule.api.match?",
                "rulelogin.limit   | rulelogin.limit: unknown key; did you mean rule.login.limit?",
                "rules.limit       | rules.limit: unknown key; did you mean rule.<name>.limit?",
                "rulea.limit       | rulea.limit: unknown key; did you mean rule.<name>.limit?",
                "match             | match: unknown key; a rule setting is written rule.<name>.match,"
                        + " e.g. rule.login.match",
                "limits            | limits: unknown key; expected rule.<name>.<setting> or rules-file,"
                        + " reload-interval, trusted-proxies, allow-wide-trusted-proxies, forwarded-header,"
                        + " ipv6-prefix, nat64-prefixes, origin, header-origin-shown, exempt, allow-wide-exempt, deny, status, deny-status,"
                        + " rate-limit-headers, body, rejection-log, status-path, status-allow, status-hosts, store, store-key-prefix, store-timeout, store-on-failure or store-instances",
            })
    void unknownKey_isRejected_withTheLikeliestKey(String key, String message) {
        assertThat(problems(key, "x")).containsExactly(message);
    }

    @Test
    void keysAndValues_areTrimmed_andANullValueIsEmpty() {
        Map<String, String> map = new HashMap<>();
        map.put("  status ", " 503\n");
        map.put("exempt", null);
        LeapgateConfig config = ConfigParser.parse(map, SOURCE);

        assertThat(config.response().status()).isEqualTo(503);
        assertThat(config.rules().exempt().isEmpty()).isTrue();
    }

    @Test
    void inlineRules_keepTheMapsOrder() {
        LeapgateConfig config = parse(
                "rule.zeta.match", "/z",
                "rule.zeta.limit", "1/s",
                "rule.alpha.match", "/a",
                "rule.alpha.in-flight", "1");

        assertThat(config.rules().rules()).extracting(FlowRule::name).containsExactly("zeta", "alpha");
    }

    @Test
    void everyMistake_isReportedTogether_inOneException() {
        ConfigException e = ConfigProblems.catchConfigException(() -> ConfigParser.parse(
                map("status", "200", "ipv6-prefix", "80", "bodyy", "none", "rule.a.limit", "5/1m"), SOURCE));

        assertThat(e.source()).isEqualTo(SOURCE);
        assertThat(e.problems())
                .containsExactly(
                        "status: must be between 400 and 599, was 200",
                        "ipv6-prefix: must be between 32 and 64, was 80",
                        "bodyy: unknown key; did you mean body?",
                        "rule.a: needs a match, e.g. rule.a.match=POST /login or rule.a.match=/api/**");
        assertThat(e.getMessage())
                .isEqualTo("4 problems in web.xml init-params:\n"
                        + "  - status: must be between 400 and 599, was 200\n"
                        + "  - ipv6-prefix: must be between 32 and 64, was 80\n"
                        + "  - bodyy: unknown key; did you mean body?\n"
                        + "  - rule.a: needs a match, e.g. rule.a.match=POST /login or rule.a.match=/api/**");
    }

    @Test
    void rejectionLog_isTenSecondsByDefault_zeroTurnsItOff_andShortOrBadValuesAreNamed() {
        assertThat(ConfigParser.parse(Map.of(), "test").monitoring().rejectionLog())
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(ConfigParser.parse(Map.of("rejection-log", "0s"), "test")
                        .monitoring()
                        .rejectionLog())
                .isZero();
        assertThat(ConfigParser.parse(Map.of("rejection-log", "1m"), "test")
                        .monitoring()
                        .rejectionLog())
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(ConfigProblems.of(() -> ConfigParser.parse(Map.of("rejection-log", "500ms"), "test")))
                .containsExactly("rejection-log: must be 0s (no lines) or between 1s and 24h, was '500ms'");
    }

    @Test
    void statusPath_isOffByDefault_mustBeAPlainPath_andStatusAllowNeedsIt() {
        MonitoringSettings defaults = ConfigParser.parse(Map.of(), "test").monitoring();
        assertThat(defaults.statusPath()).isEmpty();
        assertThat(defaults.statusAllow().contains(dev.leapgate.net.IpAddress.parse("127.0.0.1")))
                .isTrue();
        assertThat(defaults.statusAllow().contains(dev.leapgate.net.IpAddress.parse("10.0.0.1")))
                .isFalse();
        assertThat(ConfigParser.parse(Map.of("status-path", "/leapgate/status"), "test")
                        .monitoring()
                        .statusPath())
                .hasValue("/leapgate/status");
        Map<String, String> suggestions = new LinkedHashMap<>();
        suggestions.put("leapgate/status", "");
        suggestions.put("/status/**", "");
        suggestions.put("/users/{id}", "");
        suggestions.put("/a/../status", "; did you mean /status?");
        suggestions.put("/leapgate//status", "; did you mean /leapgate/status?");
        suggestions.put("/leapgate/status/", "; did you mean /leapgate/status?");
        suggestions.put("/status?x=1", "; did you mean /status?");
        suggestions.put("/%73tatus", "; did you mean /status?");
        suggestions.put("/..", "");
        suggestions.forEach((bad, suggestion) -> assertThat(
                        ConfigProblems.of(() -> ConfigParser.parse(Map.of("status-path", bad), "test")))
                .as(bad)
                .containsExactly("status-path: must be a plain path within the application, such as"
                        + " /leapgate/status (starting with '/', no wildcards, no dot segments, no doubled or"
                        + " trailing slashes, no query, no escapes of characters that need none), was '" + bad
                        + "'" + suggestion));
        assertThat(ConfigProblems.of(() -> ConfigParser.parse(Map.of("status-allow", "10.0.0.0/8"), "test")))
                .containsExactly(
                        "status-allow: applies only with status-path; without it there is no status to answer");
        assertThat(ConfigProblems.of(() -> ConfigParser.parse(Map.of("status-hosts", "ops.example"), "test")))
                .containsExactly(
                        "status-hosts: applies only with status-path; without it there is no status to answer");
    }

    /** A rules file's path with an invisible character failed as "no such file", the path shown looking right. */
    @Test
    void aRulesFilePathWithAnInvisibleCharacter_isRefusedNamingIt() {
        assertThat(problems("rules-file", "/etc/leapgate/rules.properties\u200b"))
                .singleElement()
                .asString()
                .startsWith("rules-file: ")
                .contains("\\u200B");
    }

    @Test
    void statusHosts_areHostNames_orAnyAlone() {
        for (String[] bad : new String[][] {
            {"ops.example:8443", "'ops.example:8443' (no port) is not one"},
            {"ops.example,", "an empty name"},
            {"http://ops.example", "'http://ops.example' is not one"},
            {"*, ops.example", "* (any host) stands alone, was '*, ops.example'"},
            {"-ops.example", "'-ops.example' is not one"},
            // Longer than DNS allows; 2,000 labels overflowed the stack (a StackOverflowError, not a
            // configuration error: found by a review helper).
            {"a".repeat(64) + ".example", "is not one"},
            {"a.".repeat(127) + "example", "is not one"},
            {"a.".repeat(2000) + "example", "is not one"},
        }) {
            assertThat(ConfigProblems.of(
                            () -> ConfigParser.parse(Map.of("status-path", "/status", "status-hosts", bad[0]), "test")))
                    .as(bad[0])
                    .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                    .startsWith("status-hosts: ")
                    .contains(bad[1]);
        }
        assertThat(ConfigParser.parse(Map.of("status-path", "/status", "status-hosts", " Ops.Example., b-1.x "), "test")
                        .monitoring()
                        .statusHosts())
                .containsExactlyInAnyOrder("ops.example", "b-1.x");
    }
}
