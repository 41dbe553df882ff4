package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * A resource method overridden twice: the base class declares its route (and a loose limit), the
 * middle class a limit of its own without JAX-RS annotations, and the resource class neither. The
 * middle class's limit is the nearest one, and applies.
 */
public abstract class OverriddenTwice {

    @GET
    @Path("{id}")
    @RateLimited(limit = 100, window = "1h")
    public String item(@PathParam("id") String id) {
        return "base " + id;
    }

    /** Limits the inherited route more tightly, with no JAX-RS annotation of its own. */
    public abstract static class Middle extends OverriddenTwice {
        @Override
        @RateLimited(limit = 1, window = "1h")
        public String item(String id) {
            return "middle " + id;
        }
    }

    /** {@code /overridden-twice/{id}}, limited by {@link Middle}'s annotation. */
    @Path("overridden-twice")
    public static class Resource extends Middle {
        @Override
        public String item(String id) {
            return "resource " + id;
        }
    }
}
