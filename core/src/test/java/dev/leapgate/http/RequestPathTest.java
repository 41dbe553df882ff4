package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestPathTest {

    static Stream<Arguments> plainPaths() {
        return Stream.of(
                arguments("/", "/"),
                arguments("/login", "/login"),
                arguments("login", "/login"),
                arguments("/api/v1/users", "/api/v1/users"),
                arguments("/login/", "/login"),
                arguments("/a/b//", "/a/b"),
                arguments("//a///b", "/a/b"),
                arguments("//admin", "/admin"),
                arguments("///", "/"),
                arguments("/ADMIN", "/ADMIN"),
                arguments("/Admin/Users", "/Admin/Users"),
                arguments("http://host/x", "/http:/host/x"));
    }

    static Stream<Arguments> queryAndFragment() {
        return Stream.of(
                arguments("/a/b?x=1", "/a/b"),
                arguments("/a/b#top", "/a/b"),
                arguments("/a?x=/../b", "/a"),
                arguments("/a#x?y", "/a"),
                arguments("/a/?", "/a"),
                arguments("?only=query", "/"),
                arguments("/a%3Fb", "/a%3Fb"),
                arguments("/a%23b", "/a%23b"));
    }

    static Stream<Arguments> matrixParameters() {
        return Stream.of(
                arguments("/a;jsessionid=1/b;x=y", "/a/b"),
                arguments("/admin;foo", "/admin"),
                arguments("/a;x=1;y=2", "/a"),
                arguments("/;x/admin", "/admin"),
                arguments(";x;y/admin", "/admin"), // parameters from the first ';', even at the start
                // Tomcat strips the parameter first, so "..;" is a real "..": the key must agree.
                arguments("/admin/..;/x", "/x"),
                arguments("/..;/admin", "/admin"),
                arguments("/a/.;x/b", "/a/b"),
                arguments("/a/%2e%2e;x=/../b", "/b"),
                // An encoded ';' is data, not a parameter delimiter, and stays encoded.
                arguments("/a%3Bx", "/a%3Bx"),
                arguments("/a%3bx", "/a%3Bx"),
                arguments("/a%3bx/..;", "/"));
    }

    static Stream<Arguments> dotSegments() {
        return Stream.of(
                arguments("/a/./b", "/a/b"),
                arguments("/a/../b", "/b"),
                arguments("/a/%2e%2e/b", "/b"),
                arguments("/a/%2E%2E/b", "/b"),
                arguments("/a/.%2e/b", "/b"),
                arguments("/a/%2e./b", "/b"),
                arguments("/a/%2e/b", "/a/b"),
                arguments("/%2e%2e/admin", "/admin"),
                arguments("/../../etc", "/etc"),
                arguments("/a/b/../../../c", "/c"),
                arguments("/a/..", "/"),
                arguments("/a/b/..", "/a"),
                arguments("/a/b/../", "/a"),
                arguments("/.", "/"),
                arguments("..", "/"),
                arguments("/...", "/..."),
                arguments("/a/..b", "/a/..b"),
                arguments("/a/b./c", "/a/b./c"),
                arguments("/a/.b/c", "/a/.b/c"));
    }

    static Stream<Arguments> percentDecoding() {
        return Stream.of(
                arguments("/%61dmin", "/admin"),
                arguments("/%41DMIN", "/ADMIN"),
                arguments("/a%7eb", "/a~b"),
                arguments("/%2D%5F%2E%7E", "/-_.~"),
                arguments("/%30%39%7A", "/09z"),
                arguments("/v1%3Abatch", "/v1:batch"),
                arguments("/a%40b%21%24%26%27%28%29%2B%2C%3D", "/a@b!$&'()+,="),
                // '*' is always encoded: raw it would read as a wildcard in pattern text.
                arguments("/a*b", "/a%2Ab"),
                arguments("/a%2ab", "/a%2Ab"),
                arguments("/a b", "/a%20b"),
                arguments("/a%20b", "/a%20b"),
                arguments("/a\u0000b", "/a%00b"),
                arguments("/a%00b", "/a%00b"),
                arguments("/a\"<>|^`", "/a%22%3C%3E%7C%5E%60"),
                arguments("/{id}", "/%7Bid%7D"),
                arguments("/a\u007fb", "/a%7Fb"));
    }

    static Stream<Arguments> encodedSeparators() {
        return Stream.of(
                arguments("/a%2Fb", "/a%2Fb"),
                arguments("/a%2fb", "/a%2Fb"),
                arguments("/a%5cb", "/a%5Cb"),
                arguments("/a\\b", "/a%5Cb"),
                arguments("/admin%2F..%2Fpublic", "/admin%2F..%2Fpublic"),
                arguments("/a/%2e%2e%2fb", "/a/..%2Fb"),
                arguments("/a/..%2F", "/a/..%2F"),
                arguments("/..%5C..%5Cetc", "/..%5C..%5Cetc"),
                arguments("/..\\..\\etc", "/..%5C..%5Cetc"));
    }

    static Stream<Arguments> decodingOnce() {
        return Stream.of(
                arguments("/%252e%252e/admin", "/%252e%252e/admin"),
                arguments("/%252E", "/%252E"),
                arguments("/a/%252e", "/a/%252e"),
                arguments("/a/%25%32%65", "/a/%252e"),
                arguments("/%25", "/%25"),
                arguments("/%2561", "/%2561"));
    }

    static Stream<Arguments> invalidEscapes() {
        return Stream.of(
                arguments("/%zz", "/%25zz"),
                arguments("/a%", "/a%25"),
                arguments("/a%2", "/a%252"),
                arguments("/a%g1", "/a%25g1"),
                arguments("/a%;x", "/a%25"),
                arguments("/a%/b", "/a%25/b"),
                // Kept verbatim, "%2" + decoded "%65" would spell "%2e", a dot for the next decoder.
                arguments("/%2%65", "/%252e"),
                arguments("/%%2e%2e", "/%25.."),
                // Only ASCII hex digits count: these are full-width digits.
                arguments("/%\uFF11\uFF11", "/%25%EF%BC%91%EF%BC%91"));
    }

    static Stream<Arguments> nonAscii() {
        return Stream.of(
                arguments("/café", "/caf%C3%A9"),
                arguments("/caf%c3%a9", "/caf%C3%A9"),
                arguments("/€", "/%E2%82%AC"),
                arguments("/%e2%82%ac", "/%E2%82%AC"),
                arguments("/\uD83D\uDE00", "/%F0%9F%98%80"),
                arguments("/\u00ff\u0100\u07ff\u0800\uffff", "/%C3%BF%C4%80%DF%BF%E0%A0%80%EF%BF%BF"),
                arguments("/\uD800x", "/%EF%BF%BDx"),
                arguments("/x\uDC00", "/x%EF%BF%BD"),
                arguments("/x\uD83D", "/x%EF%BF%BD"),
                // The first character of two and of four UTF-8 bytes.
                arguments("/\u0080", "/%C2%80"),
                arguments("/\uD800\uDC00", "/%F0%90%80%80"),
                // Not valid UTF-8, but unambiguous: kept as an upper-case escape.
                arguments("/%c3", "/%C3"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource({
        "plainPaths",
        "queryAndFragment",
        "matrixParameters",
        "dotSegments",
        "percentDecoding",
        "encodedSeparators",
        "decodingOnce",
        "invalidEscapes",
        "nonAscii"
    })
    void normalize_givesCanonicalPath(String raw, String expected) {
        assertThat(RequestPath.normalize(raw)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource({
        "plainPaths",
        "queryAndFragment",
        "matrixParameters",
        "dotSegments",
        "percentDecoding",
        "encodedSeparators",
        "decodingOnce",
        "invalidEscapes",
        "nonAscii"
    })
    void normalize_isIdempotent(String raw, String expected) {
        assertThat(RequestPath.normalize(expected)).isEqualTo(expected);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"/", "?", "#", ";", "/;", "/.", "/..", "//"})
    void normalize_ofNothing_isRoot(String raw) {
        assertThat(RequestPath.normalize(raw)).isEqualTo("/");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "/admin",
                "//admin",
                "/admin/",
                "/admin;foo",
                "/admin;jsessionid=1/",
                "/./admin",
                "/x/../admin",
                "/x/..;/admin",
                "/%2e%2e/admin",
                "/x/%2e%2e/admin",
                "/x/.%2E/admin",
                "/../../admin",
                "/%61dmin",
                "/adm%69n",
                "/admin?x=1",
                "/admin#x",
                "/admin/%2e"
            })
    void normalize_attackSpellingsOfAdmin_allGiveTheSameKey(String raw) {
        assertThat(RequestPath.normalize(raw)).isEqualTo("/admin");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/ADMIN", "/admin%2F", "/%252e%252e/admin", "/admin%3Bfoo", "/admin%20", "/admin."})
    void normalize_differentPaths_doNotCollapseToAdmin(String raw) {
        assertThat(RequestPath.normalize(raw)).isNotEqualTo("/admin");
    }

    @Test
    void normalize_randomInput_neverThrowsAndKeepsItsGuarantees() {
        String[] alphabet = {
            "/", "/", ".", "..", "%", "%2", "%2e", "%2E", "%2f", "%5C", "%25", "%zz", ";", "?", "#", "\\", "a", "B",
            "~", "*", "{", " ", "é", "\uD83D", "\uDE00", "%c3", ":", "%3a", "%3B"
        };
        Random random = new Random(20240607L);
        for (int n = 0; n < 20_000; n++) {
            StringBuilder raw = new StringBuilder();
            int parts = random.nextInt(12);
            for (int p = 0; p < parts; p++) {
                raw.append(alphabet[random.nextInt(alphabet.length)]);
            }
            String input = raw.toString();
            String key = RequestPath.normalize(input);

            assertThat(RequestPath.normalize(key))
                    .as("idempotent for %s", input)
                    .isEqualTo(key);
            assertCanonical(input, key);
        }
    }

    private static void assertCanonical(String input, String key) {
        assertThat(key).as("key of %s", input).startsWith("/").doesNotContain("//", ";", "?", "#", "\\", "*", " ");
        if (!key.equals("/")) {
            assertThat(key).as("key of %s", input).doesNotEndWith("/");
        }
        for (String segment : key.substring(1).split("/", -1)) {
            assertThat(segment).as("segment of %s", input).isNotIn(".", "..");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            assertThat(c).as("character %d of %s (from %s)", i, key, input).isBetween('!', '~');
            if (c == '%') {
                assertThat(key.substring(i + 1, Math.min(i + 3, key.length())))
                        .as("escape at %d of %s", i, key)
                        .matches("[0-9A-F]{2}");
            }
        }
    }

    @Test
    void normalize_manySegments_keepsThemAll() {
        String raw = "/a".repeat(200_000);

        String key = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> RequestPath.normalize(raw));

        assertThat(key).isEqualTo(raw);
    }

    @Test
    void normalize_deepClimbBack_endsAtRoot() {
        String raw = "/a".repeat(200_000) + "/..".repeat(200_001) + "/etc";

        String key = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> RequestPath.normalize(raw));

        assertThat(key).isEqualTo("/etc");
    }

    @Test
    void normalize_hugeInputsWithoutSeparators_runInLinearTime() {
        // Each of these would take hours with a rescan per segment, per ';' or per '%'.
        List<String> inputs = new ArrayList<>();
        inputs.add("/" + "%2e".repeat(300_000));
        inputs.add("/" + "a".repeat(1_000_000));
        inputs.add("/" + ";".repeat(1_000_000));
        inputs.add("/" + "%".repeat(1_000_000));
        inputs.add("/x" + "/.".repeat(500_000));
        inputs.add("/".repeat(1_000_000) + "?" + "/".repeat(1_000_000));
        inputs.add("/" + "é".repeat(300_000));

        List<String> keys = assertTimeoutPreemptively(
                Duration.ofSeconds(20),
                () -> inputs.stream().map(RequestPath::normalize).toList());

        assertThat(keys.get(0)).hasSize(1 + 300_000).matches("/\\.+");
        assertThat(keys.get(1)).hasSize(1_000_001);
        assertThat(keys.get(2)).isEqualTo("/");
        assertThat(keys.get(3)).isEqualTo("/" + "%25".repeat(1_000_000));
        assertThat(keys.get(4)).isEqualTo("/x");
        assertThat(keys.get(5)).isEqualTo("/");
        assertThat(keys.get(6)).isEqualTo("/" + "%C3%A9".repeat(300_000));
    }

    // What a servlet container routed: decoded and canonicalized already.

    @ParameterizedTest(name = "{0} -> {1}")
    @org.junit.jupiter.params.provider.CsvSource(
            delimiter = '|',
            value = {
                "/hello|/hello",
                "/hello/|/hello",
                "''|/",
                "/|/",
                "//a//./b/../c/|/a/c",
                "/100%|/100%25",
                "/a%2Fb|/a%252Fb",
                "/a%2e%2e|/a%252e%252e",
                "/a;jsessionid=1|/a%3Bjsessionid=1",
                "/a?b#c|/a%3Fb%23c",
                "/caf\u00e9|/caf%C3%A9",
                "/v1:batch|/v1:batch",
                "/a b|/a%20b",
                "/a\\b|/a%5Cb",
                "/ADMIN|/ADMIN"
            })
    void normalizeDecoded_takesEveryCharacterAsItself(String decoded, String key) {
        assertThat(RequestPath.normalizeDecoded(decoded)).isEqualTo(key);
        assertThat(RequestPath.normalize(key))
                .as("a key is its own canonical form")
                .isEqualTo(key);
    }

    @Test
    void normalizeDecoded_ofNull_isTheRoot() {
        assertThat(RequestPath.normalizeDecoded(null)).isEqualTo("/");
    }

    /**
     * For any decoded path, a raw spelling that encodes it (each character as itself or
     * percent-encoded, at random) normalizes to the same key: the servlet filter, keying on what the
     * container decoded, and the raw-path normalization agree.
     */
    @Test
    void normalizeDecoded_agreesWithNormalize_onEveryRawSpellingOfThePath() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        String alphabet = "abcAB09-._~!$&'()+,=:@%;?# \u00e9\u4e2d\ud83d\ude00/";
        for (int n = 0; n < 20_000; n++) {
            StringBuilder decoded = new StringBuilder("/");
            int length = random.nextInt(12);
            for (int i = 0; i < length; i++) {
                int c = alphabet.codePointAt(
                        alphabet.offsetByCodePoints(0, random.nextInt(alphabet.codePointCount(0, alphabet.length()))));
                decoded.appendCodePoint(c);
            }
            String d = decoded.toString();
            StringBuilder raw = new StringBuilder();
            for (int i = 0; i < d.length(); ) {
                int c = d.codePointAt(i);
                i += Character.charCount(c);
                boolean mustEncode = c == '%' || c == ';' || c == '?' || c == '#' || c > 0x7e || c == ' ';
                if (c == '/') {
                    raw.append('/');
                } else if (mustEncode || random.nextBoolean()) {
                    for (byte b : new String(Character.toChars(c)).getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
                        raw.append('%').append(String.format("%02X", b & 0xff));
                    }
                } else {
                    raw.appendCodePoint(c);
                }
            }
            assertThat(RequestPath.normalize(raw.toString()))
                    .as("decoded %s, raw %s", d, raw)
                    .isEqualTo(RequestPath.normalizeDecoded(d));
        }
    }

    // --- dot-segments, plain or spelled with an escape, and empty segments, as a framework routing by the raw URI
    // reads them

    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "/api/items/%2E/price, /api/items/%2E/price",
        "/api/items/%2e%2e/price, /api/items/%2E%2E/price",
        "/api/items/.%2e/price, /api/items/%2E%2E/price",
        "/api/items/%2E./price, /api/items/%2E%2E/price",
        "/api/items/%2E;v=1/price?x=%2E, /api/items/%2E/price",
        "/api/x/../items/%2e, /api/x/%2E%2E/items/%2E",
        "/api/%61/%2E, /api/a/%2E",
        // unescaped: Tomcat resolves them too, and Jersey serves /api/items/./price with the id "."
        "/api/items/./price, /api/items/%2E/price",
        "/api/items/../price, /api/items/%2E%2E/price",
        "/api/items/.;x=1/price, /api/items/%2E/price",
        "/api/items/..;/price, /api/items/%2E%2E/price",
        "/api/./items, /api/%2E/items",
        // in the first segment, and in a path without its leading slash
        "/./api/items, /%2E/api/items",
        "%2e/api/items, /%2E/api/items",
    })
    void asRouted_keepsEachDotSegmentAsASegment(String raw, String key) {
        assertThat(RequestPath.asRouted(raw)).isEqualTo(key);
    }

    /**
     * Tomcat collapses {@code //} and drops a segment of path parameters alone before routing, while
     * Jersey, RESTEasy and CXF serve {@code tags/{tag: [^/]*}/count} for it with the empty tag.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "/api/tags//count, /api/tags/%/count",
        "/api/tags/;x=1/count, /api/tags/%/count",
        "/api/tags/;/count, /api/tags/%/count",
        "/api/tags///count, /api/tags/%/%/count",
        "/api/tags//, /api/tags/%",
        "/api/tags/;x=1, /api/tags/%",
        "//api/tags, /%/api/tags",
        "/;x=1/api/tags, /%/api/tags",
        "/api/tags/;x=1/../a, /api/tags/%/%2E%2E/a",
        "/api/tags//count?x=//, /api/tags/%/count",
    })
    void asRouted_keepsEachEmptySegment_asAPercentSignThatOnlyAWildcardMatches(String raw, String key) {
        assertThat(RequestPath.asRouted(raw)).isEqualTo(key);
        assertThat(PathPattern.parse("/api/tags/*/count").matches("GET", "/api/tags/%/count"))
                .isTrue();
        assertThat(PathPattern.parse("/api/tags/count").matches("GET", "/api/tags/%/count"))
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/api/items/1/price",
                "/api/.well-known/x",
                "/api/...",
                "/api/%61",
                "/a/%2E%2E%2E/b",
                "/a/%2Ex/b",
                "/a/%2",
                // a plain trailing slash: the key drops it, as documented (it has no reading of its own)
                "/api/tags/",
                "/api/tags;x=1/",
                "/api/tags/count?x=//",
                ""
            })
    void asRouted_isNull_withoutADotOrEmptySegment(String raw) {
        assertThat(RequestPath.asRouted(raw)).isNull();
        assertThat(RequestPath.asRouted(null)).isNull();
    }
}
