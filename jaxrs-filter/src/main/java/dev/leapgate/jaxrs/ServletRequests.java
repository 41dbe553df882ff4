package dev.leapgate.jaxrs;

import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The optional servlet container adapter: the container's own view of the end of each request.
 * The container calls {@link #requestDestroyed} when the request goes out of scope: for a
 * synchronous request, its end, whichever way the JAX-RS runtime ended it (a response, or an
 * exception no mapper handled, which the runtime hands to the container). A container may call it
 * before an asynchronous request completes (Jetty does, when the dispatch that started it
 * returns); such a request goes back to the provider, whose response filter sees the asynchronous
 * response (the specification lets a container refuse a listener added to its {@code
 * AsyncContext} after that dispatch), or, for a stream of server-sent events, a listener the
 * provider adds to the cycle when the stream's response starts ({@link StreamEnd}); the request
 * this listener saw start is kept for that ({@link End#request}), since a proxy to it may not
 * reach it from the application's thread. Installed by {@link LeapgateServletInitializer}, which
 * the container runs at start when it scans the application's jars (a WAR in Tomcat or Jetty's
 * {@code WebAppContext}); an embedded {@code ServletContextHandler} adds it by hand. Loaded only
 * in a servlet container.
 *
 * <p>Concurrency: a request's trackers are added by the request filter and read by the thread that
 * destroys the request, which may be another one (an asynchronous response); both lock the
 * request's {@code End}, and the trackers are finished outside the lock.
 */
final class ServletRequests implements ServletRequestListener, ServletContextListener {

    /**
     * The servlet-context attribute holding the applications whose gates the context's end closes:
     * RESTEasy and CXF tell a provider nothing when they stop (Jersey does, {@link JerseyEvents}),
     * and a gate left open keeps its shared store's connection and threads after an undeployment.
     */
    static final String GATES = "dev.leapgate.jaxrs.gates";

    @Override
    public void contextInitialized(ServletContextEvent event) {
        gates(event.getServletContext());
    }

    /** The application has stopped: its servlets are destroyed, no request comes any more. */
    @Override
    public void contextDestroyed(ServletContextEvent event) {
        if (event.getServletContext().getAttribute(GATES) instanceof Gates gates) {
            gates.applications.forEach(ApplicationGate::close);
            gates.applications.clear();
        }
    }

    /** Has the gate of {@code application} closed with {@code context}, if this listener is installed there. */
    static void closeWith(ServletContext context, ApplicationGate application) {
        gates(context).applications.add(application);
    }

    /**
     * The context's applications, made by whichever comes first: this listener's start, or an
     * application that starts before it (RESTEasy's {@code ResteasyBootstrap}, a listener of the
     * application's that may run before one a container initializer added). Without this listener
     * nothing closes them; the holder is then an attribute no one reads.
     */
    private static Gates gates(ServletContext context) {
        synchronized (context) {
            if (context.getAttribute(GATES) instanceof Gates gates) {
                return gates;
            }
            Gates gates = new Gates();
            context.setAttribute(GATES, gates);
            return gates;
        }
    }

    /** The applications of one servlet context; a class of the provider's, unlike a JDK set any code may fill. */
    private static final class Gates {
        final Set<ApplicationGate> applications = ConcurrentHashMap.newKeySet();
    }

    @Override
    public void requestInitialized(ServletRequestEvent event) {
        ServletRequest request = event.getServletRequest();
        if (!(request.getAttribute(RequestEnd.PROPERTY) instanceof End)) { // not again on an async dispatch
            request.setAttribute(RequestEnd.PROPERTY, new End(request));
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
            end.ended(asyncStarted(request));
        }
    }

    /**
     * Whether the request is still asynchronous. Tomcat refuses the question with an {@link
     * IllegalStateException} for a request whose asynchronous cycle ended in an error ({@code
     * startAsync}, then {@code dispatch}, then an exception): such a request is over, and its
     * admissions are finished now rather than left to the safety net.
     */
    private static boolean asyncStarted(ServletRequest request) {
        try {
            return request.isAsyncStarted();
        } catch (IllegalStateException over) {
            return false;
        }
    }

    /**
     * One request's end: every tracker admitted in it. A servlet request can enter the application
     * more than once (a resource that forwards it to another, an error page that the container
     * dispatches to the application after an unmapped exception): each admission is finished when
     * the request ends, each exactly once.
     */
    static final class End implements RequestEnd {
        private static final RequestTracker[] NONE = {};

        /** The request itself, which a proxy to it may not reach from another thread than its own. */
        private final ServletRequest request;

        /** The first admission: in most requests the only one. */
        private RequestTracker first;
        /** Any later admissions, or null. */
        private List<RequestTracker> more;
        /** How many admissions have been let go of to the provider (unwatched). */
        private int unwatched;

        End(ServletRequest request) {
            this.request = request;
        }

        /** The servlet request whose end this is. */
        ServletRequest request() {
            return request;
        }

        @Override
        public synchronized void watch(RequestTracker tracker) {
            if (first == null) {
                first = tracker;
            } else {
                if (more == null) {
                    more = new ArrayList<>(2);
                }
                more.add(tracker);
            }
        }

        /**
         * The request left the application: finished with the status the response filter saw (none:
         * an exception the runtime did not map), or, still asynchronous, handed back to the provider.
         * Each admission is let go of at most once, and finished (by whoever is first) once.
         */
        void ended(boolean asynchronous) {
            RequestTracker one;
            RequestTracker[] others;
            synchronized (this) {
                if (first == null) {
                    return;
                }
                int from = asynchronous ? unwatched : 0;
                one = from == 0 ? first : null;
                others = more == null
                        ? NONE
                        : more.subList(Math.max(0, from - 1), more.size()).toArray(NONE);
                if (asynchronous) {
                    unwatched = 1 + (more == null ? 0 : more.size());
                } else {
                    first = null;
                    more = null;
                    unwatched = 0;
                }
            }
            if (one != null) {
                end(one, asynchronous);
            }
            for (RequestTracker tracker : others) {
                end(tracker, asynchronous);
            }
        }

        private static void end(RequestTracker tracker, boolean asynchronous) {
            if (asynchronous) {
                tracker.unwatch();
            } else {
                tracker.finish(tracker.status());
            }
        }
    }
}
