package dev.leapgate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsSummaryHttpTest {

    @TempDir
    Path dir;

    /** A RESULT http line as run.sh writes it: wrk's fields (from wrk-report.lua), then CPU ms and load. */
    private static String run(int round, String mode, double rps, long requests, long non2xx, long cpuMs) {
        return String.join(
                "\t",
                "RESULT",
                "http",
                Integer.toString(round),
                mode,
                Double.toString(rps),
                "500",
                "900",
                "2000",
                "4000",
                Long.toString(requests),
                "8000000",
                Long.toString(non2xx),
                "0",
                Long.toString(cpuMs),
                "1.00");
    }

    private String summarize(String... lines) throws Exception {
        Files.write(dir.resolve("http.txt"), java.util.List.of(lines), StandardCharsets.UTF_8);
        return ResultsSummary.write(dir);
    }

    @Test
    void mediansOverRounds_ratiosAndVerdicts() throws Exception {
        String summary = summarize(
                run(1, "none", 10_000, 80_000, 0, 2_000),
                run(1, "leapgate", 9_800, 78_400, 0, 2_000),
                run(1, "dosfilter", 9_000, 72_000, 0, 2_000),
                run(2, "dosfilter", 9_400, 75_200, 0, 2_000),
                run(2, "leapgate", 9_600, 76_800, 0, 2_000),
                run(2, "none", 10_400, 83_200, 0, 2_000));

        // Medians of two rounds: none 10,200, leapgate 9,700, dosfilter 9,200.
        assertThat(summary).contains("median of 2 rounds");
        assertThat(summary).contains("| no filter | 10200 | 1.000 | 0.50 ms | 0.90 ms | 2.00 ms | 4.00 ms |");
        assertThat(summary).contains("Leapgate / no filter = **0.951** (target >= 0.97): **missed**");
        assertThat(summary).contains("Leapgate / DoSFilter = **1.054** (target >= 1.00): met");
        assertThat(summary).contains("| 2 | dosfilter, leapgate, none | 10400 | 9600 | 9400 | 0.923 | 1.021 |");
        assertThat(summary).doesNotContain("Not every request");
    }

    @Test
    void aBaselineBuild_getsItsColumnsAndItsRatio() throws Exception {
        String summary = summarize(
                run(1, "leapgate", 9_000, 180_000, 0, 4_000),
                run(1, "baseline", 10_000, 200_000, 0, 4_000),
                run(2, "baseline", 9_000, 180_000, 0, 4_000),
                run(2, "leapgate", 9_900, 198_000, 0, 4_000));

        // Medians: leapgate 9,450, baseline 9,500; CPU per request 4,000 ms / 180,000 and / 198,000.
        assertThat(summary).contains("| Leapgate filter of the baseline build (`HTTP_BASELINE_JAR`) | 9500 |");
        assertThat(summary).contains("| baseline | Leapgate / baseline | load |");
        assertThat(summary).contains("| 2 | baseline, leapgate | – | 9900 | – | – | – | 9000 | 1.100 | 1.00 1.00 |");
        assertThat(summary).contains("Leapgate / baseline = **0.995**");
        assertThat(summary).contains("Server CPU per request: 21.2 µs against 21.1 µs");
    }

    @Test
    void withoutABaseline_noBaselineColumns() throws Exception {
        String summary =
                summarize(run(1, "none", 10_000, 80_000, 0, 2_000), run(1, "leapgate", 9_800, 78_400, 0, 2_000));

        assertThat(summary).doesNotContain("baseline");
    }

    @Test
    void rejectedRequestsVoidTheMeasurement() throws Exception {
        String summary =
                summarize(run(1, "none", 10_000, 80_000, 0, 2_000), run(1, "leapgate", 10_000, 80_000, 5, 2_000));

        assertThat(summary).contains("**Not every request was answered with 2xx** (5 non-2xx");
    }

    @Test
    void skippedWithoutWrk() throws Exception {
        Files.writeString(dir.resolve("http-skipped.txt"), "SKIPPED: part 5 needs wrk\n");

        assertThat(summarize()).contains("### 5. HTTP overhead").contains("Skipped: SKIPPED: part 5 needs wrk");
    }
}
