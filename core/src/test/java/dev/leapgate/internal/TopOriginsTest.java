package dev.leapgate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Origin;
import dev.leapgate.testing.Together;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link TopOrigins} counts each thread's offers in a stripe of its own (by thread identifier):
 * what the threads offered is read as one summary, an origin's counts added up across stripes.
 */
class TopOriginsTest {

    private static final Origin ABUSER = Origin.ip("203.0.113.7");
    /** Several stripes whatever the processors (one on a machine with one). */
    private static final int STRIPES = 4;

    /**
     * Threads one after another (so no offer finds a stripe busy, and none is dropped), each
     * offering the same abusive origin and one of its own: the abuser is counted once, with every
     * offer of every thread; each thread's own origin with its offers; a reset empties every stripe.
     */
    @Test
    void offersOfManyThreads_readAsOneSummary_anOriginsCountsAddedUp() throws InterruptedException {
        int threads = 2 * STRIPES + 1; // every stripe, some by two threads or more
        TopOrigins top = new TopOrigins(threads + 1, STRIPES); // places enough for all in any stripe
        for (int i = 0; i < threads; i++) {
            Origin own = Origin.ip("198.51.100." + i);
            int offers = 10 + i;
            Together.run(
                    1,
                    unused -> { // one thread at a time
                        for (int k = 0; k < 100; k++) {
                            top.offer(ABUSER);
                        }
                        for (int k = 0; k < offers; k++) {
                            top.offer(own);
                        }
                    });
        }

        List<TopOrigins.Counted> counted = top.top(threads + 1, true);

        assertThat(counted).hasSize(threads + 1);
        assertThat(counted.get(0)).isEqualTo(new TopOrigins.Counted(ABUSER, 100L * threads));
        for (int i = 0; i < threads; i++) {
            // Sorted most first: the last thread's origin, with the most offers, comes next.
            assertThat(counted.get(threads - i))
                    .isEqualTo(new TopOrigins.Counted(Origin.ip("198.51.100." + i), 10L + i));
        }
        assertThat(top.top(10, false)).as("after the reset").isEmpty();
    }

    /**
     * Threads offer at once, sharing stripes, while a reader drains the summary again and again,
     * each offerer offering again what it was refused (its stripe busy) until it is counted: every
     * offer is in exactly one reading (places enough for every origin, so none is over-estimated),
     * and no stripe's lock is left taken (the offers and the readings end). An offer said counted
     * that was not would read too few, as would one lost by a reset or a stripe lost when installed;
     * a refusal that counted anyway, too many. Each offerer waits halfway for two readings, so that
     * readings happen while offers do, however the threads are scheduled.
     */
    @Test
    void offersAndReadsAtOnce_everyOfferCounted_inExactlyOneReading() throws InterruptedException {
        int offerers = 6;
        int each = 100_000;
        TopOrigins top = new TopOrigins(offerers, 2); // three offerers a stripe on average
        Origin[] origins = new Origin[offerers];
        Arrays.setAll(origins, t -> Origin.ip("198.51.100." + t));
        Map<Origin, Long> read = new HashMap<>(); // the reader's, then the test thread's
        AtomicInteger finished = new AtomicInteger();
        AtomicInteger readings = new AtomicInteger();

        Together.run(offerers + 1, t -> {
            if (t == offerers) {
                while (finished.get() < offerers) {
                    addUp(top.top(offerers, true), read);
                    readings.incrementAndGet();
                }
                return;
            }
            for (int k = 0; k < each; k++) {
                while (k == each / 2 && readings.get() < 2) {
                    Thread.yield();
                }
                while (!top.offer(origins[t])) {
                    Thread.yield(); // the holder may have lost its processor
                }
            }
            finished.incrementAndGet();
        });
        addUp(top.top(offerers, true), read);

        assertThat(top.top(offerers, false)).as("after the last reset").isEmpty();
        for (int t = 0; t < offerers; t++) {
            assertThat(read.getOrDefault(origins[t], 0L)).as("origin %d", t).isEqualTo(each);
        }
    }

    private static void addUp(List<TopOrigins.Counted> counted, Map<Origin, Long> read) {
        for (TopOrigins.Counted c : counted) {
            read.merge(c.origin(), c.count(), Long::sum);
        }
    }

    /** More origins than places: the summary keeps the most offered, within its error bound. */
    @Test
    void moreOriginsThanPlaces_keepsTheOneOfferedMost() {
        TopOrigins top = new TopOrigins(3);
        for (int i = 0; i < 1_000; i++) {
            top.offer(ABUSER);
            top.offer(Origin.ip("198.51.100." + (i % 200)));
        }
        List<TopOrigins.Counted> counted = top.top(1, false);
        assertThat(counted).hasSize(1);
        assertThat(counted.get(0).origin()).isEqualTo(ABUSER);
        // Space-saving: at least its offers, over-estimated by at most the smallest count kept.
        assertThat(counted.get(0).count()).isBetween(1_000L, 2_000L);
    }
}
