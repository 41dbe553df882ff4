package dev.leapgate.net;

/**
 * RFC 9110 §5.6.2 tokens: the syntax of header names, request methods and the parameter names of
 * {@code Forwarded}. One definition for every parser and setting that needs it.
 */
public final class HttpToken {

    private HttpToken() {}

    /** Whether {@code c} is a {@code tchar}: a letter, a digit or one of {@code !#$%&'*+-.^_`|~}. */
    public static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    /** Whether {@code text} is a token: one or more {@code tchar}s. */
    public static boolean isToken(CharSequence text) {
        if (text.length() == 0) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (!isTokenChar(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
