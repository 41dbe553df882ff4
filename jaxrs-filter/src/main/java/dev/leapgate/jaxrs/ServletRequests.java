package dev.leapgate.jaxrs;

import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;

/**
 * The optional servlet container adapter: the container's own view of the end of each request.
 * The container calls {@link #requestDestroyed} when the request goes out of scope: for a
 * synchronous request, its end, whichever way the JAX-RS runtime ended it (a response, or an
 * exception no mapper handled, which the runtime hands to the container). A container may call it
 * before an asynchronous request completes (Jetty does, when the dispatch that started it
 * returns); such a request goes back to the provider, whose response filter sees the asynchronous
 * response (adding a listener to its {@code AsyncContext} after that dispatch is not allowed). Installed by {@link LeapgateServletInitializer}, which the container runs at
 * start when it scans the application's jars (a WAR in Tomcat or Jetty's {@code WebAppContext});
 * an embedded {@code ServletContextHandler} adds it by hand. Loaded only in a servlet container.
 *
 * <p>Concurrency: a request's tracker is written by the request filter and read by the thread that
 * destroys the request, which may be another one (an asynchronous response); it is volatile.
 */
final class ServletRequests implements ServletRequestListener {

    @Override
    public void requestInitialized(ServletRequestEvent event) {
        ServletRequest request = event.getServletRequest();
        if (!(request.getAttribute(RequestEnd.PROPERTY) instanceof End)) { // not again on an async dispatch
            request.setAttribute(RequestEnd.PROPERTY, new End());
        }
    }

    /**
     * The request leaves the application: at the end of the request, or (Jetty, as the Servlet
     * specification words it) at the end of the dispatch that started asynchronous processing;
     * then the provider sees the asynchronous response's end itself ({@link
     * RequestTracker#unwatch}).
     */
    @Override
    public void requestDestroyed(ServletRequestEvent event) {
        ServletRequest request = event.getServletRequest();
        if (request.getAttribute(RequestEnd.PROPERTY) instanceof End end) {
            end.ended(request.isAsyncStarted());
        }
    }

    /** One request's end. */
    private static final class End implements RequestEnd {
        private volatile RequestTracker tracker;

        @Override
        public void watch(RequestTracker tracker) {
            this.tracker = tracker;
        }

        /**
         * The request left the application: finished with the status the response filter saw (none:
         * an exception the runtime did not map), or, still asynchronous, handed back to the provider.
         */
        void ended(boolean asynchronous) {
            RequestTracker admitted = tracker;
            if (admitted == null) {
                return;
            }
            if (asynchronous) {
                admitted.unwatch();
            } else {
                admitted.finish(admitted.status());
            }
        }
    }
}
