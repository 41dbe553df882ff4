package dev.leapgate.internal;

/**
 * What a rule's name may be: 1 to 64 ASCII letters, digits, {@code -} or {@code _}. One test for
 * every place a name enters: a configuration key ({@code rule.<name>.limit}, which the last dot
 * splits, so a name has none), a {@code FlowRule}, and a {@code Quota}, whose name is written
 * unescaped inside the quoted policy name of {@code RateLimit-Policy} and {@code RateLimit} (a
 * Structured Field string, RFC 8941 section 3.3.3), where a quote, a backslash or a line break
 * would end or break the field.
 *
 * <p>A loop over the characters rather than a regular expression: a {@code Quota} is made for
 * each response that carries the fields, and this costs it no allocation.
 */
public final class RuleName {

    /** The longest name, in characters. */
    public static final int MAX_LENGTH = 64;

    /**
     * The rule a request from a denied origin is rejected by ({@code Rejection.rule()}, the
     * problem body's {@code "rule"}); no rule may have it, in any case (rule names must differ
     * ignoring case), or its rejections could not be told from the deny list's there.
     */
    public static final String DENY = "deny";

    private RuleName() {}

    /** Whether {@code name} is a rule's name. */
    public static boolean isValid(String name) {
        int length = name.length();
        if (length < 1 || length > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code name} is the deny list's ({@link #DENY}), in any case. */
    public static boolean isReserved(String name) {
        return name.equalsIgnoreCase(DENY);
    }

    /** Why {@code name}, which {@link #isReserved is reserved}, cannot be a rule's. */
    public static String reserved(String name) {
        return "rule name '" + name + "' is reserved: a request from a denied origin is rejected as rule '" + DENY
                + "' (Rejection.rule(), the problem body's \"rule\"), and this rule's rejections could not be told"
                + " from those; choose another name";
    }

    /**
     * {@code name}, if it is a rule's name and not {@link #isReserved reserved}.
     *
     * @throws IllegalArgumentException naming the value and what is allowed
     */
    public static String checked(String name) {
        if (!isValid(name)) {
            throw new IllegalArgumentException(
                    "rule name must be 1 to " + MAX_LENGTH + " letters, digits, '-' or '_', was '" + name + "'");
        }
        if (isReserved(name)) {
            throw new IllegalArgumentException(reserved(name));
        }
        return name;
    }
}
