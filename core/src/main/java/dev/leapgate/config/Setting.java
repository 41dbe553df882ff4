package dev.leapgate.config;

/**
 * One {@code key = value} as read, before its value is understood.
 *
 * @param key the key, trimmed
 * @param value the value, trimmed
 * @param line the line of a properties text it starts on, or 0 when it comes from a map
 */
record Setting(String key, String value, int line) {

    /** Where a problem with this setting is: {@code "line 12: rule.login.limit"}. */
    String where() {
        return line > 0 ? "line " + line + ": " + key : key;
    }
}
