package dev.leapgate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AdmissionStatsTest {

    private static final long W = 1_000;

    @Test
    void worstSpan_countsTwoBurstsWithinOneWindowLength() {
        // 3 at the end of aligned window 0, 3 at the start of window 1: 6 in a span of length W.
        long[] times = {900, 950, 999, 1000, 1001, 1899, 2500};
        AdmissionStats stats = AdmissionStats.of(times, 0, 900, W, 3);

        assertThat(stats.worstSpan()).isEqualTo(6);
        assertThat(stats.worstAligned()).isEqualTo(3);
        assertThat(stats.worstSpanRatio()).isEqualTo(2.0);
    }

    @Test
    void worstSpan_includesBothEndsOfTheSpan() {
        long[] times = {0, W};

        assertThat(AdmissionStats.of(times, 0, 0, W, 1).worstSpan()).isEqualTo(2);
        assertThat(AdmissionStats.of(new long[] {0, W + 1}, 0, 0, W, 1).worstSpan())
                .isEqualTo(1);
    }

    @Test
    void alignedWindows_startAtTheOrigin() {
        long[] times = {105, 110, 1099, 1100, 1101};
        AdmissionStats stats = AdmissionStats.of(times, 100, 100, W, 2);

        // [100, 1100) holds 3; [1100, 2100) holds 2.
        assertThat(stats.worstAligned()).isEqualTo(3);
    }

    @Test
    void firstSpan_countsTheFirstWindowLengthOfLoad() {
        long[] times = {5_000, 5_500, 6_000, 6_001};
        AdmissionStats stats = AdmissionStats.of(times, 0, 5_000, W, 2);

        assertThat(stats.firstSpan()).isEqualTo(3);
        assertThat(stats.meanRatio(4 * W, W)).isEqualTo(0.5);
    }

    @Test
    void noAdmissions_givesZeros() {
        AdmissionStats stats = AdmissionStats.of(new long[0], 0, 0, W, 10);

        assertThat(stats.worstSpan()).isZero();
        assertThat(stats.worstAligned()).isZero();
    }
}
