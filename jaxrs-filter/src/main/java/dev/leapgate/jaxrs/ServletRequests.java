package dev.leapgate.jaxrs;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;

/**
 * The optional servlet container adapter: the container's own view of the end of each request.
 * The container calls {@link #requestDestroyed} when the request goes out of scope, and for an
 * asynchronous request the asynchronous context reports its completion: between the two, the end
 * of every request, whichever way the JAX-RS runtime ended it: a response, an exception no mapper
 * handled (which the runtime hands to the container), an asynchronous response resumed or timed
 * out. Installed by {@link LeapgateServletInitializer}, which the container runs at
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
     * specification words it) at the end of the dispatch that started asynchronous processing,
     * whose end is then the asynchronous context's completion.
     */
    @Override
    public void requestDestroyed(ServletRequestEvent event) {
        ServletRequest request = event.getServletRequest();
        if (!(request.getAttribute(RequestEnd.PROPERTY) instanceof End end)) {
            return;
        }
        if (request.isAsyncStarted()) {
            request.getAsyncContext().addListener(end);
        } else {
            end.ended();
        }
    }

    /** One request's end. */
    private static final class End implements RequestEnd, AsyncListener {
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

        @Override
        public void onComplete(AsyncEvent event) {
            ended();
        }

        @Override
        public void onTimeout(AsyncEvent event) {}

        @Override
        public void onError(AsyncEvent event) {}

        /** A new asynchronous cycle (a runtime that dispatches again) drops its listeners: stay. */
        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
        }
    }
}
