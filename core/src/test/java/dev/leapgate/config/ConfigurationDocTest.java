package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every snippet in CONFIGURATION.md parses, so the reference cannot drift from the parser. */
class ConfigurationDocTest {

    private static final Pattern BLOCK = Pattern.compile("```(properties|xml|text)\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern INIT_PARAM =
            Pattern.compile("<init-param><param-name>(.*?)</param-name><param-value>(.*?)</param-value></init-param>");

    private static String doc() throws IOException {
        // Surefire runs in the module directory; the document is at the repository root.
        return Files.readString(Path.of("..", "CONFIGURATION.md"));
    }

    /** The fenced blocks of one language, before the section on errors (whose inputs are invalid). */
    private static List<String> blocks(String language) throws IOException {
        String doc = doc();
        return blocks(doc.substring(0, doc.indexOf("## Errors")), language);
    }

    private static List<String> blocks(String text, String language) {
        List<String> blocks = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(language)) {
                blocks.add(m.group(2));
            }
        }
        return blocks;
    }

    @Test
    void everyPropertiesSnippet_isAValidConfiguration() throws IOException {
        List<String> blocks = blocks("properties");

        assertThat(blocks).hasSize(3);
        for (String block : blocks) {
            assertThat(ConfigParser.parseProperties(block, "CONFIGURATION.md")
                            .rules()
                            .rules())
                    .as(block)
                    .isNotEmpty();
        }
    }

    @Test
    void everyWebXmlSnippet_isAValidConfiguration_andMatchesItsPropertiesTwin() throws IOException {
        List<String> xml = blocks("xml");
        List<String> properties = blocks("properties");

        assertThat(xml).hasSize(4);
        for (int i = 0; i < xml.size(); i++) {
            Map<String, String> params = new LinkedHashMap<>();
            Matcher m = INIT_PARAM.matcher(xml.get(i));
            while (m.find()) {
                params.put(m.group(1), m.group(2));
            }
            assertThat(params).as(xml.get(i)).isNotEmpty();
            LeapgateConfig config = ConfigParser.parse(params, "CONFIGURATION.md");
            if (i < properties.size()) {
                assertThat(config.rules())
                        .isEqualTo(ConfigParser.parseProperties(properties.get(i), "CONFIGURATION.md")
                                .rules());
            } else {
                assertThat(config.rulesFile()).isPresent();
            }
        }
    }

    @Test
    void theErrorsSection_quotesWhatTheParserSaysOfItsExample() throws IOException {
        String errors = doc().substring(doc().indexOf("## Errors"));
        String input = blocks(errors, "properties").get(0);
        String quoted = blocks(errors, "text").get(0);

        assertThat(ConfigProblems.catchConfigException(() ->
                                ConfigParser.parseRules(input, "/etc/leapgate/rules.properties", OriginSource.ip()))
                        .getMessage()
                        .strip())
                .isEqualTo(quoted.strip());
    }

    @Test
    void theRefusalsQuoted_areTheParsersOwnWords() throws IOException {
        String errors = doc().substring(doc().indexOf("## Errors"));
        List<String> quoted = blocks(errors, "text");
        Map<String, String> params = new LinkedHashMap<>();
        params.put("rule.login.match", "post /login");
        params.put("rule.login.limit", "5/1m");
        params.put("rule.api.match", "/api/**");
        params.put("rule.api.limit", "100/10s");
        params.put("rule.copy.match", "/api/**");
        params.put("rule.copy.limit", "100/10s");
        params.put("trusted-proxies", "0.0.0.0/0");
        params.put("exempt", "localhost");

        assertThat(ConfigProblems.catchConfigException(
                                () -> ConfigParser.parse(params, "init-params of filter 'leapgate'"))
                        .getMessage()
                        .strip())
                .isEqualTo(quoted.get(1).strip());
        assertThat(ConfigProblems.catchConfigException(() -> ConfigParser.parseRules(
                                "# no rule yet\n", "/etc/leapgate/rules.properties", OriginSource.ip()))
                        .getMessage()
                        .strip())
                .isEqualTo(quoted.get(2).strip());
    }

    @Test
    void theIpv6WarningsQuoted_areTheGatesOwnWords() throws IOException {
        String errors = doc().substring(doc().indexOf("## Errors"));
        String quoted = blocks(errors, "text").get(3);
        Map<String, String> params = new LinkedHashMap<>();
        params.put("rule.crawler.match", "/api/**");
        params.put("rule.crawler.limit", "10/1m");
        params.put("rule.crawler.scope", "origin:2001:db8:1:2::7");
        params.put("deny", "2001:db8:1:2::7");

        dev.leapgate.http.HttpGate gate = dev.leapgate.http.HttpGate.builder(
                        ConfigParser.parse(params, "CONFIGURATION.md"))
                .build();

        assertThat(String.join("\n", gate.warnings())).isEqualTo(quoted.strip());
    }
}
