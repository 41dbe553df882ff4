package dev.leapgate.jaxrs;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;

/**
 * The filter where the Servlet API is on the class path: in a servlet container the peer address
 * is the servlet request's {@code getRemoteAddr()}, and the trusted-proxy rules apply to it as in
 * the servlet filter. Elsewhere (Grizzly, the JDK server) Jersey injects nothing and the header
 * configured as {@code leapgate.client-ip-header} is used. Loaded only when the Servlet API is
 * present, so that the provider runs without it.
 */
final class ServletGateFilter extends GateFilter {

    /** A proxy to the current request in a servlet container; null elsewhere. */
    @Context
    private HttpServletRequest servletRequest;

    ServletGateFilter(ApplicationGate application) {
        super(application);
    }

    /** The servlet container's view of the request's end ({@link ServletRequests}), where installed. */
    @Override
    RequestEnd requestEnd(ContainerRequestContext request) {
        HttpServletRequest servlet = servletRequest;
        if (servlet != null && servlet.getAttribute(RequestEnd.PROPERTY) instanceof RequestEnd end) {
            return end;
        }
        return super.requestEnd(request);
    }

    @Override
    String peerAddress(ContainerRequestContext request) {
        HttpServletRequest servlet = servletRequest;
        return servlet != null ? servlet.getRemoteAddr() : super.peerAddress(request);
    }
}
