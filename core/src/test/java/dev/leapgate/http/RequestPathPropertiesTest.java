package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.leapgate.testing.Samples;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Properties of the path normalization and the pattern matching that every request goes through,
 * over paths assembled from the pieces attacks are made of: dot segments, encoded dots and
 * slashes, backslashes, matrix parameters, truncated and invalid escapes, control characters,
 * non-ASCII.
 */
class RequestPathPropertiesTest {

    private static final List<String> PIECES = List.of(
            "/", "//", ".", "..", "/./", "/../", "%2e", "%2E", "%2e%2e", "%2f", "%2F", "%25", "%252e", "%", "%4", "%zz",
            "%00", "%c3%a9", "%C3", "é", "\u0000", "\t", " ", ";", ";p=1", "?", "?q=1", "#", "#f", "\\", "%5c", "a",
            "B", "api", "users", "{id}", "%7B", "*", "**", "~", "+", "-", "_", "1");

    private static String path(Samples s) {
        return s.joined(PIECES, 24);
    }

    @Test
    void aKeyIsCanonical_andNormalizingIsIdempotent() {
        Samples.check(RequestPathPropertiesTest::path, raw -> {
            String key = RequestPath.normalize(raw);

            assertCanonical(key);
            assertThat(RequestPath.normalize(key)).isEqualTo(key);
        });
    }

    @Test
    void aPathTheContainerDecoded_givesACanonicalKeyToo() {
        Samples.check(RequestPathPropertiesTest::path, decoded -> {
            String key = RequestPath.normalizeDecoded(decoded);

            assertCanonical(key);
            assertThat(RequestPath.normalize(key)).isEqualTo(key);
        });
    }

    @Test
    void aPathThatIsAKeyAlready_isReturnedAsItIs_andEveryPathGetsWhatTheFullNormalizationGives() {
        Samples.check(s -> s.between(0, 1) == 0 ? path(s) : RequestPath.normalize(path(s)), p -> {
            String raw = p.replaceAll("[?#]", "");

            assertThat(RequestPath.normalizeDecoded(p)).isEqualTo(RequestPath.canonical(p, p.length(), false));
            assertThat(RequestPath.normalize(raw)).isEqualTo(RequestPath.canonical(raw, raw.length(), true));
            if (RequestPath.canonical(p, p.length(), false).equals(p)) {
                assertThat(RequestPath.normalizeDecoded(p)).isSameAs(p);
                assertThat(RequestPath.normalize(p)).isSameAs(p);
            }
        });
    }

    @Test
    void withoutEscapesOrDelimiters_bothEntryPointsAgree() {
        Samples.check(
                s -> path(s).replaceAll("[%;?#]", ""),
                plain -> assertThat(RequestPath.normalizeDecoded(plain)).isEqualTo(RequestPath.normalize(plain)));
    }

    @Test
    void percentEncodingCharactersOfASegment_leavesTheKeyAsItWas() {
        record Encoded(String plain, String encoded) {}
        Samples.check(
                s -> {
                    // one segment of characters the encoding could not change the meaning of
                    String plain = path(s).replaceAll("[%;?#/\\\\.]", "x");
                    StringBuilder encoded = new StringBuilder("/");
                    for (char c : plain.toCharArray()) {
                        encoded.append(c < 0x80 && s.between(0, 2) == 0 ? String.format("%%%02X", (int) c) : c);
                    }
                    return new Encoded("/" + plain, encoded.toString());
                },
                e -> assertThat(RequestPath.normalize(e.encoded())).isEqualTo(RequestPath.normalize(e.plain())));
    }

    @Test
    void parsingAPattern_throwsNothingButIllegalArgument_andItsTextParsesToAnEqualPattern() {
        List<String> methods = List.of("", "GET ", "POST ", "get ", "PURGE ", "G=T ", " ");
        Samples.check(s -> s.oneOf(methods) + path(s), text -> {
            Throwable thrown = catchThrowable(() -> PathPattern.parse(text));
            if (thrown != null) {
                assertThat(thrown)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("invalid path pattern");
                return;
            }
            PathPattern pattern = PathPattern.parse(text);
            PathPattern again = PathPattern.parse(pattern.toString());

            assertThat(again).isEqualTo(pattern);
            assertThat(PathPattern.mostSpecificFirst().compare(pattern, again)).isZero();
        });
    }

    @Test
    void matchingNeverThrows_andAKeyMatchesItsOwnLiteralPattern() {
        Samples.check(RequestPathPropertiesTest::path, raw -> {
            String key = RequestPath.normalize(raw);
            boolean wildcardSegments = List.of(key.split("/")).stream()
                    .anyMatch(seg -> seg.equals("*") || seg.equals("**") || seg.contains("{") || seg.contains("}"));

            assertThat(PathPattern.parse("/**").matches("GET", key)).isTrue();
            if (!wildcardSegments) {
                PathPattern literal = PathPattern.parse("GET " + key);
                assertThat(literal.matches("GET", key)).isTrue();
                assertThat(literal.matches("HEAD", key)).isTrue();
                assertThat(literal.matches("POST", key)).isFalse();
                assertThat(literal.matches("GET", RequestPath.normalize(key + "/x")))
                        .isFalse();
            }
        });
    }

    private static void assertCanonical(String key) {
        assertThat(key).startsWith("/");
        assertThat(key).doesNotContain("//", "/./", "/../", ";", "?", "#", "\\", "\u0000", " ");
        assertThat(key).doesNotEndWith("/.").doesNotEndWith("/..");
        if (!key.equals("/")) {
            assertThat(key).doesNotEndWith("/");
        }
    }
}
