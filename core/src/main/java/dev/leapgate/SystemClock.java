package dev.leapgate;

/** {@link Clock#system()}: a singleton so that the JIT sees one monomorphic call site. */
enum SystemClock implements Clock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return "Clock.system()";
    }
}
