package dev.leapgate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Part 3 of the summary: the memory target is taken from the window users get by default. */
class ResultsSummaryMemoryTest {

    @TempDir
    Path dir;

    /** A {@code RESULT memory} line as {@code MemoryPerKey} prints it. */
    private static String result(String library, long kept, long retained, String perKey) {
        return "RESULT\tmemory\t" + library + "\t1000000\t" + kept + "\t" + retained + "\t" + perKey + "\t";
    }

    @Test
    void target_isTheDefaultTenBucketWindow_notTheCompactOne() throws Exception {
        // The full run of 2026-11-21: 82.0 B in 2 buckets, 189.1 B in the default 10.
        Files.write(
                dir.resolve("memory.txt"),
                List.of(
                        result("leapgate-2", 1_000_000, 82_021_296, "82.0"),
                        result("leapgate-10", 1_000_000, 189_135_024, "189.1"),
                        result("bucket4j-caffeine", 1_000_000, 352_777_664, "352.8")),
                StandardCharsets.UTF_8);

        String summary = ResultsSummary.write(dir);

        assertThat(summary)
                .contains("default window (10 buckets): 189.1 B, all kept: **missed**")
                .contains("For reference only (not the default window): 2 buckets, 82.0 B")
                .doesNotContain("82.0 B, all kept: met");
    }

    @Test
    void target_isMet_whenTheDefaultWindowFitsWithEveryKeyKept() throws Exception {
        Files.write(
                dir.resolve("memory.txt"),
                List.of(
                        result("leapgate-2", 1_000_000, 37_100_000, "37.1"),
                        result("leapgate-10", 1_000_000, 54_400_000, "54.4")),
                StandardCharsets.UTF_8);

        assertThat(ResultsSummary.write(dir)).contains("default window (10 buckets): 54.4 B, all kept: met");
    }
}
