package dev.leapgate.jaxrs;

import dev.leapgate.http.HttpGate;
import io.vertx.core.http.HttpServerResponse;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import org.jboss.resteasy.spi.ResteasyProviderFactory;

/**
 * The optional Vert.x adapter for the end of a request, on RESTEasy on Vert.x outside a servlet
 * container ({@code resteasy-vertx}): Vert.x's response calls its end handler once the response
 * has ended (its entity written) or its connection closed, the one moment that sees a {@code
 * StreamingOutput} or any slow write end. There no writer interceptor can (RESTEasy on Vert.x
 * answers a blocking write on its I/O thread with a 500 once any is registered), so without this
 * a request would end in the response filter, before its entity is written.
 *
 * <p>The end handler is Vert.x's only one for the response. RESTEasy's own response sets the
 * exception, close and headers-end handlers and leaves it free; Vert.x Web's routing context
 * (Quarkus) takes it for its own end handlers, so where RESTEasy runs under a Vert.x Web router
 * ({@code io.vertx.ext.web.RoutingContext} in RESTEasy's context) this adapter stays out and the
 * request ends in the response filter, as before (a stream of server-sent events too, and an
 * in-flight rule over it is warned of). An application that sets the end handler itself
 * replaces this one: each request watched here also holds a lease, and the safety net ({@link
 * Leases}) finishes it after {@code max-request-time} if Vert.x's end never reached it, once Vert.x
 * has ended or closed the response ({@link End#responseGoesOn}: a stream open longer holds its slot).
 *
 * <p>Runs before resource matching, so before the gate's filter, and leaves the request's {@link
 * RequestEnd} in its properties. Registered only where RESTEasy runs outside a servlet container
 * and Vert.x's classes are present.
 */
@PreMatching
final class VertxEnd implements ContainerRequestFilter {

    /** Vert.x Web's routing context, when its classes are present; null otherwise. */
    private static final Class<?> ROUTING_CONTEXT = routingContext();

    @Override
    public void filter(ContainerRequestContext request) {
        ResteasyProviderFactory providers = ResteasyProviderFactory.getInstance();
        HttpServerResponse response = providers.getContextData(HttpServerResponse.class);
        if (response == null || (ROUTING_CONTEXT != null && providers.getContextData(ROUTING_CONTEXT) != null)) {
            return;
        }
        request.setProperty(RequestEnd.PROPERTY, new End(response));
    }

    /** One request's end, as Vert.x's response reports it. */
    private record End(HttpServerResponse response) implements RequestEnd {

        @Override
        public void watch(RequestTracker tracker) {
            response.endHandler(ended ->
                    // Ended: the status it was sent with. Disposed without an end (the connection
                    // closed first, the write failed): no response, a failure.
                    tracker.finish(response.ended() ? response.getStatusCode() : HttpGate.NO_RESPONSE));
        }

        /** The application may set the response's end handler after this one, which replaces it. */
        @Override
        public boolean mayMissTheEnd() {
            return true;
        }

        /**
         * Vert.x's response neither ended nor closed: a stream still open, a write still going, which
         * may rightly outlast {@code max-request-time}. Vert.x's response may be asked from any thread.
         */
        @Override
        public boolean responseGoesOn() {
            return !response.ended() && !response.closed();
        }

        /** Vert.x ends a stream's response when the stream closes. */
        @Override
        public boolean seesAStreamsEnd() {
            return true;
        }
    }

    private static Class<?> routingContext() {
        try {
            return Class.forName("io.vertx.ext.web.RoutingContext", false, VertxEnd.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError absent) {
            return null;
        }
    }
}
