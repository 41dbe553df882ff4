package dev.leapgate.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Collects every problem of one input, so they are reported together. Not thread-safe. */
final class Problems {

    private record Problem(int line, String text) {}

    private final String source;
    /** What the keys are written with where they were read, e.g. {@code leapgate.}; often empty. */
    private final String keyPrefix;

    private final List<Problem> problems = new ArrayList<>();

    Problems(String source, String keyPrefix) {
        this.source = source;
        this.keyPrefix = keyPrefix;
    }

    /** A key as the user writes it, with the prefix, for messages that suggest one. */
    String key(String key) {
        return keyPrefix + key;
    }

    /** A problem with a setting's value or key: {@code "line 3: rule.a.limit: <message>"}. */
    void add(Setting setting, String message) {
        problems.add(new Problem(setting.line(), setting.where(keyPrefix) + ": " + message));
    }

    /** A problem of a line that is not a setting (syntax), or of the input as a whole (line 0). */
    void add(int line, String message) {
        problems.add(new Problem(line, line > 0 ? "line " + line + ": " + message : message));
    }

    boolean isEmpty() {
        return problems.isEmpty();
    }

    int size() {
        return problems.size();
    }

    /**
     * @throws ConfigException with every problem, in line order (the order they were found within
     *     a line, and for a map, where every line is 0), if there is any
     */
    void throwIfAny() {
        if (!problems.isEmpty()) {
            List<String> sorted = problems.stream()
                    .sorted(Comparator.comparingInt(Problem::line)) // stable
                    .map(Problem::text)
                    .toList();
            throw new ConfigException(source, sorted);
        }
    }
}
