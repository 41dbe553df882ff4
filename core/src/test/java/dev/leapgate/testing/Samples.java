package dev.leapgate.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Random inputs for property tests: a property is checked on {@link #COUNT} inputs drawn from a
 * seeded generator, and a failure names the input, the seed and how to run the same inputs again.
 * The seed is fixed (the same inputs on every build); {@code -Dleapgate.samples.seed=<n>} runs
 * others, {@code -Dleapgate.samples.seed=random} new ones each run.
 */
public final class Samples {

    /** Inputs per property. */
    public static final int COUNT = 2000;

    private static final long DEFAULT_SEED = 20261124L;

    private final SplittableRandom random;

    private Samples(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /**
     * Checks {@code property} on {@link #COUNT} inputs made by {@code generator}. An assertion
     * error or exception is rethrown as an {@link AssertionError} naming the input and the seed.
     */
    public static <T> void check(Function<Samples, T> generator, Consumer<T> property) {
        long seed = seed();
        Samples samples = new Samples(seed);
        for (int i = 0; i < COUNT; i++) {
            T input = generator.apply(samples);
            try {
                property.accept(input);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(
                        "property failed for input " + shown(input) + " (sample " + i + " of seed " + seed
                                + "; run again with -Dleapgate.samples.seed=" + seed + ")",
                        e);
            }
        }
    }

    private static long seed() {
        String configured = System.getProperty("leapgate.samples.seed");
        if (configured == null || configured.isBlank()) {
            return DEFAULT_SEED;
        }
        return configured.strip().equals("random") ? System.nanoTime() : Long.parseLong(configured.strip());
    }

    /** An integer from {@code min} to {@code max}, both included. */
    public int between(int min, int max) {
        return random.nextInt(min, max + 1);
    }

    /** One of {@code choices}, each as likely. */
    public <T> T oneOf(List<T> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    /** Up to {@code maxSize} elements, each made by {@code element}. */
    public <T> List<T> listOf(int maxSize, Function<Samples, T> element) {
        int size = between(0, maxSize);
        List<T> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.apply(this));
        }
        return list;
    }

    /** Up to {@code maxPieces} of {@code pieces}, concatenated. */
    public String joined(List<String> pieces, int maxPieces) {
        return String.join("", listOf(maxPieces, s -> s.oneOf(pieces)));
    }

    /** {@code length} random bytes. */
    public byte[] bytes(int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /** Text with control and non-ASCII characters escaped, so that a failing input can be read. */
    private static String shown(Object input) {
        StringBuilder out = new StringBuilder();
        String text = input instanceof Object[] array ? java.util.Arrays.deepToString(array) : String.valueOf(input);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x7f) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return "'" + out + "'";
    }
}
