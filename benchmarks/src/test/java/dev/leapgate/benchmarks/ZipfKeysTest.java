package dev.leapgate.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ZipfKeysTest {

    @Test
    void draw_followsZipfPopularity() {
        int keys = 1000;
        int[] draws = ZipfKeys.draw(keys, 1.0, 1 << 20, 1);
        int[] counts = new int[keys];
        for (int key : draws) {
            counts[key]++;
        }
        int[] sorted = counts.clone();
        Arrays.sort(sorted);
        double harmonic = 0;
        for (int r = 1; r <= keys; r++) {
            harmonic += 1.0 / r;
        }
        // The most popular key takes 1/H(1000) (about 13.4 %), the second half as much.
        double top = (double) sorted[keys - 1] / draws.length;
        double second = (double) sorted[keys - 2] / draws.length;
        assertThat(top).isCloseTo(1 / harmonic, org.assertj.core.data.Offset.offset(0.005));
        assertThat(second / top).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.03));
        assertThat(Arrays.stream(draws).allMatch(k -> k >= 0 && k < keys)).isTrue();
    }

    @Test
    void draw_scattersPopularKeysAndIsRepeatable() {
        int[] a = ZipfKeys.draw(1000, 1.0, 1 << 16, 3);
        int[] b = ZipfKeys.draw(1000, 1.0, 1 << 16, 3);
        int[] counts = new int[1000];
        for (int key : a) {
            counts[key]++;
        }
        int hottest = 0;
        for (int k = 1; k < counts.length; k++) {
            if (counts[k] > counts[hottest]) {
                hottest = k;
            }
        }

        assertThat(a).isEqualTo(b);
        assertThat(hottest).isNotZero();
    }

    @Test
    void draw_rejectsALengthThatIsNotAPowerOfTwo() {
        assertThatThrownBy(() -> ZipfKeys.draw(10, 1.0, 1000, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("power of two");
    }
}
