package dev.leapgate.benchmarks;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Counts the calls a benchmark saw rejected, reported by JMH next to the time per call as the
 * secondary result {@code :rejected}. The benchmarks set their limits so that this stays 0: a
 * non-zero count means the admitted path was not what was measured.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class Outcome {

    /** Rejected calls in this iteration on this thread. */
    public long rejected;

    @Setup(Level.Iteration)
    public void reset() {
        rejected = 0;
    }
}
