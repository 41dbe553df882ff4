package dev.leapgate.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns one results directory of {@code benchmarks/run.sh} into {@code summary.md}: the tables of
 * BENCHMARKS.md, with the targets computed as ratios within the same run.
 *
 * <pre>
 * java -cp benchmarks.jar dev.leapgate.benchmarks.ResultsSummary RESULTS_DIR
 * </pre>
 */
public final class ResultsSummary {

    /** One JMH score: primary (ns/op) with its error, and the secondary results we read. */
    private record Score(double nsPerOp, double error, double allocBytesPerOp, double rejected) {}

    private final Path dir;
    private final StringBuilder out = new StringBuilder();

    private ResultsSummary(Path dir) {
        this.dir = dir;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: ResultsSummary RESULTS_DIR");
        }
        System.out.print(write(Path.of(args[0])));
    }

    /** Writes {@code summary.md} into a results directory and returns its text. */
    static String write(Path dir) throws IOException {
        String text = new ResultsSummary(dir).render();
        Files.writeString(dir.resolve("summary.md"), text, StandardCharsets.UTF_8);
        return text;
    }

    private String render() throws IOException {
        Path env = dir.resolve("environment.txt");
        if (Files.exists(env)) {
            String text = Files.readString(env, StandardCharsets.UTF_8).strip();
            if (text.startsWith("run:     smoke")) {
                line("> **Smoke run, not representative**: short iterations and runs prove that every"
                        + " program runs; the times, the throughputs, and the verdicts on their targets, mean"
                        + " little.");
                line("");
            }
            line("```");
            out.append(text).append('\n');
            line("```");
            line("");
        }
        singleLimit();
        perKey();
        memory();
        accuracy();
        http();
        return out.toString();
    }

    /** The peers whose public call the single-limit targets compare with. */
    private static final List<String> TOKEN_BUCKETS = List.of("bucket4j", "resilience4j", "guava");

    /**
     * Part 1, one table per path ({@code -p path=admitted}: a limit never reached; {@code
     * path=rejected}: a limit exhausted in the set-up). The targets compare Leapgate's public
     * rate-only call, {@code Limiter.tryAcquire()}, with the peers' public calls; the counter
     * beneath it ({@code LeapCounter.tryAcquire}, not a call users make) is shown for reference only.
     */
    private void singleLimit() throws IOException {
        Map<String, Score> one = jmh("single-1t.csv");
        Map<String, Score> two = jmh("single-2t.csv");
        if (one.isEmpty()) {
            return;
        }
        String[][] rows = {
            {"leapgateTryAcquire", "", "Leapgate **`Limiter.tryAcquire()`** (public, rate only)"},
            {"leapgateLimiter", "", "Leapgate **`Limiter.tryEnter()` + `Entry.close()`** (public, with response times)"
            },
            {"bucket4j", "", "Bucket4j `tryConsume(1)`"},
            {"resilience4j", "", "Resilience4j `acquirePermission()`"},
            {"guava", "", "Guava `tryAcquire()`"},
            {"sentinel", "", "Sentinel `SphU.entry` + `exit`"},
            {
                "leapgateCounter",
                "buckets=10",
                "Leapgate `LeapCounter.tryAcquire`, strict 10 buckets (the counter beneath, not a user's call)"
            },
            {
                "leapgateCounter",
                "buckets=2",
                "Leapgate `LeapCounter.tryAcquire`, strict 2 buckets (the counter beneath, not a user's call)"
            },
        };
        for (String path : List.of("admitted", "rejected")) {
            boolean admitted = path.equals("admitted");
            String p = "path=" + path;
            if (withParams(one, "leapgateTryAcquire", p) == null
                    && withParams(one, "leapgateCounter", "buckets=10", p) == null) {
                continue;
            }
            line("### 1. Single limit, " + path + " path (ns per call, lower is better)");
            line("");
            line(
                    admitted
                            ? "A limit no call reaches: every call admitted (the `rejected` column must be 0)."
                            : "A limit exhausted in the set-up: every call rejected.");
            line("");
            line(
                    admitted
                            ? "| call | 1 thread | 2 threads | 2 t / 1 t | B/op (1 t) | rejected |"
                            : "| call | 1 thread | 2 threads | 2 t / 1 t | B/op (1 t) |");
            line(admitted ? "|---|---:|---:|---:|---:|---:|" : "|---|---:|---:|---:|---:|");
            for (String[] row : rows) {
                singleLimitRow(
                        withParams(one, row[0], row[1], p), withParams(two, row[0], row[1], p), row[2], admitted);
            }
            if (admitted) {
                singleLimitRow(
                        withParams(one, "baselineNanoTime"),
                        withParams(two, "baselineNanoTime"),
                        "(baseline: `System.nanoTime()` alone)",
                        true);
            }
            line("");
            Score leap = withParams(one, "leapgateTryAcquire", p);
            String fastest = null;
            for (String peer : TOKEN_BUCKETS) {
                Score s = withParams(one, peer, p);
                if (s != null
                        && (fastest == null
                                || s.nsPerOp() < withParams(one, fastest, p).nsPerOp())) {
                    fastest = peer;
                }
            }
            if (leap != null && fastest != null) {
                double ratio = leap.nsPerOp() / withParams(one, fastest, p).nsPerOp();
                line(String.format(
                        Locale.ROOT,
                        "- Target 1 thread, %s: Leapgate `Limiter.tryAcquire()` / fastest token bucket (%s) = **%s**"
                                + " (target <= 0.80): %s",
                        path,
                        fastest,
                        fmt(ratio, 2),
                        ratio <= 0.8 ? "met" : "**missed**"));
            }
            Score counter = withParams(one, "leapgateCounter", "buckets=10", p);
            if (counter != null && fastest != null) {
                line(String.format(
                        Locale.ROOT,
                        "- For reference only (not a user's call): the counter beneath / fastest token bucket = %s",
                        fmt(counter.nsPerOp() / withParams(one, fastest, p).nsPerOp(), 2)));
            }
            Score leap2 = withParams(two, "leapgateTryAcquire", p);
            if (admitted && leap != null && leap2 != null) {
                double own = leap2.nsPerOp() / leap.nsPerOp();
                double best = Double.MAX_VALUE;
                double worst = 0;
                for (String peer : TOKEN_BUCKETS) {
                    Score a = withParams(one, peer, p);
                    Score b = withParams(two, peer, p);
                    if (a != null && b != null) {
                        double r = b.nsPerOp() / a.nsPerOp();
                        best = Math.min(best, r);
                        worst = Math.max(worst, r);
                    }
                }
                if (worst > 0) {
                    line(String.format(
                            Locale.ROOT,
                            "- Target 2 threads: Leapgate `Limiter.tryAcquire()` 2 t / 1 t = **%s**; token-bucket peers"
                                    + " %s to %s: %s",
                            fmt(own, 2),
                            fmt(best, 2),
                            fmt(worst, 2),
                            own <= best ? "met (degrades least)" : own <= worst ? "between the peers" : "**missed**"));
                }
            }
            line("");
        }
    }

    private void singleLimitRow(Score a, Score b, String label, boolean withRejected) {
        if (a == null) {
            return;
        }
        String cells = String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s | %s |",
                label,
                ns(a),
                b == null ? "–" : ns(b),
                b == null ? "–" : fmt(b.nsPerOp() / a.nsPerOp(), 2),
                fmt(a.allocBytesPerOp(), 0));
        line(withRejected ? cells + " " + rejected(a, b) + " |" : cells);
    }

    private void perKey() throws IOException {
        Map<String, Score> scores = jmh("per-key.csv");
        if (scores.isEmpty()) {
            return;
        }
        String[][] rows = {
            {"leapgateLimiter", "", "Leapgate **`Limiter.tryAcquire(origin)`** (public, per origin, strict 10 buckets)"
            },
            {"bucket4jCaffeine", "", "Bucket4j in Caffeine `get(key, fn).tryConsume(1)`"},
            {"resilience4jRegistry", "", "Resilience4j `registry.rateLimiter(name).acquirePermission()`"},
            {"leapgateEngine", "buckets=10", "Leapgate `HttpGate.enter` per-IP rule + `close()`, strict 10 buckets"},
            {"leapgateEngine", "buckets=2", "Leapgate `HttpGate.enter` per-IP rule + `close()`, strict 2 buckets"},
            {"sentinelHotParam", "", "Sentinel hot param `SphU.entry(res, IN, 1, key)` + `exit`"},
            {
                "leapgateKeyed",
                "buckets=2",
                "Leapgate `KeyedRateCounter.tryAcquire`, strict 2 buckets (the table beneath, not a user's call)"
            },
            {
                "leapgateKeyed",
                "buckets=10",
                "Leapgate `KeyedRateCounter.tryAcquire`, strict 10 buckets (the table beneath, not a user's call)"
            },
        };
        for (String limit : new String[] {"10000000", "60000"}) {
            line("### 2. Per key: 1,000,000 keys, Zipf 1.0, 1 thread, limit " + limit
                    + " per key and second (ns per call)");
            line("");
            line("| call | ns/op | B/op | rejected |");
            line("|---|---:|---:|---:|");
            for (String[] row : rows) {
                Score s = withParams(scores, row[0], row[1], "perSecond=" + limit);
                if (s != null) {
                    line(String.format(
                            Locale.ROOT,
                            "| %s | %s | %s | %s |",
                            row[2],
                            ns(s),
                            fmt(s.allocBytesPerOp(), 0),
                            rejected(s, null)));
                }
            }
            line("");
            Score leap = withParams(scores, "leapgateLimiter", "", "perSecond=" + limit);
            Score engine = withParams(scores, "leapgateEngine", "buckets=10", "perSecond=" + limit);
            Score bucket4j = withParams(scores, "bucket4jCaffeine", "", "perSecond=" + limit);
            if (leap != null && bucket4j != null) {
                double ratio = leap.nsPerOp() / bucket4j.nsPerOp();
                line(String.format(
                        Locale.ROOT,
                        "- Target: Leapgate `Limiter.tryAcquire(origin)` / Bucket4j+Caffeine = **%s** (target <= 0.50): %s",
                        fmt(ratio, 2),
                        ratio <= 0.5 ? "met" : "**missed**"));
            }
            if (engine != null && bucket4j != null) {
                double ratio = engine.nsPerOp() / bucket4j.nsPerOp();
                line(String.format(
                        Locale.ROOT,
                        "- Target (issue #11): Leapgate `HttpGate.enter` + `close()` / Bucket4j+Caffeine = **%s**"
                                + " (target <= 0.50): %s",
                        fmt(ratio, 2),
                        ratio <= 0.5 ? "met" : "**missed**"));
            }
            line("");
        }
    }

    /** The score of {@code method} run with exactly the given parameters ({@code name=value}; empty ones ignored). */
    private static Score withParams(Map<String, Score> scores, String method, String... params) {
        Set<String> wanted = new TreeSet<>();
        for (String param : params) {
            if (!param.isEmpty()) {
                wanted.add(param);
            }
        }
        for (Map.Entry<String, Score> e : scores.entrySet()) {
            String key = e.getKey();
            int bracket = key.indexOf('[');
            String name = bracket < 0 ? key : key.substring(0, bracket);
            Set<String> has = new TreeSet<>();
            if (bracket >= 0) {
                has.addAll(List.of(key.substring(bracket + 1, key.length() - 1).split(",")));
            }
            if (name.equals(method) && has.equals(wanted)) {
                return e.getValue();
            }
        }
        return null;
    }

    private void memory() throws IOException {
        List<String[]> rows = results("memory.txt", "memory");
        if (rows.isEmpty()) {
            return;
        }
        line("### 3. Memory per tracked key (1,000,000 keys offered; retained heap after GC / keys kept)");
        line("");
        line("| library | keys kept | retained | bytes per kept key | note |");
        line("|---|---:|---:|---:|---|");
        for (String[] r : rows) {
            line(String.format(
                    Locale.ROOT,
                    "| %s | %,d | %,d B | **%s** | %s |",
                    r[2],
                    Long.parseLong(r[4]),
                    Long.parseLong(r[5]),
                    r[6],
                    r.length > 7 ? r[7] : ""));
        }
        line("");
        // The target is for the window users get by default (WindowSpec.of: 10 buckets); the compact
        // 2-bucket window is shown for reference only.
        for (String[] r : rows) {
            if (r[2].equals("leapgate-10")) {
                boolean all = r[3].equals(r[4]);
                double perKey = Double.parseDouble(r[6]);
                line(String.format(
                        Locale.ROOT,
                        "- Target: Leapgate <= 100 B per key with every key kept, default window (10 buckets): %s B,"
                                + " %s kept: %s",
                        r[6],
                        all ? "all" : "not all",
                        all && perKey <= 100 ? "met" : "**missed**"));
            }
        }
        for (String[] r : rows) {
            if (r[2].equals("leapgate-2")) {
                line(String.format(
                        Locale.ROOT,
                        "- For reference only (not the default window): 2 buckets, %s B per kept key",
                        r[6]));
            }
        }
        line("");
    }

    private void accuracy() throws IOException {
        List<String[]> rows = results("accuracy.txt", "accuracy");
        if (rows.isEmpty()) {
            return;
        }
        String[] first = rows.get(0);
        line(String.format(
                Locale.ROOT,
                "### 4. Accuracy under contention: N = %s per second, %s threads, %s s of load (multiples of N)",
                first[4],
                first[5],
                first[6]));
        line("");
        line("| library | worst 1 s span | worst aligned second | first 1 s of load | mean per second | admitted |");
        line("|---|---:|---:|---:|---:|---:|");
        for (String[] r : rows) {
            line(String.format(
                    Locale.ROOT,
                    "| %s | **%s** | %s | %s | %s | %s |",
                    r[3],
                    fmt(Double.parseDouble(r[7]), 3),
                    fmt(Double.parseDouble(r[8]), 3),
                    fmt(Double.parseDouble(r[9]), 3),
                    fmt(Double.parseDouble(r[10]), 3),
                    r[11]));
        }
        line("");
        for (String[] r : rows) {
            if (r[2].equals("leapgate-strict") || r[2].equals("leapgate-limiter")) {
                double span = Double.parseDouble(r[7]);
                double aligned = Double.parseDouble(r[8]);
                line(String.format(
                        Locale.ROOT,
                        "- Target (%s): worst span %s <= 1.00 and aligned %s <= 1.00: %s",
                        r[3],
                        fmt(span, 3),
                        fmt(aligned, 3),
                        span <= 1.0 && aligned <= 1.0 ? "met" : "**missed**"));
            }
        }
        line("");
    }

    /** One measured wrk run: the fields of a {@code RESULT http} line of {@code http.txt}. */
    private record HttpRun(
            int round,
            String mode,
            double rps,
            double p50,
            double p90,
            double p99,
            double p999,
            long requests,
            long non2xx,
            long socketErrors,
            long serverCpuMs,
            String load) {

        static HttpRun of(String[] r) {
            return new HttpRun(
                    Integer.parseInt(r[2]),
                    r[3],
                    Double.parseDouble(r[4]),
                    Double.parseDouble(r[5]),
                    Double.parseDouble(r[6]),
                    Double.parseDouble(r[7]),
                    Double.parseDouble(r[8]),
                    Long.parseLong(r[9]),
                    Long.parseLong(r[11]),
                    Long.parseLong(r[12]),
                    Long.parseLong(r[13]),
                    r.length > 14 ? r[14] : "");
        }

        /** Server CPU time (user + system, all of the JVM's threads) per request, in µs. */
        double cpuMicrosPerRequest() {
            return requests == 0 ? Double.NaN : serverCpuMs * 1000.0 / requests;
        }
    }

    private static final String[][] HTTP_MODES = {
        {"none", "no filter"},
        {"leapgate", "Leapgate filter (per-IP and global rules, admits all)"},
        {"dosfilter", "Jetty `DoSFilter` (admits all)"},
        {"baseline", "Leapgate filter of the baseline build (`HTTP_BASELINE_JAR`)"},
    };

    private void http() throws IOException {
        List<HttpRun> runs = new ArrayList<>();
        for (String[] r : results("http.txt", "http")) {
            runs.add(HttpRun.of(r));
        }
        if (Files.exists(dir.resolve("http-skipped.txt"))) {
            line("### 5. HTTP overhead");
            line("");
            line("Skipped: "
                    + Files.readString(dir.resolve("http-skipped.txt"), StandardCharsets.UTF_8)
                            .strip());
            line("");
            return;
        }
        if (runs.isEmpty()) {
            return;
        }
        int rounds = runs.stream().mapToInt(HttpRun::round).max().orElse(0);
        line(String.format(
                Locale.ROOT,
                "### 5. HTTP overhead: `GET /api/hello` on embedded Jetty, wrk over loopback (median of %d %s)",
                rounds,
                rounds == 1 ? "round" : "rounds"));
        line("");
        line("| mode | requests/s | × no filter | p50 | p90 | p99 | p99.9 | server CPU per request | non-2xx |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        Map<String, Double> rps = new HashMap<>();
        Map<String, Double> cpu = new HashMap<>();
        long non2xx = 0;
        for (String[] mode : HTTP_MODES) {
            List<HttpRun> of =
                    runs.stream().filter(r -> r.mode().equals(mode[0])).toList();
            if (of.isEmpty()) {
                continue;
            }
            rps.put(mode[0], median(of, HttpRun::rps));
            cpu.put(mode[0], median(of, HttpRun::cpuMicrosPerRequest));
            long bad = of.stream().mapToLong(r -> r.non2xx() + r.socketErrors()).sum();
            non2xx += bad;
            line(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s | %s | %s | %s µs | %d |",
                    mode[1],
                    fmt(rps.get(mode[0]), 0),
                    rps.containsKey("none") ? fmt(rps.get(mode[0]) / rps.get("none"), 3) : "–",
                    ms(median(of, HttpRun::p50)),
                    ms(median(of, HttpRun::p90)),
                    ms(median(of, HttpRun::p99)),
                    ms(median(of, HttpRun::p999)),
                    fmt(cpu.get(mode[0]), 1),
                    bad));
        }
        line("");
        line("Per round, requests/s in the order run (each run is a new server JVM with its own warm-up):");
        line("");
        boolean baseline = rps.containsKey("baseline");
        line("| round | order | no filter | Leapgate | DoSFilter | Leapgate / none | Leapgate / DoSFilter |"
                + (baseline ? " baseline | Leapgate / baseline |" : "") + " load |");
        line("|---:|---|---:|---:|---:|---:|---:|" + (baseline ? "---:|---:|" : "") + "---|");
        for (int round = 1; round <= rounds; round++) {
            int r = round;
            List<HttpRun> of = runs.stream().filter(x -> x.round() == r).toList();
            Map<String, Double> by = new HashMap<>();
            of.forEach(x -> by.put(x.mode(), x.rps()));
            double leapgate = by.getOrDefault("leapgate", Double.NaN);
            line(String.format(
                    Locale.ROOT,
                    "| %d | %s | %s | %s | %s | %s | %s |%s %s |",
                    round,
                    String.join(", ", of.stream().map(HttpRun::mode).toList()),
                    fmt(by.getOrDefault("none", Double.NaN), 0),
                    fmt(leapgate, 0),
                    fmt(by.getOrDefault("dosfilter", Double.NaN), 0),
                    fmt(leapgate / by.getOrDefault("none", Double.NaN), 3),
                    fmt(leapgate / by.getOrDefault("dosfilter", Double.NaN), 3),
                    baseline
                            ? String.format(
                                    Locale.ROOT,
                                    " %s | %s |",
                                    fmt(by.getOrDefault("baseline", Double.NaN), 0),
                                    fmt(leapgate / by.getOrDefault("baseline", Double.NaN), 3))
                            : "",
                    String.join(" ", of.stream().map(HttpRun::load).toList())));
        }
        line("");
        if (non2xx > 0) {
            line("- **Not every request was answered with 2xx** (" + non2xx
                    + " non-2xx responses or socket errors): a filter rejected or failed requests, so the"
                    + " admitted path was not what was measured.");
        }
        if (rps.containsKey("leapgate") && rps.containsKey("none")) {
            double ratio = rps.get("leapgate") / rps.get("none");
            line(String.format(
                    Locale.ROOT,
                    "- Target: Leapgate / no filter = **%s** (target >= 0.97): %s. Server CPU per request: %s µs"
                            + " with the filter, %s µs without (%s µs more).",
                    fmt(ratio, 3),
                    ratio >= 0.97 ? "met" : "**missed**",
                    fmt(cpu.get("leapgate"), 1),
                    fmt(cpu.get("none"), 1),
                    fmt(cpu.get("leapgate") - cpu.get("none"), 1)));
        }
        if (rps.containsKey("leapgate") && rps.containsKey("dosfilter")) {
            double ratio = rps.get("leapgate") / rps.get("dosfilter");
            line(String.format(
                    Locale.ROOT,
                    "- Target: Leapgate / DoSFilter = **%s** (target >= 1.00): %s. DoSFilter's server CPU per"
                            + " request: %s µs.",
                    fmt(ratio, 3),
                    ratio >= 1.0 ? "met" : "**missed**",
                    fmt(cpu.get("dosfilter"), 1)));
        }
        if (rps.containsKey("leapgate") && baseline) {
            line(String.format(
                    Locale.ROOT,
                    "- This build against the baseline build: Leapgate / baseline = **%s** (medians; the rounds"
                            + " above show the spread between runs of one build). Server CPU per request: %s µs"
                            + " against %s µs.",
                    fmt(rps.get("leapgate") / rps.get("baseline"), 3),
                    fmt(cpu.get("leapgate"), 1),
                    fmt(cpu.get("baseline"), 1)));
        }
        line("");
        for (String[] mode : HTTP_MODES) {
            Path profile = dir.resolve("http-profile-" + mode[0] + ".txt");
            if (!Files.exists(profile)) {
                continue;
            }
            line("Where the time of " + mode[1] + " goes (JFR, one more run, `" + profile.getFileName() + "`):");
            line("");
            line("```");
            for (String text : Files.readAllLines(profile, StandardCharsets.UTF_8)) {
                if (!text.startsWith("RESULT")) {
                    line(text);
                }
            }
            line("```");
            line("");
        }
    }

    private static double median(List<HttpRun> runs, java.util.function.ToDoubleFunction<HttpRun> value) {
        double[] values = runs.stream().mapToDouble(value).sorted().toArray();
        int n = values.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    /** A latency in µs as milliseconds. */
    private static String ms(double micros) {
        return fmt(micros / 1000.0, 2) + " ms";
    }

    /** JMH CSV: primary scores and their {@code :gc.alloc.rate.norm} and {@code :rejected}, by method[params]. */
    private Map<String, Score> jmh(String file) throws IOException {
        Path path = dir.resolve(file);
        if (!Files.exists(path)) {
            return Map.of();
        }
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        List<String> header = csv(lines.get(0));
        Map<String, double[]> primary = new LinkedHashMap<>();
        Map<String, Double> alloc = new HashMap<>();
        Map<String, Double> rejected = new HashMap<>();
        for (String row : lines.subList(1, lines.size())) {
            List<String> cells = csv(row);
            String name = cells.get(0);
            String secondary = null;
            int colon = name.indexOf(':');
            if (colon >= 0) {
                secondary = name.substring(colon + 1);
                name = name.substring(0, colon);
            }
            String method = name.substring(name.lastIndexOf('.') + 1);
            StringBuilder params = new StringBuilder();
            for (int i = 7; i < header.size() && i < cells.size(); i++) {
                if (!cells.get(i).isEmpty()) {
                    params.append(params.length() == 0 ? "[" : ",")
                            .append(header.get(i).replace("Param: ", ""))
                            .append('=')
                            .append(cells.get(i));
                }
            }
            String key = method + (params.length() == 0 ? "" : params + "]");
            double score = number(cells.get(4));
            if (secondary == null) {
                primary.put(key, new double[] {score, number(cells.get(5))});
            } else if (secondary.equals("gc.alloc.rate.norm")) {
                alloc.put(key, score);
            } else if (secondary.equals("rejected")) {
                rejected.put(key, score);
            }
        }
        Map<String, Score> scores = new LinkedHashMap<>();
        primary.forEach((key, s) -> scores.put(
                key, new Score(s[0], s[1], alloc.getOrDefault(key, Double.NaN), rejected.getOrDefault(key, 0.0))));
        return scores;
    }

    /** The tab-separated {@code RESULT} lines of one kind in a program's output. */
    private List<String[]> results(String file, String kind) throws IOException {
        Path path = dir.resolve(file);
        List<String[]> rows = new ArrayList<>();
        if (!Files.exists(path)) {
            return rows;
        }
        for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
            String[] cells = line.split("\t", -1);
            if (cells.length > 2 && cells[0].equals("RESULT") && cells[1].equals(kind)) {
                rows.add(cells);
            }
        }
        return rows;
    }

    private static List<String> csv(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }

    private static double number(String text) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static String ns(Score s) {
        return Double.isNaN(s.error()) ? fmt(s.nsPerOp(), 1) : fmt(s.nsPerOp(), 1) + " ± " + fmt(s.error(), 1);
    }

    private static String rejected(Score a, Score b) {
        double total = a.rejected() + (b == null ? 0 : b.rejected());
        return total == 0 ? "0" : fmt(total, 0);
    }

    private static String fmt(double value, int decimals) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private void line(String text) {
        out.append(text).append('\n');
    }
}
