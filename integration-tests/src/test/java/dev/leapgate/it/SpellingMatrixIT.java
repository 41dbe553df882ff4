package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every way of spelling the path to a limited servlet counts against the same rule, on every
 * container, at the root and under a context path.
 *
 * <p>The rule: {@code GET /hello}, 5 per minute per client. The matrix: each spelling of the
 * context path (the canonical one, a doubled slash, a percent-encoded letter, dot-segments before
 * it, matrix parameters on it, upper case, an encoded dot-segment, the absolute form of the request
 * target) combined with each spelling of the path below it (the canonical one, doubled slashes,
 * dot-segments, encoded letters, path parameters, a trailing slash, upper case, a query, an
 * encoded slash, a backslash). Sent over a raw socket, byte for byte, since an HTTP client would
 * normalize them first.
 *
 * <p>What must hold, whatever the container does with a spelling:
 *
 * <ul>
 *   <li>no spelling is answered 500;
 *   <li>every spelling that reaches the servlet is counted by the rule (its response carries the
 *       rule's {@code RateLimit} fields);
 *   <li>one client using all of them in turn is admitted exactly 5 times, then rejected, on every
 *       spelling that reaches the servlet; the spellings the container refuses stay refused, or are
 *       rejected by the rule (a trailing slash is counted as the path without it, so a rule cannot
 *       be dodged by adding one where an application serves both), never served.
 * </ul>
 *
 * The matrix of what each container did is written to {@code target/spelling-matrix/}.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpellingMatrixIT {

    private static final String RULES = """
            rule.greet.match = GET /hello
            rule.greet.limit = 5/1m
            rule.greet.scope = per-origin
            """;
    private static final String HELLO = "hello\n";

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    private TestWebApp web;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        web = TestWebApp.withRules(RULES).on(container, contextPath).start();
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    /** Spellings of the context path: name, and the text that stands for it in the target. */
    private List<String[]> contextSpellings() {
        String origin = "http://127.0.0.1:" + web.port();
        List<String[]> all = new ArrayList<>();
        if (contextPath.isEmpty()) {
            all.add(new String[] {"root", ""});
            all.add(new String[] {"double slash", "/"});
            all.add(new String[] {"dot segment", "/."});
            all.add(new String[] {"dot-dot segment", "/x/.."});
            all.add(new String[] {"encoded dot segment", "/%2e"});
            all.add(new String[] {"absolute form", origin});
            return all;
        }
        String name = contextPath.substring(1); // "app"
        all.add(new String[] {"context", contextPath});
        all.add(new String[] {"double slash", "/" + contextPath});
        all.add(new String[] {"encoded letter", "/%" + Integer.toHexString(name.charAt(0)) + name.substring(1)});
        all.add(new String[] {"dot segment", "/." + contextPath});
        all.add(new String[] {"dot-dot segment", "/x/.." + contextPath});
        all.add(new String[] {"encoded dot segment", "/%2e" + contextPath});
        all.add(new String[] {"path parameter", contextPath + ";p=1"});
        all.add(new String[] {"upper case", contextPath.toUpperCase(java.util.Locale.ROOT)});
        all.add(new String[] {"absolute form", origin + contextPath});
        return all;
    }

    /** Spellings of the servlet's path below the context path. */
    private static final String[][] PATH_SPELLINGS = {
        {"canonical", "/hello"},
        {"double slash", "//hello"},
        {"dot segment", "/./hello"},
        {"dot-dot segment", "/x/../hello"},
        {"encoded dot-dot segment", "/x/%2E%2E/hello"},
        {"encoded letters", "/%68el%6Co"},
        {"path parameter", "/hello;jsessionid=2"},
        {"trailing slash", "/hello/"},
        {"query", "/hello?x=1"},
        {"upper case", "/HELLO"},
        {"encoded slash", "/hello%2F"},
        {"backslash", "/%5Chello"},
        {"double-encoded dot-dot", "/x/%252e%252e/hello"},
    };

    /** What one spelling did for a client that had sent nothing before. */
    private record Probe(String context, String path, String target, int status, boolean reached, String rateLimit) {}

    @Test
    void everySpellingThatReachesTheServlet_countsAgainstTheSameRule() throws Exception {
        List<Probe> probes = new ArrayList<>();
        int client = 0;
        for (String[] context : contextSpellings()) {
            for (String[] path : PATH_SPELLINGS) {
                String target = context[1] + path[1];
                String ip = "198.18." + (client / 250) + "." + (client % 250 + 1);
                client++;
                RawHttp.Response r = RawHttp.get(web.port(), target, "X-Forwarded-For: " + ip);
                probes.add(new Probe(
                        context[0], path[0], target, r.status(), HELLO.equals(r.body()), r.header("RateLimit")));
            }
        }
        writeMatrix(probes);

        assertThat(probes)
                .as("no spelling is answered 500")
                .allSatisfy(p -> assertThat(p.status()).as(p.target()).isNotEqualTo(500));
        assertThat(probes)
                .as("the canonical spelling reaches the servlet")
                .anySatisfy(p -> assertThat(p.target()).isEqualTo(contextPath + "/hello"));
        List<Probe> reaching = probes.stream().filter(Probe::reached).toList();
        assertThat(reaching).as("spellings that reach the servlet").hasSizeGreaterThan(10);
        assertThat(reaching)
                .as("every spelling that reaches the servlet is counted by the rule")
                .allSatisfy(p -> assertThat(p.rateLimit()).as(p.target()).isEqualTo("\"greet\";r=4;t=66"));

        // One client, every spelling in turn: 5 admitted in all, then every reaching spelling rejected.
        String ip = "198.19.0.1";
        int admitted = 0;
        for (int round = 0; round < 2; round++) {
            for (Probe p : probes) {
                RawHttp.Response r = RawHttp.get(web.port(), p.target(), "X-Forwarded-For: " + ip);
                if (p.reached()) {
                    if (r.status() == 200) {
                        assertThat(r.body()).isEqualTo(HELLO);
                        admitted++;
                    } else {
                        assertThat(r.status()).as(p.target()).isEqualTo(429);
                        assertThat(admitted)
                                .as("rejected only once the 5 were taken")
                                .isEqualTo(5);
                    }
                } else {
                    assertThat(r.status())
                            .as("%s: refused as before, or rejected by the rule", p.target())
                            .isIn(p.status(), 429);
                    assertThat(r.body()).isNotEqualTo(HELLO);
                }
            }
        }
        assertThat(admitted).isEqualTo(5);
    }

    /** The matrix as a Markdown table: spelling of the context by spelling of the path, the status seen. */
    private void writeMatrix(List<Probe> probes) throws IOException {
        Map<String, Map<String, String>> table = new LinkedHashMap<>();
        for (Probe p : probes) {
            String cell = p.status() + (p.reached() ? " servlet" : "") + (p.rateLimit() != null ? ", counted" : "");
            table.computeIfAbsent(p.path(), k -> new LinkedHashMap<>()).put(p.context(), cell);
        }
        StringBuilder md = new StringBuilder();
        md.append("# ").append(container).append(" at '").append(contextPath).append("'\n\n| path \\ context |");
        List<String> contexts = new ArrayList<>(table.values().iterator().next().keySet());
        contexts.forEach(c -> md.append(' ').append(c).append(" |"));
        md.append("\n|---|").append("---|".repeat(contexts.size())).append('\n');
        table.forEach((path, row) -> {
            md.append("| ").append(path).append(" |");
            contexts.forEach(c -> md.append(' ').append(row.get(c)).append(" |"));
            md.append('\n');
        });
        Path dir = Path.of("target/spelling-matrix");
        Files.createDirectories(dir);
        String file = container.toString().toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9.]+", "-")
                + (contextPath.isEmpty() ? "-root" : "-app");
        Files.writeString(dir.resolve(file + ".md"), md);
    }
}
