package dev.leapgate.benchmarks;

import dev.leapgate.net.IpAddress;

/**
 * The workload every library runs: the same limits, the same keys, the same key popularity. Kept in
 * one place so that no peer gets a different (easier or harder) job by accident.
 */
final class Workload {

    /**
     * Single limit: permits per second. High enough that no library ever rejects at the speed it
     * runs here (tens of millions of calls per second at most), so the admitted path is measured.
     * Leapgate's 1 s window of 10 buckets takes up to {@code 2^27 - 1}.
     */
    static final int SINGLE_LIMIT_PER_SECOND = 100_000_000;

    /**
     * Per key: permits per second for each key. The hottest of the Zipf keys takes about 7 % of the
     * calls, so this keeps every key, the hottest included, on the admitted path. Leapgate's
     * per-client table holds it in 32-bit buckets (since 2026-11-27; a 64-bit word per bucket
     * before).
     */
    static final int PER_KEY_LIMIT_PER_SECOND = 10_000_000;

    /**
     * Per key, a limit such as users set for a client: up to 65,535 per window, which Leapgate's
     * per-client table holds in 16-bit buckets (a larger limit takes 32 bits per bucket). At
     * the speed the benchmarks run, the two hottest Zipf keys reach it, so a few percent of the
     * calls take the rejected path, in every library alike.
     */
    static final int PER_KEY_USER_LIMIT_PER_SECOND = 60_000;

    /** Distinct client keys. */
    static final int KEYS = 1_000_000;

    /** The most keys a bounded per-key structure (Leapgate's table, Caffeine) may hold: room for all. */
    static final int KEY_CAPACITY = 1 << 20;

    /** Zipf exponent of key popularity: rank r is drawn with probability proportional to 1 / r^s. */
    static final double ZIPF_EXPONENT = 1.0;

    /** Keys are the IPv4 addresses 10.0.0.0 + i: what a per-IP limit keys on. */
    private static final long KEY_BASE = 0x0A00_0000L;

    private Workload() {}

    /** Key {@code i} as a number (Leapgate keys on it directly; Sentinel and Caffeine box it). */
    static long key(int i) {
        return KEY_BASE + i;
    }

    /** Key {@code i} as dotted-quad text (Resilience4j's registry is keyed by name). */
    static String keyText(int i) {
        long v = key(i);
        return (v >>> 24) + "." + ((v >>> 16) & 0xff) + "." + ((v >>> 8) & 0xff) + "." + (v & 0xff);
    }

    /** Key {@code i} as Leapgate's rule engine sees a client: a parsed IP address. */
    static dev.leapgate.Origin origin(int i) {
        return dev.leapgate.Origin.ip(IpAddress.parse(keyText(i)), 64);
    }
}
