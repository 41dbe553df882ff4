package dev.leapgate.boot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Explains a start that failed on a YAML list (items after a dash, or [a, b]) given for a
 * leapgate. setting: every Leapgate setting takes one value, and those that hold several
 * (trusted-proxies, exempt, ...) hold them comma-separated on one line, so Boot leaves the list's
 * elements unbound. Its own analysis says only that; this one names the setting and what to write.
 * Before Boot's analyzers, which would otherwise explain the failure first.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class LeapgateListFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

    private static final ConfigurationPropertyName LEAPGATE = ConfigurationPropertyName.of("leapgate");

    private static final ConfigurationPropertyName RULES = ConfigurationPropertyName.of("leapgate.rule");

    /** The settings that hold several entries, comma-separated. */
    private static final Set<String> LISTS =
            Set.of("trusted-proxies", "exempt", "deny", "status-allow", "status-hosts");

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
        // The elements of each list, by the setting it is given for, in the order written.
        Map<ConfigurationPropertyName, List<ConfigurationProperty>> lists = new LinkedHashMap<>();
        for (ConfigurationProperty property : cause.getUnboundProperties()) {
            ConfigurationPropertyName name = property.getName();
            if (!LEAPGATE.isAncestorOf(name)) {
                continue;
            }
            for (int i = 1; i < name.getNumberOfElements(); i++) {
                if (name.isNumericIndex(i)) {
                    lists.computeIfAbsent(name.chop(i), setting -> new ArrayList<>())
                            .add(property);
                    break;
                }
            }
        }
        if (lists.isEmpty()) {
            return null;
        }
        List<String> problems = new ArrayList<>();
        lists.forEach((setting, elements) -> problems.add(problem(setting, elements)));
        return new FailureAnalysis(
                "Leapgate's configuration is invalid, so the application would not be protected as configured:\n\n"
                        + problems.stream().map(problem -> "  - " + problem).collect(Collectors.joining("\n")),
                "Write each leapgate.* setting named above as one value; every setting is described in Leapgate's"
                        + " README (Configuration reference) and CONFIGURATION.md.",
                cause);
    }

    /** Why the list {@code elements} given for {@code setting} is refused, and what to write instead. */
    static String problem(ConfigurationPropertyName setting, List<ConfigurationProperty> elements) {
        String where = elements.get(0).getOrigin() == null
                ? ""
                : " (" + elements.get(0).getOrigin() + ")";
        if (setting.equals(RULES)) {
            return setting + " is written as a list, but it is a map from each rule's name to its settings: write"
                    + " the names under rule: without a dash (rule: / login: / match: POST /login)" + where;
        }
        String key = setting.getLastElement(ConfigurationPropertyName.Form.DASHED);
        // A list of scalars, indexed by the setting alone: its values in order.
        boolean scalars =
                elements.stream().allMatch(e -> e.getName().getNumberOfElements() == setting.getNumberOfElements() + 1);
        String values = scalars
                ? elements.stream()
                        .sorted((a, b) -> Integer.compare(index(a, setting), index(b, setting)))
                        .map(e -> String.valueOf(e.getValue()))
                        .collect(Collectors.joining(", "))
                : null;
        String problem = setting + " is written as a list" + (values != null ? " (" + values + ")" : "")
                + ", but it takes one value";
        if (LISTS.contains(key) && setting.getNumberOfElements() == 2 && values != null) {
            return problem + ": write the entries on one line, separated by commas: " + key + ": " + values + where;
        }
        return problem + ": write it on one line, without a dash or brackets" + where;
    }

    private static int index(ConfigurationProperty element, ConfigurationPropertyName setting) {
        return Integer.parseInt(
                element.getName().getElement(setting.getNumberOfElements(), ConfigurationPropertyName.Form.ORIGINAL));
    }
}
