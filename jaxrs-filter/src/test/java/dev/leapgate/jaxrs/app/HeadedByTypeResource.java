package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;

/**
 * Resource methods for HEAD of their own that take fewer requests than the GET ones beside them:
 * a runtime may serve the others with the GET method (CXF does).
 */
@Path("typed")
public class HeadedByTypeResource {

    @GET
    @Path("json")
    @Produces("application/json")
    @RateLimited(limit = 1, window = "1m")
    public String json() {
        return "{}";
    }

    @HEAD
    @Path("json")
    @Produces("text/plain")
    @RateLimited(limit = 2, window = "1m")
    public Response plainHead() {
        return Response.ok().build();
    }

    @GET
    @Path("any")
    @Produces({"application/json", "text/plain"})
    @RateLimited(limit = 1, window = "1m")
    public String any() {
        return "any";
    }

    @HEAD
    @Path("any")
    @RateLimited(limit = 2, window = "1m")
    public Response anyHead() {
        return Response.ok().build();
    }
}
