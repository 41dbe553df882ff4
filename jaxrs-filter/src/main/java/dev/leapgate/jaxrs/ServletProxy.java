package dev.leapgate.jaxrs;

import jakarta.servlet.http.HttpServletRequest;

/**
 * The servlet request behind an injected {@code @Context HttpServletRequest}, where there is one.
 * The runtimes differ where there is none: Jersey injects nothing, RESTEasy (on Vert.x, Netty)
 * injects a proxy that throws when used. The first such failure is remembered: an application is
 * served by one container.
 *
 * <p>Concurrency: a volatile flag, set once.
 */
final class ServletProxy {

    private volatile boolean absent;

    /** {@code proxy} if it stands for a servlet request, else null; on the request's own thread. */
    HttpServletRequest current(HttpServletRequest proxy) {
        HttpServletRequest current = onThisThread(proxy);
        if (current == null && proxy != null) {
            absent = true;
        }
        return current;
    }

    /**
     * {@code proxy} if it reaches a servlet request on this thread, else null, concluding nothing:
     * on another thread than the request's (a response filter run by the application's thread) a
     * proxy may not reach it (RESTEasy's looks the request up in a thread-local).
     */
    HttpServletRequest onThisThread(HttpServletRequest proxy) {
        if (proxy == null || absent) {
            return null;
        }
        try {
            proxy.getDispatcherType();
            return proxy;
        } catch (RuntimeException notReachable) {
            return null;
        }
    }
}
