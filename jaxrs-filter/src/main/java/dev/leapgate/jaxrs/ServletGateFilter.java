package dev.leapgate.jaxrs;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;

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

    ServletGateFilter(ApplicationGate application, boolean endsAfterWrite) {
        super(application, endsAfterWrite);
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

    @Override
    String peerAddress(ContainerRequestContext request) {
        HttpServletRequest current = servlet.current(servletRequest);
        return current != null ? current.getRemoteAddr() : super.peerAddress(request);
    }
}
