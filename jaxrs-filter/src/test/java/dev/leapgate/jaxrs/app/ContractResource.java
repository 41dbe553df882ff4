package dev.leapgate.jaxrs.app;

import dev.leapgate.testing.AdapterContract;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** The endpoints of the adapter contract ({@code dev.leapgate.testing.AdapterContract}). */
@Path("/")
@Produces(MediaType.TEXT_PLAIN)
public class ContractResource {

    @GET
    @Path("ok")
    public String ok() {
        return "ok";
    }

    @GET
    @Path("own-fields")
    public Response ownRateLimitFields() {
        return Response.ok("ok")
                .header("RateLimit-Policy", AdapterContract.OWN_POLICY)
                .header("RateLimit", AdapterContract.OWN_RATE_LIMIT)
                .build();
    }

    @GET
    @Path("server-error")
    public Response serverError() {
        return Response.status(503).entity("unavailable").build();
    }

    @GET
    @Path("throws")
    public String unmappedException() {
        throw new IllegalStateException("unmapped, on purpose");
    }

    @GET
    @Path("not-found")
    public String mappedException() {
        throw new NotFoundException("no such item");
    }
}
