package dev.leapgate.config;

import java.util.List;
import java.util.Objects;

/**
 * Configuration that cannot be used, with every problem found in it, not just the first: an
 * operator fixing a file should not have to run it once per mistake.
 *
 * <p>Each problem names where it is (the line of a properties file, or the key of a map), the key,
 * the value and what is allowed:
 *
 * <pre>
 * 2 problems in leapgate.properties:
 *   - line 3: rule.login.limit: '5/1d' is not a limit (window '1d': unknown unit 'd'); expected ...
 *   - line 7: rule.login.on-excss: unknown rule setting 'on-excss'; did you mean rule.login.on-excess?
 * </pre>
 */
public final class ConfigException extends RuntimeException {

    private final String source;
    private final List<String> problems;

    /**
     * @param source what was read: a file name, {@code "web.xml init-params"}, ...
     * @param problems at least one
     */
    public ConfigException(String source, List<String> problems) {
        super(message(source, problems));
        this.source = source;
        this.problems = List.copyOf(problems);
    }

    private static String message(String source, List<String> problems) {
        Objects.requireNonNull(source, "source");
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        StringBuilder text = new StringBuilder()
                .append(problems.size())
                .append(problems.size() == 1 ? " problem in " : " problems in ")
                .append(source)
                .append(':');
        for (String problem : problems) {
            text.append("\n  - ").append(problem);
        }
        return text.toString();
    }

    /** What was read, as given to the parser. */
    public String source() {
        return source;
    }

    /** Every problem, in the order of the input. */
    public List<String> problems() {
        return problems;
    }
}
