package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** A class-level limit: each method gets it, with its own count. */
@Path("class-limited")
@RateLimited(limit = 1, window = "1m")
public class ClassLimitedResource {

    @GET
    @Path("a")
    public String a() {
        return "a";
    }

    @GET
    @Path("b")
    @RateLimited(inFlight = 5)
    public String b() {
        return "b";
    }
}
