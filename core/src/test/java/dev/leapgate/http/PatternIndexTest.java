package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The index gives exactly what asking every pattern in turn gives ({@link PathPattern#matches}, in
 * the patterns' order), on random rule sets and random requests, and on the shapes that make its
 * walk branch.
 */
class PatternIndexTest {

    private static final String[] LITERALS = {"api", "users", "me", "v1", "a", "b", "login", "%7Bid%7D", "caf%C3%A9"};
    private static final String[] METHODS = {"GET", "POST", "HEAD", "DELETE", "PURGE"};
    private static final String[] REQUEST_METHODS = {"GET", "POST", "HEAD", "DELETE", "PURGE", "OPTIONS", "get", "Post"
    };

    private static List<String> scan(List<PathPattern> patterns, String method, String path) {
        List<String> matched = new ArrayList<>();
        for (PathPattern p : patterns) {
            if (p.matches(method, path)) {
                matched.add(p.toString());
            }
        }
        return matched;
    }

    private static List<String> indexed(PatternIndex<String> index, String method, String path) {
        return List.of(index.match(method, path));
    }

    private static PatternIndex<String> index(List<PathPattern> patterns) {
        return new PatternIndex<>(
                patterns, patterns.stream().map(PathPattern::toString).toList(), String[]::new);
    }

    private static String randomPattern(SplittableRandom random) {
        StringBuilder p = new StringBuilder();
        if (random.nextInt(3) > 0) {
            p.append(METHODS[random.nextInt(METHODS.length)]).append(' ');
        }
        int segments = random.nextInt(5);
        if (segments == 0 && random.nextBoolean()) {
            return p.append('/').toString();
        }
        for (int s = 0; s < segments; s++) {
            int kind = random.nextInt(10);
            p.append('/');
            if (kind < 6) {
                p.append(LITERALS[random.nextInt(LITERALS.length)]);
            } else if (kind < 8) {
                p.append(random.nextBoolean() ? "*" : "{v" + s + "}");
            } else if (s == segments - 1) {
                p.append("**");
            } else {
                p.append('*');
            }
        }
        if (segments == 0) {
            p.append("/**");
        }
        return p.toString();
    }

    private static String randomPath(SplittableRandom random) {
        int segments = random.nextInt(6);
        if (segments == 0) {
            return "/";
        }
        StringBuilder path = new StringBuilder();
        for (int s = 0; s < segments; s++) {
            path.append('/');
            path.append(random.nextInt(4) == 0 ? "x" + random.nextInt(3) : LITERALS[random.nextInt(LITERALS.length)]);
        }
        return path.toString();
    }

    @Test
    void randomRuleSetsAndRequests_matchExactlyAsTheScan() {
        SplittableRandom random = new SplittableRandom(20261123);
        int compared = 0;
        for (int set = 0; set < 2_000; set++) {
            List<PathPattern> patterns = new ArrayList<>();
            int size = 1 + random.nextInt(12);
            for (int i = 0; i < size; i++) {
                PathPattern p = PathPattern.parse(randomPattern(random));
                if (!patterns.contains(p)) {
                    patterns.add(p);
                }
            }
            PatternIndex<String> index = index(patterns);
            for (int r = 0; r < 100; r++) {
                String method = REQUEST_METHODS[random.nextInt(REQUEST_METHODS.length)];
                String path = randomPath(random);
                assertThat(indexed(index, method, path))
                        .as("%s %s against %s", method, path, patterns)
                        .isEqualTo(scan(patterns, method, path));
                compared++;
            }
        }
        assertThat(compared).isEqualTo(200_000);
    }

    @Test
    void literalBesideVariable_branches_andKeepsTheRuleSetOrder() {
        List<PathPattern> patterns = List.of(
                PathPattern.parse("/api/**"),
                PathPattern.parse("GET /api/users/{id}"),
                PathPattern.parse("GET /api/users/me"),
                PathPattern.parse("/**"));
        PatternIndex<String> index = index(patterns);

        assertThat(indexed(index, "GET", "/api/users/me"))
                .containsExactly("/api/**", "GET /api/users/{id}", "GET /api/users/me", "/**");
        assertThat(indexed(index, "GET", "/api/users/42")).containsExactly("/api/**", "GET /api/users/{id}", "/**");
        assertThat(indexed(index, "HEAD", "/api/users/42")).containsExactly("/api/**", "GET /api/users/{id}", "/**");
        assertThat(indexed(index, "POST", "/api/users/42")).containsExactly("/api/**", "/**");
        assertThat(indexed(index, "POST", "/api")).containsExactly("/api/**", "/**");
        assertThat(indexed(index, "POST", "/")).containsExactly("/**");
        assertThat(indexed(index, "POST", "/other/x")).containsExactly("/**");
    }

    @Test
    void theUsualRequest_getsAPreparedArray_withoutAllocatingOne() {
        PatternIndex<String> index =
                index(List.of(PathPattern.parse("/api/**"), PathPattern.parse("GET /api/orders/{id}")));

        String[] first = index.match("GET", "/api/orders/1");
        String[] second = index.match("GET", "/api/orders/2");

        assertThat(first).containsExactly("/api/**", "GET /api/orders/{id}");
        assertThat(second).isSameAs(first);
        assertThat(index.match("GET", "/api/other")).isSameAs(index.match("DELETE", "/api/x/y/z"));
    }

    @Test
    void tenThousandRoutes_eachRequestFindsItsOwn() {
        List<PathPattern> patterns = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            patterns.add(PathPattern.parse("GET /api/r" + i + "/{id}"));
        }
        PatternIndex<String> index = index(patterns);

        assertThat(index.match("GET", "/api/r9999/7")).containsExactly("GET /api/r9999/{id}");
        assertThat(index.match("GET", "/api/r0/x")).containsExactly("GET /api/r0/{id}");
        assertThat(index.match("GET", "/api/none/7")).isEmpty();
        assertThat(index.nodes()).isEqualTo(2 + 2 * 10_000);
    }

    /**
     * Numbered route names ({@code r0} ... {@code r9999}) have hash codes a few steps apart; the
     * slots they get must not form long runs, or finding one walks many slots (it was 125 slots at
     * 10,000 names and 52 at 1,000 before the hash codes were mixed).
     */
    @Test
    void numberedNames_spreadOverTheTable_withoutLongProbeRuns() {
        for (int n : new int[] {100, 1_000, 10_000}) {
            int size = Integer.highestOneBit(n * 2 - 1) << 1; // as a node sizes its table
            boolean[] taken = new boolean[size];
            int longest = 0;
            for (int i = 0; i < n; i++) {
                int slot = PatternIndex.spread(("r" + i).hashCode()) & (size - 1);
                int probes = 1;
                while (taken[slot]) {
                    slot = (slot + 1) & (size - 1);
                    probes++;
                }
                taken[slot] = true;
                longest = Math.max(longest, probes);
            }
            assertThat(longest).as("%d names", n).isLessThanOrEqualTo(20);
        }
    }
}
