package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathPatternSpecificityTest {

    /** Most specific first, as documented on {@link PathPattern}. */
    private static final List<String> ORDERED = List.of(
            "GET /api/v1/users", // exact, with a method before the same path without
            "/api/v1/users",
            "/api/v1", // exact, fewer literal segments
            "/api/v1/{id}", // one-segment group, literal prefix 2
            "/api/*/users", // literal prefix 1, 2 literals
            "/api/*/*", // literal prefix 1, 1 literal, 3 segments
            "GET /api/*", // same shape with and without method
            "/api/*",
            "/*", // literal prefix 0
            "/api/v1/**", // any-depth group, literal prefix 2
            "/api/*/**", // literal prefix 1, 3 segments
            "/api/**", // literal prefix 1, 2 segments
            "/**");

    private static List<PathPattern> parsed() {
        return ORDERED.stream().map(PathPattern::parse).toList();
    }

    @Test
    void mostSpecificFirst_sortsShuffledPatternsIntoTheDocumentedOrder() {
        Random random = new Random(42);
        for (int round = 0; round < 20; round++) {
            List<PathPattern> shuffled = new ArrayList<>(parsed());
            Collections.shuffle(shuffled, random);

            shuffled.sort(PathPattern.mostSpecificFirst());

            assertThat(shuffled).extracting(PathPattern::toString).containsExactlyElementsOf(ORDERED);
        }
    }

    @Test
    void mostSpecificFirst_literalPrefixIsCountedUpToTheFirstWildcard() {
        // "/b/*/*" has a literal prefix of 1; "/*/a/*" of 0, its literal after a wildcard not counting.
        // Otherwise alike (one literal, three segments), the first decides which rule /b/a/c is under.
        List<PathPattern> patterns = new ArrayList<>(List.of(PathPattern.parse("/*/a/*"), PathPattern.parse("/b/*/*")));
        patterns.sort(PathPattern.mostSpecificFirst());
        assertThat(patterns).extracting(PathPattern::toString).containsExactly("/b/*/*", "/*/a/*");

        patterns = new ArrayList<>(List.of(PathPattern.parse("/*/a"), PathPattern.parse("/b/*")));
        patterns.sort(PathPattern.mostSpecificFirst());
        assertThat(patterns).extracting(PathPattern::toString).containsExactly("/b/*", "/*/a");
    }

    @Test
    void mostSpecificFirst_isAntisymmetricAndConsistentWithEquals() {
        List<PathPattern> patterns = new ArrayList<>(parsed());
        patterns.add(PathPattern.parse("/a/*"));
        patterns.add(PathPattern.parse("/a/{id}"));
        for (PathPattern a : patterns) {
            for (PathPattern b : patterns) {
                int ab = PathPattern.mostSpecificFirst().compare(a, b);
                int ba = PathPattern.mostSpecificFirst().compare(b, a);
                assertThat(Integer.signum(ab)).as("%s vs %s", a, b).isEqualTo(-Integer.signum(ba));
                assertThat(ab == 0).as("%s vs %s", a, b).isEqualTo(a.equals(b));
            }
            assertThat(PathPattern.mostSpecificFirst().compare(a, PathPattern.parse(a.toString())))
                    .isZero();
        }
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "GET    | /api/v1/users     | GET /api/v1/users",
                "HEAD   | /api/v1/users     | GET /api/v1/users",
                "POST   | /api/v1/users     | /api/v1/users",
                "GET    | /api/v1           | /api/v1",
                "GET    | /api/v1/7         | /api/v1/{id}",
                "GET    | /api/v2/users     | /api/*/users",
                "GET    | /api/v2/x         | /api/*/*",
                "GET    | /api/v2           | GET /api/*",
                "DELETE | /api/v2           | /api/*",
                "GET    | /api/v1/users/7   | /api/v1/**",
                "GET    | /api/v2/users/7   | /api/*/**",
                // Group first: a one-segment wildcard beats "**" even with a shorter literal prefix.
                "GET    | /api              | /*",
                "GET    | /other            | /*",
                "GET    | /                 | /**"
            })
    void firstMatchInSpecificityOrder_isTheMostSpecificRule(String method, String path, String expected) {
        PathPattern chosen = parsed().stream()
                .sorted(PathPattern.mostSpecificFirst())
                .filter(p -> p.matches(method, path))
                .findFirst()
                .orElseThrow();

        assertThat(chosen).hasToString(expected);
    }
}
