package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.ManualClock;
import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.config.MonitoringSettings;
import dev.leapgate.config.ResponseSettings;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.HttpRequestView;
import dev.leapgate.http.RejectionResponse;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.store.StoreSettings;
import dev.leapgate.testing.JavaSnippets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every Java snippet of the documents compiles as it is written, with its imports, against the
 * published modules and the servlet and JAX-RS APIs: a user can paste it into a file. (This module
 * is the one whose class path has all of them.) A document's snippets are compiled together, as
 * one application, since one may use another's class. The snippets whose behaviour the text
 * describes also run, in the tests of the module they document.
 *
 * <p>The configuration the documents show (web.xml init-params, rules files, JAX-RS properties)
 * is read by the parser, the responses and messages they quote are what the code says, and the
 * settings tables name every setting the parser accepts, with its default.
 */
class DocumentationSnippetsTest {

    private static final Pattern FENCED = Pattern.compile("(?m)^ *```(\\w*)\\n(.*?)^ *```", Pattern.DOTALL);
    private static final Pattern INIT_PARAM = Pattern.compile(
            "<param-name>\\s*(.*?)\\s*</param-name>\\s*<param-value>\\s*(.*?)\\s*</param-value>", Pattern.DOTALL);

    @ParameterizedTest
    @ValueSource(strings = {"README.md", "jaxrs-filter/README.md"})
    void everySnippet_compilesWithItsImports(String document) throws Exception {
        List<String> snippets = JavaSnippets.of(JavaSnippets.document(document));

        ClassLoader compiled = JavaSnippets.compile(snippets);

        assertThat(snippets).as(document).hasSizeGreaterThanOrEqualTo(4);
        for (String snippet : snippets) {
            String type = JavaSnippets.typeName(snippet);
            assertThat(compiled.loadClass(type).getSimpleName()).as(document).isEqualTo(type);
        }
    }

    @Test
    void readmeWebXml_isValid_andItsRejectionIsTheOneShown() throws IOException {
        String webXml = block("README.md", "xml", "<filter-class>dev.leapgate.servlet.LeapgateFilter");
        ManualClock clock = new ManualClock();
        HttpGate gate = HttpGate.builder(ConfigParser.parse(initParams(webXml), "README.md"))
                .clock(clock)
                .build();
        assertThat(gate.rules().rules())
                .extracting(FlowRule::name)
                .containsExactly("login", "api-ip", "api-all", "exports");

        // Five logins at the start of a bucket of the minute's window, the sixth 58 s later: the
        // five leave the strict window 66 s after they came (a window and a bucket), 8 s on.
        for (int i = 0; i < 5; i++) {
            assertThat(gate.enter(request("POST", "/login", "203.0.113.7"))).isInstanceOf(Entry.class);
        }
        clock.advance(Duration.ofSeconds(58));
        Decision sixth = gate.enter(request("POST", "/login", "203.0.113.7"));

        assertThat(sixth).isInstanceOf(Rejection.class);
        RejectionResponse response = gate.rejection((Rejection) sixth);
        String shown = block("README.md", "", "HTTP/1.1 429 Too Many Requests\nRetry-After: 8");
        assertThat(asShown(response)).isEqualTo(shown.strip());
    }

    @Test
    void readmeInitParamErrors_areTheParsersMessage() throws IOException {
        String shown = block("README.md", "", "jakarta.servlet.ServletException: 2 problems");
        Map<String, String> params = new LinkedHashMap<>();
        params.put("status", "200");
        params.put("rule.api.match", "/api/**");
        params.put("rule.api.limit", "ten/10s");

        ConfigException e = catchThrowableOfType(
                ConfigException.class, () -> ConfigParser.parse(params, "init-params of filter 'leapgate'"));

        assertThat("jakarta.servlet.ServletException: " + e.getMessage()).isEqualTo(shown.strip());
    }

