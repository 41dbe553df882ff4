package dev.leapgate.jaxrs;

import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import org.glassfish.grizzly.http.server.Request;

/**
 * The optional adapter for the peer address of Jersey on Grizzly (Jersey's own HTTP server),
 * where JAX-RS has no way to ask: Grizzly's request knows it. Runs before resource matching, so before the gate's filter, and
 * leaves the address in the request's properties ({@link GateFilter#PEER}). Registered only when
 * Jersey and Grizzly are both present; in another container of Jersey's there is no Grizzly
 * request, and it does nothing.
 */
@PreMatching
final class GrizzlyPeer implements ContainerRequestFilter {

    /** The current Grizzly request, where Grizzly serves it. */
    @Inject
    private Provider<Request> request;

    @Override
    public void filter(ContainerRequestContext context) {
        Request current;
        try {
            current = request == null ? null : request.get();
        } catch (RuntimeException notGrizzly) {
            return; // Jersey in another container: nothing bound
        }
        String address = current == null ? null : current.getRemoteAddr();
        if (address != null && !address.isBlank()) {
            context.setProperty(GateFilter.PEER, address);
        }
    }
}
