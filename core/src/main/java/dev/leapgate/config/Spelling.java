package dev.leapgate.config;

import java.util.Collection;
import java.util.Locale;

/**
 * Finds what a misspelt key or value was probably meant to be, so that a typo is reported with
 * its fix rather than just rejected.
 */
final class Spelling {

    /** Farther than this, a guess is more likely wrong than helpful. */
    private static final int MAX_DISTANCE = 2;

    private Spelling() {}

    /**
     * The candidate nearest to {@code word} if it is within edit distance 2 (ignoring case, a
     * swap of two neighbours counting as one edit, and a singular for its plural too: {@code
     * trusted-proxy} for {@code trusted-proxies}) and closer than the word is long; the first such
     * candidate on a tie; {@code null} if none.
     */
    static String nearest(String word, Collection<String> candidates) {
        String lower = word.toLowerCase(Locale.ROOT);
        String singular = singular(lower);
        String best = null;
        int bestDistance = MAX_DISTANCE + 1;
        for (String candidate : candidates) {
            String other = candidate.toLowerCase(Locale.ROOT);
            int d = distance(lower, other);
            if (d > 1 && singular.equals(singular(other))) {
                d = 1;
            }
            if (d < bestDistance && d < word.length()) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best;
    }

    /** {@code word} without an English plural's ending: "proxies" and "proxy" alike, "buckets" and "bucket". */
    private static String singular(String word) {
        if (word.endsWith("ies") && word.length() > 3) {
            return word.substring(0, word.length() - 3) + "y";
        }
        return word.endsWith("s") ? word.substring(0, word.length() - 1) : word;
    }

    /** {@code "; did you mean 'x'?"} or the empty string. */
    static String didYouMean(String word, Collection<String> candidates) {
        String nearest = nearest(word, candidates);
        return nearest == null ? "" : "; did you mean '" + nearest + "'?";
    }

    /**
     * Optimal string alignment distance: insertions, deletions, substitutions and swaps of
     * adjacent characters, each costing 1. Returns {@code MAX_DISTANCE + 1} early when the lengths
     * alone rule a match out, so a long garbage key costs nothing.
     */
    static int distance(String a, String b) {
        if (Math.abs(a.length() - b.length()) > MAX_DISTANCE) {
            return MAX_DISTANCE + 1;
        }
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int best = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    best = Math.min(best, d[i - 2][j - 2] + 1);
                }
                d[i][j] = best;
            }
        }
        return d[a.length()][b.length()];
    }
}
