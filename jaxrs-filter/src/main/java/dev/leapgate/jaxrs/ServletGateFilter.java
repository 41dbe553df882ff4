package dev.leapgate.jaxrs;

import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import java.util.function.Supplier;

/**
 * The filter where the Servlet API is on the class path: in a servlet container the peer address
 * is the servlet request's {@code getRemoteAddr()}, and the trusted-proxy rules apply to it as in
 * the servlet filter. Elsewhere (Grizzly, Vert.x, the JDK server) there is no servlet request, and
 * {@link GateFilter}'s sources apply. Loaded only when the Servlet API is
 * present, so that the provider runs without it.
 */
final class ServletGateFilter extends GateFilter {

    /** A proxy to the current request in a servlet container; null or unusable elsewhere. */
    @Context
    private HttpServletRequest servletRequest;

    private final ServletProxy servlet = new ServletProxy();
    /**
     * The servlet request itself, on the request's thread, where the runtime's proxy to it reaches
     * it on that thread only (RESTEasy's: {@link ResteasyServletContext#requestOnThisThread}); else
     * null.
     */
    private final Supplier<HttpServletRequest> requestOnThisThread;

    /**
     * Guards {@code application} (see {@link GateFilter}); {@code requestOnThisThread}: the servlet
     * request behind the runtime's proxy, where a response filter may run on another thread than the
     * request's and the proxy not reach it there, or null.
     */
    ServletGateFilter(
            ApplicationGate application, boolean endsAfterWrite, Supplier<HttpServletRequest> requestOnThisThread) {
        super(application, endsAfterWrite);
        this.requestOnThisThread = requestOnThisThread;
    }

    /** The servlet container's view of the request's end ({@link ServletRequests}), where installed. */
    @Override
    RequestEnd requestEnd(ContainerRequestContext request) {
        HttpServletRequest current = servlet.current(servletRequest);
        if (current != null && current.getAttribute(RequestEnd.PROPERTY) instanceof RequestEnd end) {
            return end;
        }
        return super.requestEnd(request);
    }

    /** Has the gate closed when the servlet context ends ({@link ServletRequests}), where installed. */
    @Override
    void started(ContainerRequestContext request) {
        HttpServletRequest current = servlet.current(servletRequest);
        if (current != null) {
            ServletRequests.closeWith(current.getServletContext(), application());
        }
    }

    /**
     * Keeps the servlet request itself where the proxy to it may not reach it from the response
     * filter, and the request holds slots that a stream may hold on: not where the servlet listener
     * watches the request, which has it ({@link #servletRequest}).
     */
    @Override
    void admitted(RequestTracker tracker, RequestEnd end) {
        if (requestOnThisThread != null && tracker.holds() && !(end instanceof ServletRequests.End)) {
            tracker.keep(requestOnThisThread.get());
        }
    }

    /**
     * In a servlet container a stream of server-sent events is the servlet request's asynchronous
     * cycle, which the runtime starts before it runs the response filters: a listener added to it
     * sees the stream's end. The response filters may run on the application's thread (RESTEasy
     * runs them on whichever first starts the response, the request's thread or the stream's first
     * event), where a proxy to the request cannot reach it (RESTEasy's): the servlet request is then
     * the one the servlet listener saw start, where it is installed ({@link ServletRequests}), or
     * the one kept at the admission ({@link #admitted}). Not held if the request is not
     * asynchronous, cannot be reached, or the container refuses the listener.
     */
    @Override
    boolean holdsUntilTheStreamEnds(ContainerRequestContext request, RequestTracker tracker) {
        return holdsUntilTheCycleEnds(servletRequest(request, tracker), tracker);
    }

    /**
     * Jersey's {@code ChunkedOutput} goes on after Jersey reports the request's end: Jersey starts
     * the servlet request's asynchronous cycle after the response filters, once the output's
     * response has started, and completes it when the output closes. The first hook that finishes
     * the request (Jersey's request events, the servlet listener when the dispatch returns), which
     * runs after that start, adds a listener to the cycle, and the request ends with it.
     */
    @Override
    void mayStreamOn(ContainerRequestContext request, Object entity, RequestTracker tracker) {
        if (!isChunkedOutput(entity)) {
            return;
        }
        ServletRequest current = servletRequest(request, tracker);
        if (current != null) {
            tracker.mayStreamOn(held -> holdsUntilTheCycleEnds(current, held));
        } else {
            super.mayStreamOn(request, entity, tracker); // not in a servlet container
        }
    }

    /**
     * The servlet request itself, also from the application's thread: the one the servlet listener
     * saw start, or the one kept at the admission ({@link #admitted}), else what the proxy reaches on
     * this thread; null if none.
     */
    private ServletRequest servletRequest(ContainerRequestContext request, RequestTracker tracker) {
        if (request.getProperty(RequestEnd.PROPERTY) instanceof ServletRequests.End end) {
            return end.request();
        }
        return tracker.containerRequest() instanceof ServletRequest kept ? kept : servlet.onThisThread(servletRequest);
    }

    /**
     * Whether {@code current}'s asynchronous cycle holds {@code tracker}'s request until it ends
     * ({@link StreamEnd}). Not if the request is not asynchronous, the container refuses the
     * listener, or a proxy to the request no longer reaches it (asked later than the response
     * filter, by the hook that would finish the request).
     */
    private static boolean holdsUntilTheCycleEnds(ServletRequest current, RequestTracker tracker) {
        if (current == null) {
            return false;
        }
        try {
            if (!current.isAsyncStarted()) {
                return false;
            }
            current.getAsyncContext().addListener(new StreamEnd(tracker));
        } catch (RuntimeException refused) {
            return false;
        }
        // After the listener is added: should the cycle end first, the request is finished already.
        tracker.streams();
        if (!stillAsynchronous(current)) {
            // The cycle completed while the listener was added, perhaps after the container called
            // its listeners (a listener added then is not called): finished here, once, whoever is
            // first.
            tracker.streamEnded(tracker.status());
        }
        return true;
    }

    private static boolean stillAsynchronous(ServletRequest request) {
        try {
            return request.isAsyncStarted();
        } catch (RuntimeException over) {
            return false;
        }
    }

    @Override
    String peerAddress(ContainerRequestContext request) {
        HttpServletRequest current = servlet.current(servletRequest);
        return current != null ? current.getRemoteAddr() : super.peerAddress(request);
    }
}
