package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** Two routes under one class: a variable and a literal sibling. */
@Path("users")
public class UserResource {

    @GET
    @Path("{id}")
    public String get(@PathParam("id") String id) {
        return "user " + id;
    }

    @GET
    @Path("me")
    public String me() {
        return "me";
    }
}
