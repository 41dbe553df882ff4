package dev.leapgate.jaxrs;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Rejection;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.HttpRequestView;
import dev.leapgate.http.RateLimitFields;
import dev.leapgate.http.RejectionResponse;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.security.Principal;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's filter. After resource matching, it names the request by its HTTP method and route
 * template ({@link RouteTemplate}) and asks the application's {@link HttpGate}; a rejected request
 * is aborted with the gate's response (429, {@code Retry-After}, {@code RateLimit-Policy} / {@code
 * RateLimit}, problem body), an admitted one gets a {@link RequestTracker}. On the way out it adds
 * the admitted request's {@code RateLimit} fields, after the items of any the application set
 * ({@link RateLimitFields#combine}). Every policy is the gate's; this class only
 * translates, with the standard API alone.
 *
 * <p>The end of an admitted request: where the runtime reports it ({@link RequestEnd}: Jersey's
 * request events, a servlet container's request listener), the runtime finishes the tracker.
 * Elsewhere the provider does: on CXF, and on RESTEasy in a servlet container, a response with an
 * entity when the entity has been written ({@link WriteEnd}, the outermost writer interceptor: a
 * {@code StreamingOutput} holds the request's in-flight slot while it streams, and a write that
 * throws counts as failed), and one without an entity (or to {@code HEAD}) when its response
 * filter sees it. On RESTEasy outside a servlet container (Vert.x, Netty) every response ends in
 * the response filter, before its entity is written: with a writer interceptor registered,
 * RESTEasy refuses the blocking writes (a {@code StreamingOutput}) that it otherwise moves off its
 * I/O threads. A stream of server-sent events ends when the stream does, where the runtime reports
 * that ({@link #holdsUntilTheStreamEnds}: a servlet container's asynchronous cycle; {@link
 * RequestEnd#seesAStreamsEnd}: Vert.x's end of the response), else when its response has started,
 * with a warning of any in-flight rule over it; so does Jersey's {@code ChunkedOutput} in a
 * servlet container ({@link #mayStreamOn}). An exception that no mapper handles may skip the
 * response filters (CXF), and the safety net ({@link Leases}) releases such a request after
 * {@code max-request-time}, as it does a response that a runtime writes without its writer
 * interceptors.
 *
 * <p>The peer address: from the servlet request in a servlet container ({@link ServletGateFilter}),
 * else from the runtime's own request where an adapter reads it ({@link ResteasyPeer}, {@link
 * GrizzlyPeer}), else from the header configured as {@code leapgate.client-ip-header}; without
 * any of them the client is unknown, and all such clients share one per-origin count (warned
 * about once).
 *
 * <p>Concurrency: stateless per request; shared immutable settings.
 */
class GateFilter implements ContainerRequestFilter, ContainerResponseFilter {

    private static final Logger LOG = LoggerFactory.getLogger(GateFilter.class);

    private static final String CHUNKED_OUTPUT = "org.glassfish.jersey.server.ChunkedOutput";

    /** The request property where a runtime adapter leaves the peer's address ({@link ResteasyPeer}, {@link GrizzlyPeer}). */
    static final String PEER = "dev.leapgate.jaxrs.peer";

    private final ApplicationGate application;
    /** Whether {@link WriteEnd} is registered: a response with an entity ends when it is written. */
    private final boolean endsAfterWrite;

    private final String clientIpHeader;
    private final AtomicBoolean warnedNoPeer = new AtomicBoolean();

    /** A proxy to the current request's resource class and method. */
    @Context
    private ResourceInfo resourceInfo;

    /**
     * Guards {@code application}; {@code endsAfterWrite}: whether {@link WriteEnd} is registered
     * with it, to end the requests whose response has an entity.
     */
    GateFilter(ApplicationGate application, boolean endsAfterWrite) {
        this.application = application;
        this.endsAfterWrite = endsAfterWrite;
        this.clientIpHeader = application.settings().clientIpHeader();
    }

    /** The application this filter guards. */
    ApplicationGate application() {
        return application;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        HttpGate gate = application.gate();
        if (gate == null) {
            return;
        }
        if (application.firstRequest()) {
            started(request);
        }
        application.leases().sweep();
        String template;
        try {
            template = application.routes().of(request.getUriInfo(), resourceInfo);
        } catch (AnnotationRules.NotInForce logged) {
            // Refused rather than served unlimited. The cause, with the application's class and
            // method names, is in the log (AnnotationRules logs it once); a runtime's own answer
            // to an exception would show them to the client (RESTEasy's text, CXF's fault).
            request.abortWith(Response.serverError()
                    .type(MediaType.TEXT_PLAIN_TYPE)
                    .entity("This request's rate limits are not in force; the server's log says why.")
                    .build());
            return;
        }
        // In a servlet container the request's properties are the servlet request's attributes, which
        // a second dispatch of that request into the application (a forward, an error page) shares:
        // what an earlier dispatch left there is put back when this one's response is filtered.
        Object enclosing = request.getProperty(ApplicationGate.TRACKER);
        Decision decision = gate.enter(new View(request, template));
        if (decision instanceof Entry entry) {
            try {
                RequestEnd end = requestEnd(request);
                RequestTracker tracker =
                        new RequestTracker(entry, end, application.leases(), enclosing, dispatch(request));
                admitted(tracker, end);
                request.setProperty(ApplicationGate.TRACKER, tracker);
            } catch (RuntimeException | Error e) {
                // Admitted, and perhaps nothing to end it: its slots go back now rather than never.
                HttpGate.complete(entry, HttpGate.NO_RESPONSE);
                throw e;
            }
        } else {
            if (enclosing != null) {
                request.setProperty(ApplicationGate.TRACKER, new Rejected(enclosing));
            }
            request.abortWith(response(gate.rejection((Rejection) decision)));
        }
    }

    /** The dispatch of a request whose runtime gives neither its URI nor its path ({@link #dispatch}). */
    private static final Object UNREADABLE = new Object();

    /**
     * What tells this dispatch of the request from another dispatch of the same servlet request (a
     * forward, an error page): its request URI as JAX-RS gives it; where the runtime cannot make a
     * URI of what the client sent (CXF and RESTEasy build it when asked, and throw for characters a
     * URI may not hold: {@code ?q=a|b}, which Jetty takes), its path. Never throws: a client's
     * malformed request line must not become a 500, nor an admitted request lose what ends it.
     */
    static Object dispatch(ContainerRequestContext request) {
        UriInfo uri = request.getUriInfo();
        try {
            return uri.getRequestUri();
        } catch (RuntimeException notAUri) {
            try {
                return uri.getPath(false);
            } catch (RuntimeException unreadable) {
                return UNREADABLE;
            }
        }
    }

    /** A rejected dispatch within an admitted one of the same servlet request: what to put back. */
    private record Rejected(Object enclosing) {}

    /** At the first request with a gate: whatever the runtime's container needs to close it at its end. */
    void started(ContainerRequestContext request) {}

    /**
     * A request admitted, on the request's thread, watched by {@code end} (or null): whatever its
     * response filter may need of it there.
     */
    void admitted(RequestTracker tracker, RequestEnd end) {}

    /** The runtime's view of this request's end, if it has one. */
    RequestEnd requestEnd(ContainerRequestContext request) {
        return request.getProperty(RequestEnd.PROPERTY) instanceof RequestEnd end ? end : null;
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Object current = request.getProperty(ApplicationGate.TRACKER);
        if (current instanceof Rejected rejected) {
            request.setProperty(ApplicationGate.TRACKER, rejected.enclosing());
            return;
        }
        if (!(current instanceof RequestTracker tracker) || !tracker.admittedAt(dispatch(request))) {
            // Nothing admitted, or the admission of another dispatch of the same servlet request
            // (this one a forward or an error page that no resource matched, so that Leapgate's
            // request filter did not run): that request has not ended, nor is this its response.
            return;
        }
        if (tracker.enclosing() != null) {
            request.setProperty(ApplicationGate.TRACKER, tracker.enclosing());
        }
        tracker.responded(response.getStatus());
        // After the resource and the application's response filters with a higher priority value
        // (on the way out they run first): the application's own fields are all there, and
        // Leapgate's items go after them, in one line.
        // Ended whatever the fields meet (a header value of the application's that cannot be read
        // as text): without a runtime's view of the request's end, nothing else would end it before
        // its lease ran out (max-request-time).
        boolean endedLater = false;
        try {
            MultivaluedMap<String, Object> headers = response.getHeaders();
            application
                    .builtGate()
                    .admittedHeaders(
                            tracker.entry(),
                            (name, value) -> headers.putSingle(
                                    name, RateLimitFields.combine(response.getHeaderString(name), value)));
            if (isEventStream(response.getMediaType()) && tracker.holds()) {
                endedLater = streamsOn(request, tracker);
            } else {
                if (tracker.holds()) {
                    mayStreamOn(request, response.getEntity(), tracker);
                }
                // The entity is written after the response filters, perhaps for a long time, and may
                // fail: the request ends when WriteEnd sees the write return. A HEAD response's entity
                // is not written (CXF, RESTEasy on Netty skip the writer).
                endedLater = endsAfterWrite && response.hasEntity() && !HttpMethod.HEAD.equals(request.getMethod());
                if (endedLater) {
                    request.setProperty(WriteEnd.WRITING, tracker);
                }
            }
        } finally {
            if (!endedLater) {
                tracker.ended(response.getStatus());
            }
        }
    }

    private static boolean isEventStream(MediaType type) {
        return type != null
                && MediaType.SERVER_SENT_EVENTS_TYPE.getType().equalsIgnoreCase(type.getType())
                && MediaType.SERVER_SENT_EVENTS_TYPE.getSubtype().equalsIgnoreCase(type.getSubtype());
    }

    /**
     * A response of server-sent events, which goes on after its response filters (the application
     * sends on its own thread): whether its request ends when the stream does, holding its slots
     * until then. Else it ends now, as its response has started, and an in-flight rule over its
     * route is warned of, once.
     */
    private boolean streamsOn(ContainerRequestContext request, RequestTracker tracker) {
        if (holdsUntilTheStreamEnds(request, tracker)) {
            return true;
        }
        // Where a hook sees the response's end (Vert.x's), it finishes the request then, not now.
        if (!(request.getProperty(RequestEnd.PROPERTY) instanceof RequestEnd end && end.seesAStreamsEnd())) {
            application.streamEndsEarly(
                    request.getMethod() + " " + application.routes().of(request.getUriInfo(), resourceInfo));
        }
        return false;
    }

    /**
     * A response with {@code entity} that may go on after the runtime reports the request's end
     * (Jersey's {@code ChunkedOutput}): where it can, has the request held until its response
     * really ends ({@link RequestTracker#mayStreamOn}: a servlet container's asynchronous cycle,
     * {@link ServletGateFilter}). Here nothing reports that end: the request ends now, and an
     * in-flight rule over its route is warned of, once.
     */
    void mayStreamOn(ContainerRequestContext request, Object entity, RequestTracker tracker) {
        if (isChunkedOutput(entity)) {
            application.outputEndsEarly(
                    request.getMethod() + " " + application.routes().of(request.getUriInfo(), resourceInfo));
        }
    }

    /** Whether {@code entity} is Jersey's {@code ChunkedOutput}, named so that no Jersey class is loaded. */
    static boolean isChunkedOutput(Object entity) {
        for (Class<?> type = entity == null ? null : entity.getClass(); type != null; type = type.getSuperclass()) {
            if (type.getName().equals(CHUNKED_OUTPUT)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the runtime reports the end of this request's stream of server-sent events to {@code
     * tracker} ({@link RequestTracker#streams}); none does here (a servlet container's asynchronous
     * cycle does, {@link ServletGateFilter}).
     */
    boolean holdsUntilTheStreamEnds(ContainerRequestContext request, RequestTracker tracker) {
        return false;
    }

    static Response response(RejectionResponse rejection) {
        Response.ResponseBuilder response = Response.status(rejection.status());
        rejection.headers().forEach(response::header);
        if (rejection.contentType() != null) {
            response.entity(rejection.body()).type(rejection.contentType());
        }
        return response.build();
    }

    /**
     * The direct peer's address, or null if unknown: as a runtime adapter found it, else from the
     * header configured as {@code leapgate.client-ip-header}.
     */
    String peerAddress(ContainerRequestContext request) {
        if (request.getProperty(PEER) instanceof String peer) {
            return peer;
        }
        if (clientIpHeader != null) {
            String value = request.getHeaderString(clientIpHeader);
            if (value != null && !value.isBlank()) {
                return value.strip();
            }
        }
        if (warnedNoPeer.compareAndSet(false, true)) {
            LOG.warn(
                    clientIpHeader == null
                            ? "Leapgate JAX-RS: no servlet request and no {} configured: the client address is"
                                    + " unknown, so every client counts as one origin 'unknown'"
                            : "Leapgate JAX-RS: a request without the {} header: its client counts as the origin"
                                    + " 'unknown'; is the proxy in front setting it?",
                    clientIpHeader == null ? ProviderSettings.CLIENT_IP_HEADER : clientIpHeader);
        }
        return null;
    }

    /** The request as the gate sees it; each method is called at most once, and only if needed. */
    private final class View implements HttpRequestView {
        private final ContainerRequestContext request;
        private final String template;

        View(ContainerRequestContext request, String template) {
            this.request = request;
            this.template = template;
        }

        @Override
        public String method() {
            return request.getMethod();
        }

        /** The route template stands for the path: rules match it, and it names the resource. */
        @Override
        public String rawPath() {
            return template;
        }

        @Override
        public String remoteAddr() {
            return peerAddress(request);
        }

        @Override
        public List<String> headers(String name) {
            List<String> values = request.getHeaders().get(name);
            return values == null ? List.of() : values;
        }

        @Override
        public String principal() {
            SecurityContext security = request.getSecurityContext();
            Principal principal = security == null ? null : security.getUserPrincipal();
            return principal == null ? null : principal.getName();
        }
    }
}
