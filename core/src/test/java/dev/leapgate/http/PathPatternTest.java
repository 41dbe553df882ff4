package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.lang.management.ManagementFactory;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class PathPatternTest {

    // ---------------------------------------------------------------- parsing and canonical text

    static Stream<Arguments> canonicalText() {
        return Stream.of(
                arguments("/login", "/login"),
                arguments("  /login\t", "/login"),
                arguments("/", "/"),
                arguments("/**", "/**"),
                arguments("/api/*/status", "/api/*/status"),
                arguments("/users/{id}/orders/{orderId}", "/users/{id}/orders/{orderId}"),
                arguments("/files/{file-name_2}", "/files/{file-name_2}"),
                arguments("/{a}/{zone}/{Area0}/{Zip9}", "/{a}/{zone}/{Area0}/{Zip9}"),
                arguments("GET\t/login", "GET /login"),
                arguments("GET    /users/{id}", "GET /users/{id}"),
                arguments("m-search /x", "m-search /x"),
                arguments("M-SEARCH /x", "M-SEARCH /x"),
                arguments("/caf%c3%a9", "/caf%C3%A9"),
                arguments("/café", "/caf%C3%A9"),
                arguments("/%7Euser", "/~user"),
                arguments("/v1%3abatch", "/v1:batch"),
                arguments("/a%2fb", "/a%2Fb"),
                arguments("/a\\b", "/a%5Cb"),
                arguments("/a%2ab", "/a%2Ab"),
                arguments("/%7Bid%7D", "/%7Bid%7D"));
    }

    @ParameterizedTest(name = "''{0}'' -> ''{1}''")
    @MethodSource("canonicalText")
    void toString_isCanonicalText(String pattern, String expected) {
        assertThat(PathPattern.parse(pattern)).hasToString(expected);
    }

    @ParameterizedTest(name = "''{0}''")
    @MethodSource("canonicalText")
    void parse_ofCanonicalText_givesAnEqualPattern(String pattern, String expected) {
        PathPattern parsed = PathPattern.parse(pattern);
        PathPattern reparsed = PathPattern.parse(parsed.toString());

        assertThat(reparsed).isEqualTo(parsed).hasSameHashCodeAs(parsed).hasToString(expected);
    }

    @ParameterizedTest(name = "''{0}''")
    @CsvSource(
            delimiter = '|',
            value = {
                "/login             | ''   | /login",
                "GET /users/{id}    | GET  | /users/{id}",
                "DELETE /users/{id} | DELETE | /users/{id}",
                "PURGE /cache/**    | PURGE  | /cache/**"
            })
    void methodAndPath_areTheCanonicalParts(String pattern, String method, String path) {
        PathPattern parsed = PathPattern.parse(pattern);

        assertThat(parsed.method()).isEqualTo(method.isEmpty() ? Optional.empty() : Optional.of(method));
        assertThat(parsed.path()).isEqualTo(path);
    }

    @Test
    void equals_dependsOnCanonicalText() {
        assertThat(PathPattern.parse("GET\t/x")).isEqualTo(PathPattern.parse("GET /x"));
        assertThat(PathPattern.parse("m-search /x")).isNotEqualTo(PathPattern.parse("M-SEARCH /x"));
        assertThat(PathPattern.parse("/caf%c3%a9")).isEqualTo(PathPattern.parse("/café"));
        assertThat(PathPattern.parse("/x")).isNotEqualTo(PathPattern.parse("GET /x"));
        assertThat(PathPattern.parse("/users/{id}")).isNotEqualTo(PathPattern.parse("/users/{userId}"));
        assertThat(PathPattern.parse("/a/*")).isNotEqualTo(PathPattern.parse("/a/**"));
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"/login", "/caf%c3%a9", "/café", "/v1%3Abatch", "/a%2fb", "/%7Euser", "/a\\b", "/A/b%2a"})
    void literalPattern_isSpelledLikeTheNormalizedRequestPath(String text) {
        PathPattern pattern = PathPattern.parse(text);

        assertThat(pattern.path()).isEqualTo(RequestPath.normalize(text));
        assertThat(pattern.matches("GET", RequestPath.normalize(text))).isTrue();
    }

    // ---------------------------------------------------------------- parse errors

    static Stream<Arguments> invalidPatterns() {
        return Stream.of(
                arguments("", "must not be empty; expected '/path' or 'METHOD /path'"),
                arguments("   ", "must not be empty; expected '/path' or 'METHOD /path'"),
                arguments("api/x", "must start with '/'"),
                arguments("GET api/x", "must start with '/'"),
                arguments("GET/x", "must start with '/'"),
                arguments("GET POST /x", "expected '/path' or 'METHOD /path'"),
                arguments(
                        "/a b",
                        "whitespace and control characters are not allowed in the path; write them as %XX, e.g. %20"),
                arguments(
                        "GET /a b",
                        "whitespace and control characters are not allowed in the path; write them as %XX, e.g. %20"),
                arguments(
                        "/a\u0000b",
                        "whitespace and control characters are not allowed in the path; write them as %XX, e.g. %20"),
                arguments(
                        "G@T /x",
                        "method 'G@T' is not an HTTP method token (allowed: ASCII letters, digits and !#$%&'*+-.^_`|~)"),
                arguments(
                        "GÉT /x",
                        "method 'GÉT' is not an HTTP method token (allowed: ASCII letters, digits and !#$%&'*+-.^_`|~)"),
                arguments(
                        "GET() /x",
                        "method 'GET()' is not an HTTP method token (allowed: ASCII letters, digits and !#$%&'*+-.^_`|~)"),
                arguments("/a?b", "must not contain '?' or '#': the query and fragment are not part of request paths"),
                arguments("/a#b", "must not contain '?' or '#': the query and fragment are not part of request paths"),
                arguments("/a;b=1", "must not contain ';': matrix parameters are removed from request paths"),
                arguments(
                        "//a",
                        "empty segment ('//' or a trailing '/') is not allowed: request paths are normalized without them"),
                arguments(
                        "/a/",
                        "empty segment ('//' or a trailing '/') is not allowed: request paths are normalized without them"),
                arguments(
                        "/a//b",
                        "empty segment ('//' or a trailing '/') is not allowed: request paths are normalized without them"),
                arguments("/.", "dot-segment '.' is not allowed: request paths are normalized without them"),
                arguments("/a/..", "dot-segment '..' is not allowed: request paths are normalized without them"),
                arguments(
                        "/a/%2e%2E/b",
                        "dot-segment '%2e%2E' is not allowed: request paths are normalized without them"),
                arguments("/**/a", "'**' is allowed only as the last segment"),
                arguments("/a/**/b", "'**' is allowed only as the last segment"),
                arguments(
                        "/a*b",
                        "'*' must be a whole segment ('*' or '**'), was 'a*b'; write %2A for a literal asterisk"),
                arguments(
                        "/***",
                        "'*' must be a whole segment ('*' or '**'), was '***'; write %2A for a literal asterisk"),
                arguments(
                        "/api/v*",
                        "'*' must be a whole segment ('*' or '**'), was 'v*'; write %2A for a literal asterisk"),
                arguments("/users/{}", "empty variable name '{}': write '{name}', or '*' for an unnamed segment"),
                arguments("/users/{id}/orders/{id}", "duplicate variable name 'id'"),
                arguments(
                        "/users/{id:\\d+}",
                        "variable name 'id:\\d+' must start with an ASCII letter and contain only letters, digits,"
                                + " '_' and '-' (regular expressions are not supported)"),
                arguments(
                        "/users/{1id}",
                        "variable name '1id' must start with an ASCII letter and contain only letters, digits,"
                                + " '_' and '-' (regular expressions are not supported)"),
                arguments(
                        "/users/{ïd}",
                        "variable name 'ïd' must start with an ASCII letter and contain only letters, digits,"
                                + " '_' and '-' (regular expressions are not supported)"),
                arguments("/users/{id}.json", "a variable must be a whole segment '{name}', was '{id}.json'"),
                arguments("/users/x{id}", "a variable must be a whole segment '{name}', was 'x{id}'"),
                arguments("/a{b", "a variable must be a whole segment '{name}', was 'a{b'"),
                arguments("/a}b", "a variable must be a whole segment '{name}', was 'a}b'"),
                arguments("/}", "a variable must be a whole segment '{name}', was '}'"),
                arguments("/}a", "a variable must be a whole segment '{name}', was '}a'"),
                arguments("/{", "a variable must be a whole segment '{name}', was '{'"),
                arguments("/{a{b}}", "a variable must be a whole segment '{name}', was '{a{b}}'"),
                arguments(
                        "/a%zz",
                        "invalid percent-escape in segment 'a%zz': '%' must be followed by two hex digits;"
                                + " write %25 for a literal '%'"),
                arguments(
                        "/%zz",
                        "invalid percent-escape in segment '%zz': '%' must be followed by two hex digits;"
                                + " write %25 for a literal '%'"),
                arguments(
                        "/a%",
                        "invalid percent-escape in segment 'a%': '%' must be followed by two hex digits;"
                                + " write %25 for a literal '%'"),
                arguments(
                        "/a%2/b",
                        "invalid percent-escape in segment 'a%2': '%' must be followed by two hex digits;"
                                + " write %25 for a literal '%'"));
    }

    @ParameterizedTest(name = "''{0}''")
    @MethodSource("invalidPatterns")
    void parse_invalidPattern_isRejectedWithAMessageNamingIt(String pattern, String reason) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PathPattern.parse(pattern))
                .withMessage("invalid path pattern '%s': %s", pattern, reason);
    }

    @Test
    void parse_null_isRejected() {
        assertThatNullPointerException()
                .isThrownBy(() -> PathPattern.parse(null))
                .withMessage("pattern");
    }

    // ---------------------------------------------------------------- matching

    @ParameterizedTest(name = "''{0}'' {1} {2} -> {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                // exact
                "/login                       | GET    | /login            | true",
                "/login                       | POST   | /login            | true",
                "/login                       | GET    | /login/x          | false",
                "/login                       | GET    | /logi             | false",
                "/login                       | GET    | /loginx           | false",
                "/login                       | GET    | /                 | false",
                "/login                       | GET    | /LOGIN            | false",
                "/a/b                         | GET    | /a/b              | true",
                "/a/b                         | GET    | /a                | false",
                "/a/b                         | GET    | /a/bc             | false",
                "/a/b                         | GET    | /a/b/c            | false",
                "/a/b                         | GET    | /x/b              | false",
                "/                            | GET    | /                 | true",
                "/                            | GET    | /a                | false",
                // one segment: '*'
                "/*                           | GET    | /x                | true",
                "/*                           | GET    | /                 | false",
                "/*                           | GET    | /x/y              | false",
                "/api/*                       | GET    | /api/x            | true",
                "/api/*                       | GET    | /api              | false",
                "/api/*                       | GET    | /api/x/y          | false",
                "/api/*                       | GET    | /apix/y           | false",
                "/api/*/status                | GET    | /api/7/status     | true",
                "/api/*/status                | GET    | /api/status       | false",
                "/api/*/status                | GET    | /api/7/8/status   | false",
                "/api/*/status                | GET    | /api/7/statusx    | false",
                "/api/*/status                | GET    | /api/7/status/x   | false",
                // any depth: '**'
                "/api/**                      | GET    | /api              | true",
                "/api/**                      | GET    | /api/x            | true",
                "/api/**                      | GET    | /api/x/y/z        | true",
                "/api/**                      | GET    | /apix             | false",
                "/api/**                      | GET    | /ap               | false",
                "/api/**                      | GET    | /                 | false",
                "/api/**                      | GET    | /other/api        | false",
                "/**                          | GET    | /                 | true",
                "/**                          | GET    | /x/y              | true",
                "/api/*/**                    | GET    | /api              | false",
                "/api/*/**                    | GET    | /api/x            | true",
                "/api/*/**                    | GET    | /api/x/y          | true",
                // templates
                "/users/{id}                  | GET    | /users/42         | true",
                "/users/{id}                  | GET    | /users            | false",
                "/users/{id}                  | GET    | /users/42/orders  | false",
                "/users/{id}                  | GET    | /people/42        | false",
                "/users/{id}/orders/{orderId} | GET    | /users/1/orders/2 | true",
                "/users/{id}/orders/{orderId} | GET    | /users/1/orders   | false",
                "/users/{id}/orders/{orderId} | GET    | /users/1/items/2  | false",
                "/{a}/{b}                     | GET    | /x/y              | true",
                "/{a}/{b}                     | GET    | /x                | false",
                // encoded segments are matched as spelled
                "/files/{name}                | GET    | /files/a%2Fb      | true",
                "/files/*/meta                | GET    | /files/a%2Fb/meta | true",
                "/caf%C3%A9                   | GET    | /caf%C3%A9        | true",
                // methods
                "GET /users/{id}              | GET    | /users/42         | true",
                "GET /users/{id}              | get    | /users/42         | true",
                "GET /users/{id}              | HEAD   | /users/42         | true",
                "GET /users/{id}              | head   | /users/42         | true",
                "GET /users/{id}              | hEaD   | /users/42         | true",
                "GET /users/{id}              | gEt    | /users/42         | true",
                "GET /users/{id}              | GET    | /users/42         | true",
                "GET /users/{id}              | G-T    | /users/42         | false",
                "GET /users/{id}              | gex    | /users/42         | false",
                "GET /users/{id}              | POST   | /users/42         | false",
                "GET /users/{id}              | GETX   | /users/42         | false",
                "GET /users/{id}              | GE     | /users/42         | false",
                "GET /users/{id}              | GET    | /users            | false",
                "POST /login                  | POST   | /login            | true",
                "POST /login                  | post   | /login            | true",
                "POST /login                  | head   | /login            | false",
                "POST /login                  | GET    | /login            | false",
                "POST /login                  | HEAD   | /login            | false",
                "POST /login                  | POſT   | /login            | false",
                "HEAD /x                      | HEAD   | /x                | true",
                "HEAD /x                      | GET    | /x                | false",
                "/login                       | FOO    | /login            | true",
                "M-SEARCH /x                  | m-search | /x              | true",
                "M-SEARCH /x                  | M_SEARCH | /x              | false",
                "M-SEARCH /x                  | M-SEARCH | /x              | true",
                "PURGE /x                     | PURGE  | /x                | true",
                "PURGE /x                     | purge  | /x                | true",
                "PURGE /x                     | PURGE  | /y                | false",
                "ZAP /x                       | zap    | /x                | true",
                // not a normalized path: never matches
                "/**                          | GET    | ''                | false",
                "/**                          | GET    | api               | false",
                "/a/*/b                       | GET    | /a//b             | false", // '*' is never empty
                "/a/{id}                      | GET    | /a/               | false"
            })
    void matches(String pattern, String method, String path, boolean expected) {
        assertThat(PathPattern.parse(pattern).matches(method, path)).isEqualTo(expected);
    }

    @Test
    void aMethodInAnotherCase_matches_butOnlyLettersHaveACase() {
        // One bit tells an ASCII letter's cases apart; the same bit tells apart '^' and '~', '-' and
        // a carriage return, which are no case of each other.
        assertThat(PathPattern.parse("X^Y /x").matches("x~y", "/x")).isFalse();
        assertThat(PathPattern.parse("X^Y /x").matches("x^y", "/x")).isTrue();
        assertThat(PathPattern.parse("M-SEARCH /x").matches("M\rSEARCH", "/x")).isFalse();
        assertThat(PathPattern.parse("GET /x").matches("GEt", "/x")).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "/admin",
                "//admin/users",
                "/admin;jsessionid=1/users",
                "/x/../admin/users",
                "/x/..;/admin/users",
                "/%2e%2e/admin",
                "/%61dmin/x",
                "/admin/./x",
                "/admin/",
                "/admin/x/?y=1"
            })
    void matches_attackSpellings_afterNormalization(String raw) {
        PathPattern admin = PathPattern.parse("/admin/**");

        assertThat(admin.matches("GET", RequestPath.normalize(raw))).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/ADMIN", "/admin%2Fx", "/%252e%252e/admin", "/adminx", "/x/admin"})
    void matches_otherPaths_afterNormalization_doNotMatch(String raw) {
        PathPattern admin = PathPattern.parse("/admin/**");

        assertThat(admin.matches("GET", RequestPath.normalize(raw))).isFalse();
    }

    @Test
    void matches_nullArguments_areRejected() {
        PathPattern pattern = PathPattern.parse("/x");

        assertThatNullPointerException()
                .isThrownBy(() -> pattern.matches(null, "/x"))
                .withMessage("requestMethod");
        assertThatNullPointerException()
                .isThrownBy(() -> pattern.matches("GET", null))
                .withMessage("normalizedPath");
    }

    @Test
    void matches_allocatesNothing() {
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean measurable = threads instanceof com.sun.management.ThreadMXBean counting
                && counting.isThreadAllocatedMemorySupported();
        String why = "this JVM does not count the bytes a thread allocates (com.sun.management.ThreadMXBean);"
                + " run the tests on a HotSpot JDK such as Temurin 17";
        if (System.getenv("CI") != null) {
            assertThat(measurable).as(why).isTrue(); // under CI a check that cannot run fails, never skips
        }
        Assumptions.assumeTrue(measurable, why);
        com.sun.management.ThreadMXBean allocation = (com.sun.management.ThreadMXBean) threads;
        allocation.setThreadAllocatedMemoryEnabled(true);
        PathPattern pattern = PathPattern.parse("GET /api/v1/users/{id}/orders/*/**");
        String path = "/api/v1/users/42/orders/7/items/9";
        long threadId = Thread.currentThread().getId();
        int matched = 0;
        for (int i = 0; i < 10_000; i++) {
            matched += pattern.matches("GET", path) ? 1 : 0;
        }

        long before = allocation.getThreadAllocatedBytes(threadId);
        for (int i = 0; i < 100_000; i++) {
            matched += pattern.matches("GET", path) ? 1 : 0;
        }
        long allocated = allocation.getThreadAllocatedBytes(threadId) - before;

        assertThat(matched).isEqualTo(110_000);
        // Even one small object per call would be over 1 MB here; the slack is for the probe itself.
        assertThat(allocated).isLessThan(10_000);
    }

    @ParameterizedTest(name = "''{0}''")
    @CsvSource(
            delimiter = '|',
            value = {
                "get /x       | GET | /x",
                "Post /login  | POST | /login",
                "delete /u/*  | DELETE | /u/*",
                "patch /u/1   | PATCH | /u/1"
            })
    void aStandardMethodInLowerOrMixedCase_isRefused_withTheFix(String pattern, String method, String path) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PathPattern.parse(pattern))
                .withMessage("invalid path pattern '" + pattern + "': methods are case-sensitive (RFC 9110) and"
                        + " clients send '" + method + "', never '" + pattern.substring(0, pattern.indexOf(' '))
                        + "'; did you mean " + method + " " + path + "?");
    }

    @Test
    void aRoutePattern_matchesItsOwnTemplateOnly_andIsNamedAsTheTemplateIsWritten() {
        PathPattern route = PathPattern.route("GET", "/users/{id}");
        PathPattern parsed = PathPattern.parse("GET /users/{id}");

        assertThat(route.toString()).isEqualTo("GET /users/{id}");
        assertThat(route.matches("GET", RequestPath.normalize("/users/{id}"))).isTrue();
        assertThat(route.matches("HEAD", RequestPath.normalize("/users/{id}"))).isTrue();
        assertThat(route.matches("GET", "/users/me")).isFalse();
        assertThat(route.matches("POST", RequestPath.normalize("/users/{id}"))).isFalse();
        assertThat(parsed.matches("GET", "/users/me")).isTrue();
        assertThat(route).isNotEqualTo(parsed);
        assertThat(PathPattern.mostSpecificFirst().compare(route, parsed)).isNotZero();
        assertThat(route).isEqualTo(PathPattern.route("GET", "/users/{id}")).hasSameHashCodeAs(parsed);
        assertThat(PathPattern.route(null, "/users/{id}").toString()).isEqualTo("/users/{id}");
    }

    @Test
    void aGetPatternWithoutHead_matchesGetAlone_andIsAnotherPatternOfTheSameText() {
        PathPattern route = PathPattern.route("GET", "/users/{id}");
        PathPattern getOnly = route.withoutHead();
        String path = RequestPath.normalize("/users/{id}");

        assertThat(getOnly.matches("GET", path)).isTrue();
        assertThat(getOnly.matches("get", path)).isTrue();
        assertThat(getOnly.matches("HEAD", path)).isFalse();
        assertThat(getOnly.matches("head", path)).isFalse();
        assertThat(getOnly.toString()).isEqualTo(route.toString());
        assertThat(getOnly).isNotEqualTo(route).isEqualTo(route.withoutHead());
        assertThat(PathPattern.mostSpecificFirst().compare(getOnly, route)).isNotZero();
        assertThat(PathPattern.parse("GET /x").withoutHead().matches("HEAD", "/x"))
                .isFalse();
        assertThatThrownBy(() -> PathPattern.parse("HEAD /x").withoutHead())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("only a GET pattern matches HEAD, not HEAD /x");
        assertThatThrownBy(() -> PathPattern.parse("/x").withoutHead()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aRoutePattern_takesTemplatesWithMixedSegmentsAndNonAsciiLiterally() {
        PathPattern route = PathPattern.route(null, "/files/{name}.{ext}/café");

        assertThat(route.matches("PUT", RequestPath.normalize("/files/{name}.{ext}/café")))
                .isTrue();
        assertThat(route.matches("PUT", RequestPath.normalize("/files/{name}.txt/café")))
                .isFalse();
        assertThat(route.toString()).isEqualTo("/files/{name}.{ext}/café");
    }
}
