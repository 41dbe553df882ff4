package dev.leapgate.config;

import dev.leapgate.internal.Shown;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the values of settings: durations, limits, whole numbers, decimals and choices. Each
 * method takes trimmed text and throws {@link IllegalArgumentException} with a message that quotes
 * the text and says what is allowed; the caller prefixes the key.
 */
final class ValueSyntax {

    static final String DURATION_FORM = "a whole number and a unit ms, s, m or h, e.g. 250ms, 10s, 1m, 24h";
    static final String LIMIT_FORM = "N/window, e.g. 100/10s, 5/1m, 1000/1h, 10/s (window units ms, s, m, h)";

    private static final Pattern DURATION = Pattern.compile("([0-9]+)(ms|s|m|h)");
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");
    private static final Pattern NUMBER_AND_WORD = Pattern.compile("-?([0-9]*\\.?[0-9]*)([A-Za-z]*)");
    private static final Pattern DECIMAL = Pattern.compile("[0-9]+(\\.[0-9]+)?");

    private ValueSyntax() {}

    /** A duration such as {@code 250ms}, {@code 10s}, {@code 1m}, {@code 24h}; zero or more. */
    static Duration duration(String text) {
        String reason = durationFault(text);
        if (reason != null) {
            throw new IllegalArgumentException(shown(text) + " is not a duration"
                    + (reason.isEmpty() ? "" : " (" + reason + ")") + "; expected " + DURATION_FORM);
        }
        return toDuration(text);
    }

    /**
     * Why {@code text} is not a duration, or {@code ""} when no single reason fits; {@code null} if
     * it is one.
     */
    private static String durationFault(String text) {
        if (DURATION.matcher(text).matches()) {
            try {
                toDuration(text);
                return null;
            } catch (ArithmeticException | NumberFormatException tooLarge) {
                return "too large";
            }
        }
        if (text.chars().anyMatch(Character::isWhitespace)) {
            return "no space is allowed inside";
        }
        Matcher parts = NUMBER_AND_WORD.matcher(text);
        if (!parts.matches() || parts.group(1).isEmpty() || parts.group(1).equals(".")) {
            return "";
        }
        if (text.startsWith("-")) {
            return "negative";
        }
        if (parts.group(1).contains(".")) {
            return "not a whole number; use a smaller unit, e.g. 1500ms for 1.5s";
        }
        if (parts.group(2).isEmpty()) {
            return "no unit";
        }
        String unit = parts.group(2);
        return "unknown unit " + Shown.quoted(unit) + unitHint(unit);
    }

    /** The units people write out of habit from other tools, and what to write instead. */
    private static String unitHint(String unit) {
        String lower = unit.toLowerCase(java.util.Locale.ROOT);
        if (!lower.equals(unit) && DURATION.matcher("1" + lower).matches()) {
            return "; units are lower case: " + lower;
        }
        return switch (lower) {
            case "d", "day", "days" -> "; write 24h for a day";
            case "min", "mins", "minute", "minutes" -> "; write m for minutes";
            case "sec", "secs", "second", "seconds" -> "; write s for seconds";
            case "hr", "hrs", "hour", "hours" -> "; write h for hours";
            default -> "";
        };
    }

