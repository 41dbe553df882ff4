package dev.leapgate.jaxrs;

import dev.leapgate.http.HttpGate;
import org.glassfish.jersey.server.ContainerResponse;
import org.glassfish.jersey.server.monitoring.ApplicationEvent;
import org.glassfish.jersey.server.monitoring.ApplicationEventListener;
import org.glassfish.jersey.server.monitoring.RequestEvent;
import org.glassfish.jersey.server.monitoring.RequestEventListener;

/**
 * The optional Jersey adapter, registered only when Jersey is the runtime: the application's gate
 * is built when Jersey reports the application initialized (so that invalid rules fail the start)
 * and closed when it is destroyed; and every request's end is Jersey's {@link
 * RequestEvent.Type#FINISHED}, which fires once per request whichever way it ends (a response, a
 * mapped or unmapped exception, a resumed, cancelled or timed-out {@code AsyncResponse}, a
 * completed {@code CompletionStage}, a failed write to a client that went away).
 *
 * <p>For each request Jersey asks {@link #onRequest} for a listener and gets a fresh {@link
 * Request}, which it also finds in the request's properties ({@link RequestEnd#PROPERTY}); the
 * filter hands it the {@link RequestTracker} of an admitted request. The listener, not the
 * request, holds the tracker: in a servlet container the request's properties are the servlet
 * request's attributes, which the container may recycle as soon as an asynchronous response
 * completes, before FINISHED. A second FINISHED (Jersey fires one per response it writes when
 * response-error mapping is on) finds the tracker finished.
 *
 * <p>Concurrency: a request's tracker is written by the request filter and read by the thread
 * that finishes the request, which may be another one; it is volatile.
 */
final class JerseyEvents implements ApplicationEventListener {

    private final ApplicationGate application;

    JerseyEvents(ApplicationGate application) {
        this.application = application;
    }

    @Override
    public void onEvent(ApplicationEvent event) {
        if (event.getType() == ApplicationEvent.Type.INITIALIZATION_APP_FINISHED) {
            application.start();
        } else if (event.getType() == ApplicationEvent.Type.DESTROY_FINISHED) {
            application.close();
        }
    }

    @Override
    public RequestEventListener onRequest(RequestEvent start) {
        if (application.builtGate() == null) {
            return null;
        }
        Request request = new Request();
        start.getContainerRequest().setProperty(RequestEnd.PROPERTY, request);
        return request;
    }

    /** One request's end. */
    private static final class Request implements RequestEventListener, RequestEnd {
        private volatile RequestTracker tracker;

        @Override
        public void watch(RequestTracker tracker) {
            this.tracker = tracker;
        }

        @Override
        public void onEvent(RequestEvent event) {
            RequestTracker admitted = tracker;
            if (event.getType() != RequestEvent.Type.FINISHED || admitted == null) {
                return;
            }
            ContainerResponse response = event.getContainerResponse();
            admitted.finish(
                    event.isResponseWritten() && response != null ? response.getStatus() : HttpGate.NO_RESPONSE);
        }
    }
}
