package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * Sub-resource locators that return the same type: each is a route of its own. Which one serves a
 * request is JAX-RS's choice: the literal ones before {@code {kind}} (more literal characters).
 */
@Path("docs")
public class TwinLocatorsResource {

    @Path("{kind}")
    public Doc anyDocs(@PathParam("kind") String kind) {
        return new Doc("any " + kind);
    }

    @Path("public")
    public Doc publicDocs() {
        return new Doc("public");
    }

    @Path("internal")
    public Doc internalDocs() {
        return new Doc("internal");
    }

    /** Reached through either locator. */
    public static class Doc {
        private final String area;

        Doc(String area) {
            this.area = area;
        }

        @GET
        @Path("{id}")
        public String doc(@PathParam("id") String id) {
            return area + " doc " + id;
        }
    }
}
