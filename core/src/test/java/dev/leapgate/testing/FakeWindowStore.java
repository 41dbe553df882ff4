package dev.leapgate.testing;

import dev.leapgate.ManualClock;
import dev.leapgate.internal.counter.LeapCounter;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import dev.leapgate.store.SharedWindow;
import dev.leapgate.store.Verdict;
import dev.leapgate.store.WindowStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Windows in a map, deciding on the test's clock, refunds included; can be made to fail or to hang. */
public final class FakeWindowStore implements WindowStore {
    private final ManualClock clock;
    public final Map<String, LeapCounter> windows = new ConcurrentHashMap<>();
    public final AtomicInteger calls = new AtomicInteger();
    public final List<String> keys = new ArrayList<>();
    public final List<String> refunds = new ArrayList<>();
    /** A ticket of each key's bucket that admitted, by key and bucket: what a refund gives back to. */
    private final Map<String, Long> tickets = new ConcurrentHashMap<>();
    /** Decisions are held until this many have started, then answered together; 0 answers each at once. */
    public volatile int batch;

    private final List<Runnable> held = new ArrayList<>();
    public volatile boolean down;
    public volatile boolean hangs;
    /** Thrown by {@link #tryAcquire} itself, not through its stage, when set. */
    public volatile Throwable throwsWhenAsked;
    /** Completes decisions with nothing (null) when set. */
    public volatile boolean answersNull;
    /** Thrown by {@link #refund} when set. */
    public volatile RuntimeException refundThrows;

    public volatile int instances = 1;

    public FakeWindowStore(ManualClock clock) {
        this.clock = clock;
    }

    @Override
    public CompletionStage<Verdict> tryAcquire(SharedWindow window, String key, int permits) {
        calls.incrementAndGet();
        synchronized (keys) {
            keys.add(key);
        }
        if (down) {
            return CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
        }
        if (throwsWhenAsked instanceof RuntimeException e) {
            throw e;
        }
        if (throwsWhenAsked instanceof Error e) {
            throw e;
        }
        if (answersNull) {
            return CompletableFuture.completedFuture(null);
        }
        if (hangs) {
            return new CompletableFuture<>();
        }
        if (batch > 0) {
            CompletableFuture<Verdict> later = new CompletableFuture<>();
            synchronized (held) {
                held.add(() -> later.complete(decide(window, key, permits)));
                if (held.size() == batch) {
                    held.forEach(Runnable::run);
                    held.clear();
                }
            }
            return later;
        }
        return CompletableFuture.completedFuture(decide(window, key, permits));
    }

    private Verdict decide(SharedWindow window, String key, int permits) {
        long bucketNanos = window.bucketMicros() * 1000;
        WindowSpec spec = new WindowSpec(
                Duration.ofNanos(bucketNanos * (window.span() + 1)), window.span() + 1, WindowMode.SLIDING);
        LeapCounter counter = windows.computeIfAbsent(key, k -> new LeapCounter(spec, window.limit(), 0));
        long now = clock.nanoTime();
        long ticket = counter.tryAcquire(now, permits);
        long nowMicros = now / 1000;
        if (ticket >= 0) {
            tickets.put(key + " " + counter.ticketStartNanos(ticket) / bucketNanos, ticket);
        }
        return ticket >= 0
                ? new Verdict(
                        true,
                        counter.ticketStartNanos(ticket) / bucketNanos,
                        counter.remainingAfter(ticket),
                        nowMicros,
                        0)
                : new Verdict(
                        false,
                        now / bucketNanos,
                        window.limit() - counter.used(now),
                        nowMicros,
                        counter.nanosUntilAvailable(now, permits) / 1000);
    }

    @Override
    public void refund(SharedWindow window, String key, long bucket, int permits) {
        synchronized (refunds) {
            refunds.add(key + " " + permits);
        }
        if (refundThrows != null) {
            throw refundThrows;
        }
        Long ticket = tickets.get(key + " " + bucket);
        LeapCounter counter = windows.get(key);
        if (ticket != null && counter != null) {
            counter.refund(ticket, permits); // as the store does, if the bucket is still counted
        }
    }

    @Override
    public int instances() {
        return instances;
    }

    @Override
    public void close() {}
}
