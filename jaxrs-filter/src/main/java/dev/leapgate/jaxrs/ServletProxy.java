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

    /** {@code proxy} if it stands for a servlet request, else null. */
    HttpServletRequest current(HttpServletRequest proxy) {
        if (proxy == null || absent) {
            return null;
        }
        try {
            proxy.getDispatcherType();
            return proxy;
        } catch (RuntimeException notInAServletContainer) {
            absent = true;
            return null;
        }
    }
}
