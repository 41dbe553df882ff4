package dev.leapgate.boot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginLookup;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.TextResourceOrigin;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.Resource;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * A {@code leapgate.*} value or rule name of application.yml as written in the file. application.yml
 * is read as YAML 1.1, which takes an unquoted {@code 010} for the octal number 8, {@code 0x10} for
 * 16, {@code 1:30} for 90 (base 60), {@code 1_000} for 1000 and {@code on}, {@code yes}, {@code off},
 * {@code no} for booleans; Boot hands on the number or boolean, not the text. Leapgate's values are
 * text for its own reader, the same on every surface, so a value YAML read as something other than
 * written is reported, with the text from the file (the value's origin: the file and the place in
 * it); so is a rule name, a key, which YAML reads the same way.
 */
final class WrittenYaml {

    private WrittenYaml() {}

    /**
     * The property {@code name} as the binder takes it from {@code sources}: from the first source
     * that has it; null if none has it.
     */
    static ConfigurationProperty effective(
            Iterable<ConfigurationPropertySource> sources, ConfigurationPropertyName name) {
        for (ConfigurationPropertySource source : sources) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                return property;
            }
        }
        return null;
    }

    /**
     * The plain scalar written for {@code property}, when YAML read it as a number or a boolean
     * (a quoted value is a string, as written); null when its value is text, or its file cannot be
     * read.
     */
    static String written(ConfigurationProperty property) {
        TextResourceOrigin origin = textOrigin(property);
        if (property.getValue() instanceof CharSequence || origin == null) {
            return null;
        }
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(origin.getResource().getInputStream(), StandardCharsets.UTF_8))) {
            String line = reader.lines()
                    .skip(origin.getLocation().getLine())
                    .findFirst()
                    .orElse("");
            if (origin.getLocation().getLine() == 0 && line.startsWith("\uFEFF")) {
                line = line.substring(1); // a byte-order mark, which SnakeYAML's columns do not count
            }
            int column = origin.getLocation().getColumn(); // in code points, as SnakeYAML counts
            if (column > line.codePointCount(0, line.length())) {
                return null;
            }
            String rest = line.substring(line.offsetByCodePoints(0, column));
            // The node may start with its anchor (&name, which an alias *name reads) or its tag
            // (!!bool); a YAML number or boolean has no blank, and a comment or the next item of a
            // flow collection may follow it.
            Matcher scalar = PLAIN_SCALAR.matcher(rest);
            return scalar.lookingAt() && !scalar.group(1).isEmpty() ? scalar.group(1) : null;
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    /** A plain scalar, after the anchor and tag its node may start with. */
    private static final Pattern PLAIN_SCALAR = Pattern.compile("(?:[&!]\\S*\\s+)*([^\\s,}\\]#]*)");

    /** Whether {@code property} was read from a place in a text file (a YAML or properties file). */
    static boolean fromFile(ConfigurationProperty property) {
        return textOrigin(property) != null;
    }

    /** Where in its text file {@code property} was read: "application.yml, line 3". */
    static String place(ConfigurationProperty property) {
        TextResourceOrigin origin = textOrigin(property);
        return fileName(origin.getResource()) + ", line "
                + (origin.getLocation().getLine() + 1);
    }

    /**
     * Why {@code property}, Leapgate's setting {@code key}, is not what its writer wrote: YAML read
     * it as another number (a decimal number written with a plus, or 1.50 for 1.5, is the same) or
     * as a boolean from another word than true or false; null if it is as written.
     */
    static String misread(String key, ConfigurationProperty property) {
        String written = written(property);
        Object value = property.getValue();
        if (written == null || sameAsWritten(written, value)) {
            return null;
        }
        return key + ": '" + written + "' is read by YAML 1.1 as " + value + ", not as written (" + place(property)
                + "); write the value in quotes, '" + written + "', for Leapgate to read it as written";
    }

    private static boolean sameAsWritten(String written, Object value) {
        if (value instanceof Boolean) {
            return written.equalsIgnoreCase(value.toString());
        }
        if (value instanceof Number) {
            try {
                return new BigDecimal(written).compareTo(new BigDecimal(value.toString())) == 0;
            } catch (NumberFormatException notDecimal) { // 0x10, 1:30, 1_000, .inf
                return false;
            }
        }
        return true;
    }

    /** A rule's setting whose rule name YAML read as something other than text: Boot writes it in brackets. */
    private static final Pattern RULE_NAMED_BY_VALUE = Pattern.compile("leapgate\\.rule\\[([^\\]]*)]\\..+");

    private static final String RULE = "leapgate.rule";

    /**
     * Rule names of application.yml (a key under {@code leapgate.rule}) that YAML 1.1 read as
     * something other than written: on, yes, off and no are booleans, 010 the number 8, 1_000 the
     * number 1000, ~ is null, and Boot names the rule by the value: a rule written {@code on:} ran as
     * the rule true, so named in its headers, status and metrics, and out of reach of an environment
     * variable written for on. A name written true or 8 is as written. Read, with the YAML reader Boot
     * reads the file with, from the files of {@code sources} that hold such a rule (Boot gives its
     * name in brackets: {@code leapgate.rule[true].match}).
     */
    static List<String> misreadRuleNames(Iterable<ConfigurationPropertySource> sources) {
        // Per file, each such name and the lines its settings were read from (which tell the
        // documents of the file Boot loaded from those it left out, another profile's).
        Map<Resource, Map<String, List<Integer>>> namedByValue = new LinkedHashMap<>();
        for (ConfigurationPropertySource source : sources) {
            if (!(source.getUnderlyingSource() instanceof EnumerablePropertySource<?> enumerable)
                    || enumerable instanceof SystemEnvironmentPropertySource) {
                continue;
            }
            for (String key : enumerable.getPropertyNames()) {
                Matcher rule = RULE_NAMED_BY_VALUE.matcher(key.toLowerCase(Locale.ROOT));
                TextResourceOrigin origin = rule.matches() ? textOrigin(OriginLookup.getOrigin(enumerable, key)) : null;
                String file = origin == null
                        ? ""
                        : String.valueOf(origin.getResource().getFilename());
                if (file.endsWith(".yml") || file.endsWith(".yaml")) {
                    namedByValue
                            .computeIfAbsent(origin.getResource(), r -> new LinkedHashMap<>())
                            .computeIfAbsent(rule.group(1), n -> new ArrayList<>())
                            .add(origin.getLocation().getLine());
                }
            }
        }
        List<String> problems = new ArrayList<>();
        // Only here is SnakeYAML needed, which an application without a YAML file may not have.
        namedByValue.forEach((file, names) -> problems.addAll(RuleNames.misread(file, names)));
        return problems;
    }

    /** The rule names of a YAML file, read with SnakeYAML, as Boot reads the file. */
    private static final class RuleNames {

        private RuleNames() {}

        /**
         * The rule names of the YAML {@code file} written otherwise than YAML read them, as one of
         * {@code names} (lower case) whose settings were read from the same document of the file.
         */
        static List<String> misread(Resource file, Map<String, List<Integer>> names) {
            List<String> problems = new ArrayList<>();
            Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
            try (Reader reader = new InputStreamReader(file.getInputStream(), StandardCharsets.UTF_8)) {
                for (Node document : yaml.composeAll(reader)) {
                    int first = document.getStartMark().getLine();
                    int last = document.getEndMark().getLine();
                    for (ScalarNode written : ruleNameNodes(document, "")) {
                        String name = readAs(yaml, written.getValue());
                        List<Integer> lines = name == null ? null : names.get(name.toLowerCase(Locale.ROOT));
                        if (lines != null
                                && !name.equals(written.getValue())
                                && lines.stream().anyMatch(line -> line >= first && line <= last)) {
                            problems.add(RULE + "." + name + ": the rule name '" + written.getValue()
                                    + "' is read by YAML 1.1 as " + name + ", not as written (" + fileName(file)
                                    + ", line " + (written.getStartMark().getLine() + 1)
                                    + "); write the name in quotes, '" + written.getValue()
                                    + "', for the rule to be named as written");
                        }
                    }
                }
            } catch (IOException | RuntimeException unreadable) { // Boot read it; changed since, it is not Boot's now
                return problems;
            }
            return problems;
        }

        /** The plain scalar {@code text} as YAML reads it, as text; null if it reads as no scalar. */
        private static String readAs(Yaml yaml, String text) {
            try {
                return String.valueOf(yaml.<Object>load(text));
            } catch (RuntimeException notAScalar) {
                return null;
            }
        }

        /**
         * The keys under {@code leapgate.rule} in the mapping {@code node} at {@code path} (dotted keys
         * as written, which Boot joins with nested ones) that YAML reads as other than text: plain
         * scalars whose tag is not a string's; also in the mappings merged in ({@code <<: *rules}).
         */
        static List<ScalarNode> ruleNameNodes(Node node, String path) {
            List<ScalarNode> found = new ArrayList<>();
            if (!(node instanceof MappingNode mapping)) {
                return found;
            }
            for (NodeTuple tuple : mapping.getValue()) {
                if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
                    continue;
                }
                String at = (path.isEmpty() ? "" : path + ".") + key.getValue().toLowerCase(Locale.ROOT);
                if (at.equals(RULE)) {
                    names(tuple.getValueNode(), found);
                } else if (RULE.startsWith(at + ".")) {
                    found.addAll(ruleNameNodes(tuple.getValueNode(), at));
                }
            }
            return found;
        }

        /** The keys of the rules' mapping {@code rules} that YAML reads as other than text, into {@code found}. */
        private static void names(Node rules, List<ScalarNode> found) {
            if (rules instanceof SequenceNode merged) { // <<: [*a, *b]
                merged.getValue().forEach(node -> names(node, found));
            }
            if (!(rules instanceof MappingNode mapping)) {
                return;
            }
            for (NodeTuple rule : mapping.getValue()) {
                if (!(rule.getKeyNode() instanceof ScalarNode name)) {
                    continue;
                }
                if (Tag.MERGE.equals(name.getTag())) {
                    names(rule.getValueNode(), found);
                } else if (name.getScalarStyle() == DumperOptions.ScalarStyle.PLAIN && !Tag.STR.equals(name.getTag())) {
                    found.add(name);
                }
            }
        }
    }

    private static String fileName(Resource file) {
        return file.getFilename() != null ? file.getFilename() : file.getDescription();
    }

    /** The place in a text file {@code property} was read from; null if it was not read from one. */
    private static TextResourceOrigin textOrigin(ConfigurationProperty property) {
        return textOrigin(property.getOrigin());
    }

    /** The place in a text file {@code origin} is in; null if it is in none. */
    private static TextResourceOrigin textOrigin(Origin start) {
        Origin from = start; // a PropertySourceOrigin, around the file's
        while (from != null && !(from instanceof TextResourceOrigin)) {
            from = from instanceof PropertySourceOrigin wrapped ? wrapped.getOrigin() : from.getParent();
        }
        return from instanceof TextResourceOrigin origin && origin.getResource() != null && origin.getLocation() != null
                ? origin
                : null;
    }
}
