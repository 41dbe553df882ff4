package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * An API written as an interface down to its root path, as OpenAPI generators write it with
 * {@code interfaceOnly}: the class-level {@code @Path} too is on the interface, and the
 * implementation ({@link CatalogResource}) has no JAX-RS annotation at all. Jersey, RESTEasy and
 * CXF all serve such a class.
 */
@Path("catalog")
public interface CatalogApi {

    @GET
    @Path("{id}")
    String entry(@PathParam("id") String id);
}