    @Test
    void readmeRulesFiles_areValidRulesFiles() throws IOException {
        List<String> blocks = blocks("README.md", "properties");

        assertThat(blocks).hasSizeGreaterThanOrEqualTo(3);
        for (String block : blocks) {
            assertThat(ConfigParser.parseRules(block, "README.md").rules())
                    .as(block)
                    .isNotEmpty();
            assertThat(ConfigParser.parseProperties(block, "README.md").rules().rules())
                    .as(block)
                    .isNotEmpty();
        }
    }

    @Test
    void readmeRulesFile_exemptsTheMonitoringHost() throws IOException {
        String file = block("README.md", "properties", "# WEB-INF/leapgate-rules.properties");
        HttpGate gate = HttpGate.builder(ConfigParser.parseProperties(file, "README.md"))
                .build();

        for (int i = 0; i < 10; i++) {
            assertThat(gate.enter(request("POST", "/login", "192.0.2.10"))).isInstanceOf(Entry.class);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(gate.enter(request("POST", "/login", "192.0.2.11"))).isInstanceOf(Entry.class);
        }
        assertThat(gate.enter(request("POST", "/login", "192.0.2.11"))).isInstanceOf(Rejection.class);
    }

    @Test
    void readmeStoreInitParam_isValid() throws IOException {
        String store = block("README.md", "xml", "<param-name>store</param-name>");
        Map<String, String> params = initParams(store);
        params.put("rule.api.match", "/api/**");
        params.put("rule.api.limit", "100/10s");

        assertThat(ConfigParser.parse(params, "README.md").store()).isPresent();
    }

    /**
     * The demo's walk-through: the line to change is in the demo's rules file, the change is
     * applied, and the mistake it then shows is rejected with the message the README quotes.
     */
    @Test
    void readmeDemoReload_editsTheDemosRulesFile_andQuotesItsRejection() throws IOException {
        String rules = Files.readString(
                JavaSnippets.document("demo/src/main/webapp/WEB-INF/leapgate-rules.properties"),
                StandardCharsets.UTF_8);
        String line = "rule.hello.limit = 5/10s";
        assertThat(rules).contains(line);

        RuleSet changed = ConfigParser.parseRules(rules.replace(line, "rule.hello.limit = 100/1m"), "demo");
        assertThat(changed.rules())
                .filteredOn(r -> r.name().equals("hello"))
                .singleElement()
                .satisfies(hello -> {
                    assertThat(hello.limit()).isEqualTo(100);
                    assertThat(hello.window().length()).isEqualTo(Duration.ofMinutes(1));
                });

        String warning = block("README.md", "", "Leapgate keeps its previous rules");
        String prefix = "WARN ReloadingRules - Leapgate keeps its previous rules: ";
        assertThat(warning).startsWith(prefix);
        ConfigException e = catchThrowableOfType(
                ConfigException.class,
                () -> ConfigParser.parseRules(
                        rules.replace(line, "rule.hello.limit = 100/1min"), ".../WEB-INF/leapgate-rules.properties"));
        assertThat(e.getMessage()).isEqualTo(warning.substring(prefix.length()).strip());
    }

    @Test
    void settingsTables_nameEverySettingThereIs() throws IOException {
        Set<String> main = new LinkedHashSet<>(ConfigParser.settingKeys());
        main.add("rules");
        Set<String> filter = new LinkedHashSet<>(main);
        filter.add("block-handler");

        assertThat(table("README.md", "### Filter and client settings").keySet())
                .containsExactlyInAnyOrderElementsOf(filter);
        assertThat(table("CONFIGURATION.md", "## Main keys").keySet()).containsExactlyInAnyOrderElementsOf(main);
        assertThat(table("README.md", "### Rule settings").keySet())
                .containsExactlyInAnyOrderElementsOf(ConfigParser.ruleSettingKeys());
        assertThat(table("CONFIGURATION.md", "## Rule keys").keySet())
                .containsExactlyInAnyOrderElementsOf(ConfigParser.ruleSettingKeys());
    }

