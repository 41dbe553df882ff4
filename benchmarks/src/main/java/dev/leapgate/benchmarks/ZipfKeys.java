package dev.leapgate.benchmarks;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A precomputed sequence of key indexes with Zipf-like popularity, drawn before the measurement so
 * that sampling costs nothing in the measured code: the benchmark reads the next index from an
 * array.
 *
 * <p>Rank {@code r} (1-based) is drawn with probability proportional to {@code 1 / r^s}. Ranks are
 * mapped to key indexes through a random permutation, so the popular keys are scattered over the
 * key space (and over hash tables) rather than being the first few.
 */
final class ZipfKeys {

    private ZipfKeys() {}

    /**
     * @param keys number of distinct keys
     * @param exponent the Zipf exponent {@code s}
     * @param length number of draws; a power of two, so that readers can wrap with a mask
     * @param seed the random seed: the same seed gives every library the same sequence
     */
    static int[] draw(int keys, double exponent, int length, long seed) {
        if (Integer.bitCount(length) != 1) {
            throw new IllegalArgumentException("length must be a power of two, was " + length);
        }
        double[] cumulative = new double[keys];
        double sum = 0;
        for (int rank = 1; rank <= keys; rank++) {
            sum += 1 / Math.pow(rank, exponent);
            cumulative[rank - 1] = sum;
        }
        SplittableRandom random = new SplittableRandom(seed);
        int[] keyOfRank = new int[keys];
        for (int i = 0; i < keys; i++) {
            keyOfRank[i] = i;
        }
        for (int i = keys - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = keyOfRank[i];
            keyOfRank[i] = keyOfRank[j];
            keyOfRank[j] = t;
        }
        int[] draws = new int[length];
        for (int i = 0; i < length; i++) {
            int found = Arrays.binarySearch(cumulative, random.nextDouble() * sum);
            int rankIndex = found >= 0 ? found : Math.min(keys - 1, -found - 1);
            draws[i] = keyOfRank[rankIndex];
        }
        return draws;
    }
}
