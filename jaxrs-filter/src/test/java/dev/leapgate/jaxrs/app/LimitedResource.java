package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import dev.leapgate.rule.Scope;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** Annotated methods: two limits combined per client, and one not annotated. */
@Path("limited")
public class LimitedResource {

    @GET
    @Path("{id}")
    @RateLimited(limit = 2, window = "1s", scope = Scope.Kind.PER_ORIGIN)
    @RateLimited(limit = 3, window = "1h", scope = Scope.Kind.PER_ORIGIN)
    public String get(@PathParam("id") String id) {
        return "limited " + id;
    }

    @GET
    @Path("named")
    @RateLimited(name = "per-ip", limit = 1, window = "1m", scope = Scope.Kind.PER_ORIGIN)
    public String named() {
        return "named";
    }

    @GET
    @Path("free")
    public String free() {
        return "free";
    }

    @POST
    @Path("{id}")
    public String post(@PathParam("id") String id) {
        return "posted " + id;
    }
}
