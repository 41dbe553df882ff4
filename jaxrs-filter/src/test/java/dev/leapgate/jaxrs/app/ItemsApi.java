package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * An API written as an interface (as OpenAPI generators write it): the JAX-RS annotations of the
 * methods are on the interface, and the implementation inherits them (Jakarta REST 3.1, section
 * 3.6, "Annotation Inheritance").
 */
public interface ItemsApi {

    @GET
    @Path("{id}")
    String item(@PathParam("id") String id);

    @GET
    @Path("featured")
    String featured();
}
