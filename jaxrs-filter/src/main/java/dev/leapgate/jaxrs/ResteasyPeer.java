package dev.leapgate.jaxrs;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;
import org.jboss.resteasy.spi.HttpRequest;

/**
 * The optional RESTEasy adapter for the peer address: RESTEasy's own request knows it in every
 * container it runs in (a servlet container, Vert.x as in Quarkus, Netty, Undertow), where JAX-RS
 * has no way to ask. Runs before resource matching, so before the gate's filter, and leaves the address in the request's
 * properties ({@link GateFilter#PEER}). Registered only when RESTEasy is the runtime.
 */
@PreMatching
final class ResteasyPeer implements ContainerRequestFilter {

    /** A proxy to the current request. */
    @Context
    private HttpRequest request;

    @Override
    public void filter(ContainerRequestContext context) {
        HttpRequest current = request;
        String address = current == null ? null : current.getRemoteAddress();
        if (address != null && !address.isBlank()) {
            context.setProperty(GateFilter.PEER, address);
        }
    }
}