    @ParameterizedTest
    @ValueSource(strings = {"README.md", "CONFIGURATION.md"})
    void settingsTables_giveTheDefaultsTheCodeHas(String document) throws IOException {
        boolean readme = document.equals("README.md");
        Map<String, String> main = table(document, readme ? "### Filter and client settings" : "## Main keys");
        Map<String, String> rule = table(document, readme ? "### Rule settings" : "## Rule keys");

        assertThat(duration(main.get("reload-interval"))).isEqualTo(LeapgateConfig.DEFAULT_RELOAD_INTERVAL);
        assertThat(duration(main.get("rejection-log"))).isEqualTo(MonitoringSettings.DEFAULT_REJECTION_LOG);
        assertThat(code(main.get("status-allow"))).isEqualTo(MonitoringSettings.DEFAULT_STATUS_ALLOW);
        assertThat(code(main.get("status"))).isEqualTo(Integer.toString(ResponseSettings.DEFAULT_STATUS));
        assertThat(code(main.get("deny-status"))).isEqualTo(Integer.toString(ResponseSettings.DEFAULT_DENY_STATUS));
        assertThat(code(main.get("ipv6-prefix"))).isEqualTo("64");
        assertThat(code(main.get("forwarded-header"))).isEqualTo("x-forwarded-for");
        assertThat(code(main.get("origin"))).isEqualTo("ip");
        assertThat(code(main.get("header-origin-shown"))).isEqualTo("fingerprint");
        assertThat(code(main.get("rate-limit-headers"))).isEqualTo("all");
        assertThat(code(main.get("body"))).isEqualTo("problem");
        assertThat(code(main.get("allow-wide-trusted-proxies"))).isEqualTo("false");
        assertThat(code(main.get("allow-wide-exempt"))).isEqualTo("false");
        assertThat(code(main.get("store-key-prefix"))).isEqualTo(StoreSettings.DEFAULT_KEY_PREFIX);
        assertThat(duration(main.get("store-timeout"))).isEqualTo(StoreSettings.DEFAULT_TIMEOUT);
        assertThat(code(main.get("store-on-failure"))).isEqualTo("local-share");
        assertThat(code(main.get("store-instances"))).isEqualTo("auto");

        assertThat(code(rule.get("buckets"))).isEqualTo(Integer.toString(WindowSpec.DEFAULT_BUCKETS));
        assertThat(code(rule.get("window"))).isEqualTo("strict");
        assertThat(code(rule.get("scope"))).isEqualTo("all");
        assertThat(code(rule.get("max-origins"))).isEqualTo(Integer.toString(FlowRule.DEFAULT_MAX_ORIGINS));
        assertThat(code(rule.get("on-excess"))).isEqualTo("reject");
        assertThat(duration(rule.get("max-queue"))).isEqualTo(OnExcess.DEFAULT_MAX_QUEUE);
        assertThat(Double.parseDouble(code(rule.get("cold-factor")))).isEqualTo(OnExcess.DEFAULT_COLD_FACTOR);
        assertThat(duration(rule.get("warm-up"))).isEqualTo(OnExcess.DEFAULT_WARM_UP);
        assertThat(duration(rule.get("max-wait"))).isEqualTo(OnExcess.DEFAULT_MAX_WAIT);
        assertThat(code(rule.get("mode"))).isEqualTo("enforce");
        assertThat(code(rule.get("store"))).isEqualTo("shared");
    }

