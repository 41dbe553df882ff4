package dev.leapgate.it.app;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Thread factories for the application's worker pools: daemon threads, so a failed test never hangs the JVM. */
final class Workers {

    private Workers() {}

    static ThreadFactory daemon(String name) {
        AtomicInteger next = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, name + "-" + next.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
