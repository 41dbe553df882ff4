package dev.leapgate.jaxrs.app.invalid;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** Fails the application's start. */
@Path("bad")
public class BadWindowResource {

    @GET
    @Path("{id}")
    @RateLimited(limit = 10, window = "0s")
    public String get(@PathParam("id") String id) {
        return id;
    }
}
