package dev.leapgate.net;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpTokenTest {

    /** Every tchar of RFC 9110, including the first and last of each range. */
    @ParameterizedTest
    @ValueSource(
            chars = {
                'a', 'z', 'A', 'Z', '0', '9', '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~'
            })
    void isTokenChar_tchar_isAccepted(char c) {
        assertThat(HttpToken.isTokenChar(c)).isTrue();
    }

    /** The neighbours of each range, separators, whitespace, controls and non-ASCII letters. */
    @ParameterizedTest
    @ValueSource(
            chars = {
                '@', '[', '{', '/', ':', '"', '(', ')', ',', ';', '<', '=', '>', '?', '\\', ']', '}', ' ', '\t',
                '\u007f', '\u0000', 'é'
            })
    void isTokenChar_otherCharacter_isRefused(char c) {
        assertThat(HttpToken.isTokenChar(c)).isFalse();
    }

    @Test
    void isToken_headerNames() {
        assertThat(HttpToken.isToken("X-Real-IP")).isTrue();
        assertThat(HttpToken.isToken("CF-Connecting-IP")).isTrue();
        assertThat(HttpToken.isToken("x")).isTrue();
        assertThat(HttpToken.isToken("")).isFalse();
        assertThat(HttpToken.isToken("X Real IP")).isFalse();
        assertThat(HttpToken.isToken("X-Real-IP:")).isFalse();
        assertThat(HttpToken.isToken("(X-Real-IP")).isFalse();
    }
}
