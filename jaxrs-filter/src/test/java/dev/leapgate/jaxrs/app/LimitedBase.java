package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** A base resource class whose class-level limit applies to each resource class extending it. */
@RateLimited(limit = 1, window = "1h")
public abstract class LimitedBase {

    @GET
    @Path("{id}")
    public String item(@PathParam("id") String id) {
        return getClass().getSimpleName() + " " + id;
    }

    /** {@code /base-limited/{id}}. */
    @Path("base-limited")
    public static class FromLimitedBase extends LimitedBase {}
}
