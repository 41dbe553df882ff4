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

    private static final Pattern BLOCK = Pattern.compile("```(properties|xml)\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern INIT_PARAM =
            Pattern.compile("<init-param><param-name>(.*?)</param-name><param-value>(.*?)</param-value></init-param>");

    private static List<String> blocks(String language) throws IOException {
        // Surefire runs in the module directory; the document is at the repository root.
        String doc = Files.readString(Path.of("..", "CONFIGURATION.md"));
        List<String> blocks = new ArrayList<>();
        Matcher m = BLOCK.matcher(doc);
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
}
