package dev.leapgate.jaxrs;

import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;

/**
 * The optional servlet container adapter: the container's own view of the end of each request.
 * The container calls {@link #requestDestroyed} once per request when it goes out of scope, after
 * the response is complete, whichever way the JAX-RS runtime ended it: a response, an exception
 * no mapper handled (which the runtime hands to the container), an asynchronous response resumed
 * or timed out. Installed by {@link LeapgateServletInitializer}, which the container runs at
 * start when it scans the application's jars (a WAR in Tomcat or Jetty's {@code WebAppContext});
 * an embedded {@code ServletContextHandler} adds it by hand. Loaded only in a servlet container.
 *
 * <p>Concurrency: a request's tracker is written by the request filter and read by the thread that
 * destroys the request, which may be another one (an asynchronous response); it is volatile.
 */
final class ServletRequests implements ServletRequestListener {

    @Override
    public void requestInitialized(ServletRequestEvent event) {
        event.getServletRequest().setAttribute(RequestEnd.PROPERTY, new End());
    }

    @Override
    public void requestDestroyed(ServletRequestEvent event) {
        if (event.getServletRequest().getAttribute(RequestEnd.PROPERTY) instanceof End end) {
            end.ended();
        }
    }

    /** One request's end. */
    private static final class End implements RequestEnd {
        private volatile RequestTracker tracker;

        @Override
        public void watch(RequestTracker tracker) {
            this.tracker = tracker;
        }

        /** The status the response filter saw, or none: an exception the runtime did not map. */
        void ended() {
            RequestTracker admitted = tracker;
            if (admitted != null) {
                admitted.finish(admitted.status());
            }
        }
    }
}
