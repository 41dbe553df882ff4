package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * An API written as an interface whose limit is declared with it, next to the route: the
 * implementation ({@link LimitedApiResource}) inherits both.
 */
public interface LimitedApi {

    @GET
    @Path("{id}")
    @RateLimited(limit = 1, window = "1h")
    String item(@PathParam("id") String id);

    @GET
    @Path("featured")
    String featured();
}
