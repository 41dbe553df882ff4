package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * A generic API interface, one for every entity ({@code implements CrudApi<Note>}): the parameter
 * of {@link #put} is the type variable, erased to {@code Object}, so the implementation's method
 * has other parameter types than the annotated one.
 */
public interface CrudApi<T> {

    @GET
    @Path("{id}")
    String get(@PathParam("id") String id);

    @PUT
    @Path("{id}")
    String put(@PathParam("id") String id, T body);
}
