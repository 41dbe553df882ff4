package dev.leapgate.config;

import dev.leapgate.internal.Shown;

/**
 * One {@code key = value} as read, before its value is understood.
 *
 * @param key the key, trimmed
 * @param value the value, trimmed
 * @param line the line of a properties text it starts on, or 0 when it comes from a map
 * @param written the key as written, blanks included
 */
record Setting(String key, String value, int line, String written) {

    Setting(String key, String value, int line) {
        this(key, value, line, key);
    }

    /**
     * Where a problem with this setting is: {@code "line 12: rule.login.limit"}, the key written
     * with {@code keyPrefix} (the JAX-RS provider's {@code leapgate.}) and invisible characters
     * escaped.
     */
    String where(String keyPrefix) {
        String shown = Shown.escaped(keyPrefix + key);
        return line > 0 ? "line " + line + ": " + shown : shown;
    }
}