    /** The JAX-RS README's settings, as web.xml init-params and as application properties, are valid. */
    @Test
    void jaxrsReadmeSettings_areValid() throws IOException {
        List<Map<String, String>> configurations = new ArrayList<>();
        for (String xml : blocks("jaxrs-filter/README.md", "xml")) {
            Map<String, String> leapgate = new LinkedHashMap<>();
            initParams(xml).forEach((key, value) -> {
                if (key.startsWith("leapgate.")) {
                    leapgate.put(key, value);
                }
            });
            if (!leapgate.isEmpty()) {
                configurations.add(leapgate);
            }
        }
        Pattern property = Pattern.compile("\"(leapgate\\.[^\"]+)\",\\s*\"([^\"]*)\"");
        for (String java : blocks("jaxrs-filter/README.md", "java")) {
            Map<String, String> leapgate = new LinkedHashMap<>();
            Matcher m = property.matcher(java);
            while (m.find()) {
                leapgate.put(m.group(1), m.group(2));
            }
            if (!leapgate.isEmpty()) {
                configurations.add(leapgate);
            }
        }

        assertThat(configurations).hasSize(3);
        for (Map<String, String> settings : configurations) {
            Map<String, String> unprefixed = new LinkedHashMap<>();
            settings.forEach((key, value) -> unprefixed.put(key.substring("leapgate.".length()), value));
            assertThat(ConfigParser.misplacedKeys(settings.keySet(), "leapgate."))
                    .as("%s", settings)
                    .isEmpty();
            assertThat(ConfigParser.parse(unprefixed, "jaxrs-filter/README.md", "leapgate.")
                            .rules()
                            .rules())
                    .as("%s", settings)
                    .isNotEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static String text(String document) throws IOException {
        return Files.readString(JavaSnippets.document(document), StandardCharsets.UTF_8);
    }

    /** The fenced blocks of a document in one language ("" for a block without one), unindented. */
    private static List<String> blocks(String document, String language) throws IOException {
        List<String> blocks = new ArrayList<>();
        Matcher m = FENCED.matcher(text(document));
        while (m.find()) {
            if (m.group(1).equals(language)) {
                blocks.add(m.group(2).replaceAll("(?m)^   ", ""));
            }
        }
        return blocks;
    }

    /** The one fenced block of a language that holds {@code containing}. */
    private static String block(String document, String language, String containing) throws IOException {
        List<String> found = blocks(document, language).stream()
                .filter(b -> b.contains(containing))
                .toList();
        assertThat(found)
                .as("%s blocks of %s holding %s", language, document, containing)
                .hasSize(1);
        return found.get(0);
    }

    private static Map<String, String> initParams(String xml) {
        Map<String, String> params = new LinkedHashMap<>();
        Matcher m = INIT_PARAM.matcher(xml);
        while (m.find()) {
            params.put(m.group(1), m.group(2));
        }
        return params;
    }

    /**
     * The settings table under a heading: first column the setting (in backticks), second its
     * default, as written.
     */
    private static Map<String, String> table(String document, String heading) throws IOException {
        String text = text(document);
        int at = text.indexOf("\n" + heading);
        assertThat(at).as("%s in %s", heading, document).isNotNegative();
        Map<String, String> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : text.substring(at + 1).split("\n")) {
            if (line.startsWith("|")) {
                inTable = true;
                String[] cells = line.split("(?<!\\\\)\\|");
                String key = cells[1].strip();
                if (key.startsWith("`") && key.endsWith("`")) {
                    rows.put(key.substring(1, key.length() - 1), cells[2].strip());
                }
            } else if (inTable) {
                break;
            }
        }
        return rows;
    }

    /** A cell's value in backticks. */
    private static String code(String cell) {
        assertThat(cell).isNotNull().startsWith("`").endsWith("`");
        return cell.substring(1, cell.length() - 1);
    }

    private static Duration duration(String cell) {
        return ConfigParser.parseDuration(code(cell));
    }

    /** A response written as the README shows one: status line, header fields, a blank line, body. */
    private static String asShown(RejectionResponse response) {
        StringBuilder s = new StringBuilder("HTTP/1.1 " + response.status() + " Too Many Requests\n");
        response.headers()
                .forEach((name, value) ->
                        s.append(name).append(": ").append(value).append('\n'));
        s.append("Content-Type: ").append(response.contentType()).append("\n\n");
        return s.append(new String(response.body(), StandardCharsets.UTF_8)).toString();
    }

    private static HttpRequestView request(String method, String path, String peer) {
        return new HttpRequestView() {
            @Override
            public String method() {
                return method;
            }

            @Override
            public String rawPath() {
                return path;
            }

            @Override
            public String remoteAddr() {
                return peer;
            }

            @Override
            public List<String> headers(String name) {
                return List.of();
            }

            @Override
            public String principal() {
                return null;
            }
        };
    }
}
