package dev.leapgate.config;

import dev.leapgate.internal.Shown;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the lines of a {@code .properties} text in order, with their line numbers.
 *
 * <p>{@link java.util.Properties} would read the same keys and values but keeps neither their
 * order (the order of rules is the order they are checked in) nor their lines (which a problem
 * must name). So the syntax of {@link java.util.Properties#load(java.io.Reader)} is followed here,
 * with the same results:
 *
 * <ul>
 *   <li>a line whose first non-blank character is {@code #} or {@code !} is a comment; blank lines
 *       are skipped;
 *   <li>the key ends at the first unescaped {@code =}, {@code :} or blank; blanks around the
 *       separator are skipped, so {@code key=value}, {@code key: value} and {@code key value} are
 *       the same;
 *   <li>a line ending in an odd number of backslashes continues on the next line, whose leading
 *       blanks are dropped;
 *   <li>escapes {@code \t \n \r \f \\uXXXX} and {@code \x} for any other {@code x}.
 * </ul>
 *
 * One difference: a value's trailing blanks are dropped too, as in every other place a value
 * is read. A malformed {@code \\uXXXX} is a problem of its line rather than an exception.
 */
final class PropertiesText {

    private PropertiesText() {}

    /** The settings of {@code text}, in order; syntax problems go to {@code problems}. */
    static List<Setting> read(String text, Problems problems) {
        List<String> lines = text.lines().toList();
        List<Setting> settings = new ArrayList<>();
        int i = 0;
        while (i < lines.size()) {
            int lineNumber = i + 1;
            String line = stripLeading(lines.get(i++));
            if (line.isEmpty() || line.charAt(0) == '#' || line.charAt(0) == '!') {
                continue;
            }
            StringBuilder logical = new StringBuilder(line);
            boolean cutShort = false;
            while (endsWithContinuation(logical)) {
                logical.setLength(logical.length() - 1);
                if (i < lines.size()) {
                    logical.append(stripLeading(lines.get(i++)));
                } else {
                    cutShort = true;
                }
            }
            if (cutShort) {
                problems.add(
                        lineNumber,
                        "the text ends in a line continued with '\\', as if it had been cut short; remove the"
                                + " last '\\' (or write it as '\\\\')");
                continue;
            }
            if (logical.isEmpty()) {
                continue; // a '\\' continued onto a blank line: a blank line, as Properties reads it
            }
            Setting setting = split(logical.toString(), lineNumber, problems);
            if (setting != null) {
                settings.add(setting);
            }
        }
        return settings;
    }

    private static Setting split(String line, int lineNumber, Problems problems) {
        int keyEnd = 0;
        while (keyEnd < line.length()) {
            char c = line.charAt(keyEnd);
            if (c == '\\') {
                keyEnd += 2;
                continue;
            }
            if (c == '=' || c == ':' || isBlank(c)) {
                break;
            }
            keyEnd++;
        }
        keyEnd = Math.min(keyEnd, line.length());
        int valueStart = keyEnd;
        while (valueStart < line.length() && isBlank(line.charAt(valueStart))) {
            valueStart++;
        }
        if (valueStart < line.length() && (line.charAt(valueStart) == '=' || line.charAt(valueStart) == ':')) {
            valueStart++;
        }
        while (valueStart < line.length() && isBlank(line.charAt(valueStart))) {
            valueStart++;
        }
        try {
            String key = unescape(line.substring(0, keyEnd));
            int comment = trailingComment(line, valueStart);
            String value = unescape(line.substring(valueStart)).strip();
            if (key.isEmpty()) {
                problems.add(lineNumber, "no key before '" + line.charAt(0) + "'; expected key=value");
                return null;
            }
            if (comment >= 0) {
                // Read as the value it would be, the value is no identifier in exempt or deny
                // ("# health checks"), nor a confusing "no space is allowed inside" of a limit.
                // The value as its key's values are shown (an API key by its fingerprint), the comment
                // as written.
                String before = unescape(line.substring(valueStart, comment));
                String after = unescape(line.substring(comment)).strip();
                problems.add(
                        new Setting(key, value, lineNumber),
                        "'" + problems.shown(key, before) + Shown.escaped(after) + "'"
                                + (comment == valueStart ? " is" : " ends in")
                                + " what looks like a comment, but a properties file has"
                                + " comments only on lines of their own (starting with # or !): the text after a"
                                + " value is part of it; put the comment on the line above (a value that really"
                                + " holds ' " + line.charAt(comment) + "' writes it ' \\" + line.charAt(comment)
                                + "')");
                value = before.strip();
            }
            return new Setting(key, value, lineNumber);
        } catch (IllegalArgumentException malformed) {
            problems.add(lineNumber, malformed.getMessage());
            return null;
        }
    }

    /**
     * Where a comment written after the key or the value starts ({@code 5/1m  # five a minute},
     * {@code exempt = # none yet}): a {@code #} or {@code !} after a blank, or one that starts the
     * value standing alone (followed by a blank, a comma or nothing), which {@link
     * java.util.Properties} reads as the value or part of it; -1 if there is none. An escaped one
     * ({@code \#}), or one that starts a longer value ({@code #ops}), is the value's own, as in a
     * map's values.
     */
    private static int trailingComment(String line, int valueStart) {
        if (valueStart < line.length() && (line.charAt(valueStart) == '#' || line.charAt(valueStart) == '!')) {
            int next = valueStart + 1;
            if (next == line.length() || isBlank(line.charAt(next)) || line.charAt(next) == ',') {
                return valueStart;
            }
        }
        for (int i = valueStart + 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if ((c == '#' || c == '!') && isBlank(line.charAt(i - 1))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean endsWithContinuation(CharSequence line) {
        int backslashes = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    private static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                out.append(c);
                continue;
            }
            char e = s.charAt(++i);
            switch (e) {
                case 't' -> out.append('\t');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    String hex = s.substring(i + 1, Math.min(i + 5, s.length()));
                    if (!hex.matches("[0-9A-Fa-f]{4}")) {
                        throw new IllegalArgumentException(
                                "malformed escape '\\u" + hex + "'; expected \\u and four hex digits, e.g. \\u00e9");
                    }
                    out.append((char) Integer.parseInt(hex, 16));
                    i += 4;
                }
                default -> out.append(e);
            }
        }
        return out.toString();
    }

    /** The blanks of the properties syntax: space, tab and form feed (not line breaks). */
    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\f';
    }

    private static String stripLeading(String s) {
        int i = 0;
        while (i < s.length() && isBlank(s.charAt(i))) {
            i++;
        }
        return s.substring(i);
    }
}
