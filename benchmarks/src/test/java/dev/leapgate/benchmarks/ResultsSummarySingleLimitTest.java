package dev.leapgate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Part 1 of the summary: one table per path, every score found by its parameters (JMH writes the
 * {@code path} parameter on every row), and the targets taken from the public call users make.
 */
class ResultsSummarySingleLimitTest {

    @TempDir
    Path dir;

    private static final String HEADER = "\"Benchmark\",\"Mode\",\"Threads\",\"Samples\",\"Score\","
            + "\"Score Error (99.9%)\",\"Unit\",\"Param: buckets\",\"Param: path\"";

    /** A row of JMH's CSV for {@code SingleLimitBenchmark.<name>}; empty cells for the parameters a benchmark lacks. */
    private static String row(String name, double score, String unit, String buckets, String path) {
        return "\"dev.leapgate.benchmarks.SingleLimitBenchmark." + name + "\",\"avgt\",1,10," + score + ",1.0,\"" + unit
                + "\"," + buckets + "," + path;
    }

    @Test
    void targets_compareThePublicCall_notTheCounterBeneath_onEachPath() throws Exception {
        Files.write(
                dir.resolve("single-1t.csv"),
                List.of(
                        HEADER,
                        row("baselineNanoTime", 20.0, "ns/op", "", ""),
                        row("leapgateTryAcquire", 34.0, "ns/op", "", "admitted"),
                        row("leapgateTryAcquire:rejected", 0.0, "#", "", "admitted"),
                        row("leapgateTryAcquire", 28.0, "ns/op", "", "rejected"),
                        row("leapgateTryAcquire:rejected", 9.0e7, "#", "", "rejected"),
                        row("leapgateCounter", 25.0, "ns/op", "10", "admitted"),
                        row("leapgateCounter", 22.0, "ns/op", "10", "rejected"),
                        row("bucket4j", 40.0, "ns/op", "", "admitted"),
                        row("bucket4j", 32.0, "ns/op", "", "rejected"),
                        row("resilience4j", 50.0, "ns/op", "", "admitted"),
                        row("resilience4j", 80.0, "ns/op", "", "rejected")),
                StandardCharsets.UTF_8);
        Files.write(
                dir.resolve("single-2t.csv"),
                List.of(
                        HEADER,
                        row("leapgateTryAcquire", 68.0, "ns/op", "", "admitted"),
                        row("bucket4j", 160.0, "ns/op", "", "admitted"),
                        row("resilience4j", 75.0, "ns/op", "", "admitted")),
                StandardCharsets.UTF_8);

        String summary = ResultsSummary.write(dir);

        int admitted = summary.indexOf("### 1. Single limit, admitted path");
        int rejected = summary.indexOf("### 1. Single limit, rejected path");
        assertThat(admitted).isNotNegative();
        assertThat(rejected).isGreaterThan(admitted);
        String first = summary.substring(admitted, rejected);
        String second = summary.substring(rejected);
        assertThat(first)
                .contains(
                        "| Leapgate **`Limiter.tryAcquire()`** (public, rate only) | 34.0 ± 1.0 | 68.0 ± 1.0 | 2.00 |")
                .contains("| Bucket4j `tryConsume(1)` | 40.0 ± 1.0 | 160.0 ± 1.0 | 4.00 |")
                .contains("(the counter beneath, not a user's call) | 25.0")
                .contains("| (baseline: `System.nanoTime()` alone) | 20.0")
                // 34 / 40, not the counter's 25 / 40
                .contains("Leapgate `Limiter.tryAcquire()` / fastest token bucket (bucket4j) = **0.85**"
                        + " (target <= 0.80): **missed**")
                .contains("the counter beneath / fastest token bucket = 0.63")
                .contains("2 t / 1 t = **2.00**; token-bucket peers 1.50 to 4.00: between the peers");
        assertThat(second)
                .contains("| Leapgate **`Limiter.tryAcquire()`** (public, rate only) | 28.0 ± 1.0 |")
                .doesNotContain("baseline")
                .contains("fastest token bucket (bucket4j) = **0.88** (target <= 0.80): **missed**");
    }
}
