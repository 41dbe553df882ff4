package dev.leapgate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Part 2 of the summary: one table per per-key limit, each score found by its parameters. */
class ResultsSummaryPerKeyTest {

    @TempDir
    Path dir;

    private static final String HEADER = "\"Benchmark\",\"Mode\",\"Threads\",\"Samples\",\"Score\","
            + "\"Score Error (99.9%)\",\"Unit\",\"Param: buckets\",\"Param: perSecond\"";

    /** A row of JMH's CSV for {@code PerKeyBenchmark.<name>}; {@code buckets} empty when the benchmark has none. */
    private static String row(String name, double score, String unit, String buckets, String perSecond) {
        return "\"dev.leapgate.benchmarks.PerKeyBenchmark." + name + "\",\"avgt\",1,15," + score + ",1.0,\"" + unit
                + "\"," + buckets + "," + perSecond;
    }

    @Test
    void oneTablePerLimit_withItsOwnRatio() throws Exception {
        Files.write(
                dir.resolve("per-key.csv"),
                List.of(
                        HEADER,
                        row("bucket4jCaffeine", 900.0, "ns/op", "", "10000000"),
                        row("bucket4jCaffeine", 800.0, "ns/op", "", "60000"),
                        row("leapgateKeyed", 300.0, "ns/op", "2", "10000000"),
                        row("leapgateKeyed", 500.0, "ns/op", "10", "10000000"),
                        row("leapgateKeyed", 440.0, "ns/op", "2", "60000"),
                        row("leapgateLimiter", 360.0, "ns/op", "", "10000000"),
                        row("leapgateLimiter", 480.0, "ns/op", "", "60000"),
                        row("leapgateLimiter:rejected", 1234.0, "#", "", "60000"),
                        row("leapgateEngine", 410.0, "ns/op", "10", "10000000"),
                        row("leapgateEngine", 330.0, "ns/op", "2", "10000000")),
                StandardCharsets.UTF_8);

        String summary = ResultsSummary.write(dir);

        int high = summary.indexOf("limit 10000000 per key and second");
        int low = summary.indexOf("limit 60000 per key and second");
        assertThat(high).isNotNegative();
        assertThat(low).isGreaterThan(high);
        String first = summary.substring(high, low);
        String second = summary.substring(low);
        assertThat(first)
                .contains("| Leapgate **`Limiter.tryAcquire(origin)`** (public, per origin, strict 10 buckets) | 360.0")
                .contains("strict 2 buckets (the table beneath, not a user's call) | 300.0")
                .contains("strict 10 buckets (the table beneath, not a user's call) | 500.0")
                .contains("| Leapgate `HttpGate.enter` per-IP rule + `close()`, strict 10 buckets | 410.0")
                .contains("| Leapgate `HttpGate.enter` per-IP rule + `close()`, strict 2 buckets | 330.0")
                // the target is judged at the default window, 10 buckets (410 / 900, not 330 / 900)
                // the public call's 360 / 900, not the internal table's 300 / 900
                .contains("Leapgate `Limiter.tryAcquire(origin)` / Bucket4j+Caffeine = **0.40** (target <= 0.50): met")
                .contains("`HttpGate.enter` + `close()` / Bucket4j+Caffeine = **0.46** (target <= 0.50): met");
        assertThat(second)
                .contains("| Leapgate **`Limiter.tryAcquire(origin)`** (public, per origin, strict 10 buckets) | 480.0")
                .contains("strict 2 buckets (the table beneath, not a user's call) | 440.0")
                .contains("| 1234 |")
                .doesNotContain("strict 10 buckets (the table")
                .contains("Leapgate `Limiter.tryAcquire(origin)` / Bucket4j+Caffeine = **0.60** (target <= 0.50):"
                        + " **missed**");
    }
}
