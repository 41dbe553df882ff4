package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for real processes (a Redis recovering, a replica copying, a Sentinel failing over, a
 * cluster's gossip, instances' heartbeats) by polling, never for a window: windows are tested with
 * injected time. Bounded: the test fails, naming what it waited for, when the bound passes.
 * ({@link RedisProcess} waits for a server's port the same way, and reports its log instead.)
 */
public final class Polling {

    private static final Duration POLL = Duration.ofMillis(50);

    private Polling() {}

    /** Polls {@code condition} until it holds, failing the test after 30 s. */
    public static void eventually(BooleanSupplier condition) throws InterruptedException {
        eventually("the condition", Duration.ofSeconds(30), condition);
    }

    /** Polls {@code condition} until it holds, failing the test, naming {@code what}, after {@code within}. */
    public static void eventually(String what, Duration within, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("%s within %s", what, within).isLessThan(deadline);
            Thread.sleep(POLL.toMillis());
        }
    }
}