    private static Duration toDuration(String text) {
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            throw new IllegalStateException(text);
        }
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> throw new IllegalStateException(m.group(2));
        };
    }

    /** A rate limit: {@code count} requests per {@code window}. */
    record Limit(long count, Duration window) {}

    /**
     * {@code N/window}: a whole number, a slash and a duration, or a bare unit meaning one of it
     * ({@code 10/s} is 10 per second). The count is not range-checked here: what is allowed
     * depends on the window, and {@link dev.leapgate.rule.FlowRule} knows it.
     */
    static Limit limit(String text) {
        if (text.chars().anyMatch(Character::isWhitespace)) {
            throw badLimit(text, " (no space is allowed inside)");
        }
        int slash = text.indexOf('/');
        if (slash < 0) {
            throw badLimit(text, DIGITS.matcher(text).matches() ? " (no window; add one, e.g. " + text + "/1s)" : "");
        }
        String count = text.substring(0, slash);
        String window = text.substring(slash + 1);
        if (!DIGITS.matcher(count).matches()) {
            throw badLimit(text, " (N must be a positive whole number)");
        }
        long n;
        try {
            n = Long.parseLong(count);
        } catch (NumberFormatException tooLarge) {
            throw badLimit(text, " (N is too large)");
        }
        if (window.equals("ms") || window.equals("s") || window.equals("m") || window.equals("h")) {
            window = "1" + window;
        }
        String reason = durationFault(window);
        if (reason != null) {
            throw badLimit(
                    text,
                    reason.isEmpty()
                            ? " (window " + shown(window) + " is not a duration)"
                            : " (window " + shown(window) + ": " + reason + ")");
        }
        return new Limit(n, toDuration(window));
    }

    private static IllegalArgumentException badLimit(String text, String reason) {
        return new IllegalArgumentException(shown(text) + " is not a limit" + reason + "; expected " + LIMIT_FORM);
    }

    /** A whole number from {@code min} to {@code max}. */
    static int integer(String text, int min, int max) {
        if (text.startsWith("-") && DIGITS.matcher(text.substring(1)).matches()) {
            throw new IllegalArgumentException("must be between " + min + " and " + max + ", was " + text);
        }
        if (!DIGITS.matcher(text).matches()) {
            throw new IllegalArgumentException(shown(text) + " is not a whole number; expected " + min + " to " + max);
        }
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException tooLarge) {
            value = Long.MAX_VALUE;
        }
        if (value < min || value > max) {
            throw new IllegalArgumentException("must be between " + min + " and " + max + ", was " + text);
        }
        return (int) value;
    }

    /**
     * A whole number such as a count of requests. Zero passes: the rule that uses it knows its
     * range and says so in its own message.
     */
    static long count(String text) {
        if (!DIGITS.matcher(text).matches()) {
            throw new IllegalArgumentException(shown(text) + " is not a positive whole number");
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException tooLarge) {
            throw new IllegalArgumentException(shown(text) + " is too large");
        }
    }

    /** A decimal number written with digits and at most one point: {@code 3}, {@code 2.5}. */
    static double decimal(String text) {
        if (!DECIMAL.matcher(text).matches()) {
            throw new IllegalArgumentException(shown(text) + " is not a decimal number; expected e.g. 3 or 2.5");
        }
        return Double.parseDouble(text);
    }

    /** One of the keys of {@code allowed} (exactly as spelt there), mapped to its value. */
    static <T> T choice(String text, Map<String, T> allowed) {
        T value = allowed.get(text);
        if (value == null) {
            throw new IllegalArgumentException(shown(text) + " is not allowed; expected " + oneOf(allowed.keySet())
                    + Spelling.didYouMean(text, allowed.keySet()));
        }
        return value;
    }

    /** {@code "a, b or c"}. */
    static String oneOf(Iterable<String> words) {
        List<String> list = new ArrayList<>();
        words.forEach(list::add);
        if (list.size() == 1) {
            return list.get(0);
        }
        return String.join(", ", list.subList(0, list.size() - 1)) + " or " + list.get(list.size() - 1);
    }

    /**
     * Refuses text that holds an invisible format character (Unicode category Cf: a zero-width space
     * or joiner, a soft hyphen, a word joiner, a direction mark, a byte-order mark), as text copied
     * from a web page, a chat or a word processor may carry. For a value compared as written (a
     * path, an origin's identifier) it would otherwise be taken as part of the value, which would
     * then match nothing a client sends, and the setting would do nothing without a word.
     *
     * @param pathHint whether to say how a path that really holds the character is written
     */
    static void requireNoInvisible(String text, boolean pathHint) {
        requireNoInvisible(text, shown(text), pathHint);
    }

    /**
     * As {@link #requireNoInvisible(String, boolean)}, quoting the text as {@code shown}. A blank
     * other than a space or a tab (a no-break space, as copied from a web page; a form feed) is
     * refused too: a list would not take it for a separator, so that it joins two entries or
     * sticks to one, which then matches nothing. So is a control character other than a tab or a
     * line break (a properties escape such as {@code \u0007}, a byte pasted by mistake): no request
     * carries one in a header field or a path, so the value would match nothing either.
     */
    static void requireNoInvisible(String text, String shown, boolean pathHint) {
        for (int i = 0; i < text.length(); i++) {
            int c = text.codePointAt(i);
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\u000B') || c == 0x7F) {
                throw new IllegalArgumentException(shown + " holds a control character, "
                        + Shown.escaped(new String(Character.toChars(c)))
                        + ", which no request carries in a header field or a path: the value would match"
                        + " nothing clients send; remove it");
            }
            if ((Character.isSpaceChar(c) && c != ' ') || c == '\f' || c == '\u000B') {
                throw new IllegalArgumentException(shown + " holds a blank other than a space, "
                        + Shown.escaped(new String(Character.toChars(c)))
                        + " (as text copied from a web page may carry): it would count as part of the value,"
                        + " which would then match nothing clients send; write a plain space, or remove it");
            }
            if (Character.getType(c) == Character.FORMAT) {
                String character = new String(Character.toChars(c));
                StringBuilder encoded = new StringBuilder();
                for (byte b : character.getBytes(StandardCharsets.UTF_8)) {
                    encoded.append(String.format(Locale.ROOT, "%%%02X", b & 0xFF));
                }
                throw new IllegalArgumentException(shown + " holds an invisible character, "
                        + (Character.isBmpCodePoint(c)
                                ? Shown.escaped(character)
                                : String.format(Locale.ROOT, "U+%X", c))
                        + " (a zero-width space, soft hyphen, word joiner, direction mark or byte-order mark, as"
                        + " text copied from a web page or a chat may carry): it would count as part of the"
                        + " value, which would then match nothing clients send; remove it"
                        + (pathHint
                                ? " (a path that really holds it is written percent-encoded: " + encoded + ")"
                                : ""));
            }
        }
    }

    /** The text in quotes, invisible characters escaped, or "the empty value", for messages. */
    static String shown(String text) {
        return Shown.value(text);
    }
}
