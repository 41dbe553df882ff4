package dev.leapgate.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ResourceMetricsTest {

    private static final long MS = 1_000_000L;
    private final ResourceMetrics metrics = new ResourceMetrics("GET /orders/{id}");

    @Test
    void lastSecond_countsEventsAndDerivesRates() {
        metrics.onPass(100 * MS, false);
        metrics.onPass(200 * MS, true);
        metrics.onBlock(300 * MS);
        metrics.onComplete(400 * MS, 40 * MS, false);
        metrics.onComplete(600 * MS, 20 * MS, true);

        MetricsSnapshot s = metrics.lastSecond(900 * MS);

        assertThat(s.resource()).isEqualTo("GET /orders/{id}");
        assertThat(s.window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.pass()).isEqualTo(2);
        assertThat(s.occupiedPass()).isEqualTo(1);
        assertThat(s.block()).isEqualTo(1);
        assertThat(s.success()).isEqualTo(1);
        assertThat(s.exception()).isEqualTo(1);
        assertThat(s.passPerSecond()).isEqualTo(2.0);
        assertThat(s.blockPerSecond()).isEqualTo(1.0);
        assertThat(s.averageRtMillis()).isEqualTo(30.0);
        assertThat(s.minRtMillis()).isEqualTo(20.0);
        assertThat(s.concurrency()).isZero();
        assertThat(s.peakConcurrency()).isEqualTo(2);
    }

    @Test
    void lastSecond_forgetsBucketsOlderThanTheWindow_lastMinuteKeepsThem() {
        metrics.onPass(100 * MS, false);
        metrics.onPass(700 * MS, false);

        assertThat(metrics.lastSecond(999 * MS).pass()).isEqualTo(2);
        assertThat(metrics.lastSecond(1000 * MS).pass())
                .as("bucket [0, 500ms) deprecated")
                .isEqualTo(1);
        assertThat(metrics.lastSecond(1500 * MS).pass()).isZero();

        MetricsSnapshot minute = metrics.lastMinute(59_999 * MS);
        assertThat(minute.pass()).isEqualTo(2);
        assertThat(minute.passPerSecond()).isEqualTo(2 / 60.0);
        assertThat(metrics.lastMinute(60_000 * MS).pass()).isZero();
    }

    @Test
    void emptyWindow_hasNoResponseTimes() {
        MetricsSnapshot s = metrics.lastSecond(0);

        assertThat(s.averageRtMillis()).isNaN();
        assertThat(s.minRtMillis()).isNaN();
        assertThat(s.minRtNanos()).isEqualTo(-1);
    }

    @Test
    void concurrency_countsAdmittedUntilCompleted() {
        metrics.onPass(0, false);
        metrics.onPass(0, false);
        metrics.onComplete(MS, MS, false);

        assertThat(metrics.concurrency()).isEqualTo(1);
        assertThat(metrics.lastSecond(MS).concurrency()).isEqualTo(1);
    }
}
