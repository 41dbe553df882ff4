package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import dev.leapgate.rule.Scope;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

/** A route with a resource method for HEAD of its own beside the GET one, each limited. */
@Path("headed")
public class HeadedResource {

    @GET
    @RateLimited(name = "headed-get", limit = 1, window = "1m", scope = Scope.Kind.PER_ORIGIN)
    public String get() {
        return "headed";
    }

    @HEAD
    @RateLimited(name = "headed-head", limit = 2, window = "1m", scope = Scope.Kind.PER_ORIGIN)
    public Response head() {
        return Response.ok().build();
    }
}
