package dev.leapgate.config;

import dev.leapgate.Origin;
import dev.leapgate.internal.ListSeparators;
import dev.leapgate.internal.Shown;
import dev.leapgate.net.IpAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Collects every problem of one input, so they are reported together. Not thread-safe. */
final class Problems {

    private record Problem(int line, String text) {}

    private final String source;
    /** What the keys are written with where they were read, e.g. {@code leapgate.}; often empty. */
    private final String keyPrefix;

    /**
     * Whether the identifiers that values name as origins are secrets: with {@code origin =
     * header:<Name>} shown by fingerprint, an API key, which problems (logged, shown in the status's
     * {@code lastError}) must not quote.
     */
    private final boolean secretOrigins;

    private final List<Problem> problems = new ArrayList<>();

    Problems(String source, String keyPrefix) {
        this(source, keyPrefix, false);
    }

    Problems(String source, String keyPrefix, boolean secretOrigins) {
        this.source = source;
        this.keyPrefix = keyPrefix;
        this.secretOrigins = secretOrigins;
    }

    /** A key as the user writes it, with the prefix, for messages that suggest one. */
    String key(String key) {
        return keyPrefix + key;
    }

    boolean secretOrigins() {
        return secretOrigins;
    }

    /**
     * Text of the value of {@code key} as a problem shows it, unquoted: invisible characters escaped,
     * and, if {@code key} names origins ({@code exempt}, {@code deny}, a rule's {@code scope}), as
     * {@link #origins} shows them.
     */
    String shown(String key, String text) {
        boolean namesOrigins = key.equals("exempt")
                || key.equals("deny")
                || (key.startsWith(RuleReader.PREFIX) && key.endsWith(".scope"));
        return namesOrigins ? origins(text) : Shown.escaped(text);
    }

    /**
     * Text naming origins (a list of {@code exempt} or {@code deny}, a scope {@code origin:<value>},
     * an origin) as a problem shows it, unquoted: {@link #fingerprinted}, invisible characters
     * escaped.
     */
    String origins(String text) {
        return Shown.escaped(fingerprinted(text));
    }

    /**
     * Text naming origins with, if origins are secret, each entry that is not an IP address or block,
     * nor read as one, replaced by the fingerprint the status and the rejection log name that client
     * by ({@link Origin#secret}), so that the line can still be found; else as it is.
     */
    String fingerprinted(String text) {
        if (!secretOrigins) {
            return text;
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            int start = i;
            while (i < text.length() && isSeparator(text.charAt(i))) {
                i++;
            }
            out.append(text, start, i);
            start = i;
            while (i < text.length() && !isSeparator(text.charAt(i))) {
                i++;
            }
            if (i > start) {
                String entry = text.substring(start, i);
                boolean scope = entry.startsWith("origin:");
                String origin = scope ? entry.substring("origin:".length()) : entry;
                out.append(scope ? "origin:" : "")
                        .append(
                                origin.isEmpty() || isAddress(origin)
                                        ? origin
                                        : Origin.secret(origin).toString());
            }
        }
        return out.toString();
    }

    /** What a list of origins separates its entries with ({@link dev.leapgate.net.CidrList#entries}). */
    private static boolean isSeparator(char c) {
        return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    /**
     * Whether an entry is, or is read as, an IP address or block, no secret even when mistyped: each
     * of its parts joined by {@code ;} or {@code |}, less a {@code /} and what follows, an address or
     * digits with dots or colons.
     */
    private static boolean isAddress(String entry) {
        if (ListSeparators.misreadAddress(entry) != null) {
            return true; // an address in brackets or with a zone, refused as written
        }
        for (String part : entry.split("[;|]", -1)) {
            String address = part.indexOf('/') < 0 ? part : part.substring(0, part.indexOf('/'));
            boolean digits = address.chars().allMatch(c -> Character.isDigit(c) || c == '.' || c == ':')
                    && address.chars().anyMatch(c -> c == '.' || c == ':');
            if (!digits) {
                try {
                    IpAddress.parse(address);
                } catch (IllegalArgumentException notAnAddress) {
                    return false;
                }
            }
        }
        return true;
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
