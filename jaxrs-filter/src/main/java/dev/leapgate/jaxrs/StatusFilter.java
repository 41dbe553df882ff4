package dev.leapgate.jaxrs;

import dev.leapgate.http.HttpGate;
import dev.leapgate.http.HttpRequestView;
import dev.leapgate.http.StatusResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers {@code status-path} (relative to the application's base URI) with the gate's status, to
 * the peers in {@code status-allow}, before any resource is matched. The peer is the servlet
 * request's {@code getRemoteAddr()}: registered only where the Servlet API is on the class path,
 * and outside a servlet container (no servlet request) the status is not served, which is logged
 * once.
 */
@PreMatching
final class StatusFilter implements ContainerRequestFilter {

    private static final Logger LOG = LoggerFactory.getLogger(StatusFilter.class);

    private final ApplicationGate application;
    private final AtomicBoolean warnedNoPeer = new AtomicBoolean();
    private final AtomicBoolean closesWithContext = new AtomicBoolean();

    /** A proxy to the current request in a servlet container; null elsewhere. */
    @Context
    private HttpServletRequest servletRequest;

    private final ServletProxy servlet = new ServletProxy();

    StatusFilter(ApplicationGate application) {
        this.application = application;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        HttpGate gate = application.gate();
        if (gate == null) {
            return;
        }
        String path = request.getUriInfo().getPath(false);
        HttpServletRequest current = servlet.current(servletRequest);
        if (current != null && !closesWithContext.get() && closesWithContext.compareAndSet(false, true)) {
            // The gate may have been built just now, before any request reached a resource (a
            // monitor polling the status from the start): closed with the servlet context all the
            // same, as the gate filter has it closed at its first request.
            ServletRequests.closeWith(current.getServletContext(), application);
        }
        String peer = current != null ? current.getRemoteAddr() : null;
        Optional<StatusResponse> status = gate.status(new View(
                request.getMethod(), path.startsWith("/") ? path : "/" + path, peer, request.getHeaders(), current));
        if (status.isPresent()) {
            Response.ResponseBuilder answer =
                    Response.ok(status.get().body(), status.get().contentType());
            status.get().headers().forEach(answer::header);
            request.abortWith(answer.build());
        } else if (peer == null && warnedNoPeer.compareAndSet(false, true)) {
            LOG.warn("Leapgate JAX-RS: status-path is set, but there is no servlet request to take the peer's"
                    + " address from: the status is not served here");
        }
    }

    private record View(
            String method,
            String rawPath,
            String remoteAddr,
            MultivaluedMap<String, String> fields,
            HttpServletRequest servlet)
            implements HttpRequestView {
        @Override
        public List<String> headers(String name) {
            List<String> values = fields.get(name);
            if ((values == null || values.isEmpty()) && name.equalsIgnoreCase("Host") && servlet != null) {
                return HttpRequestView.hostOfStream(
                        servlet.getProtocol(), servlet.getServerName(), servlet.getServerPort());
            }
            return values == null ? List.of() : values;
        }

        @Override
        public String principal() {
            return null;
        }
    }
}
