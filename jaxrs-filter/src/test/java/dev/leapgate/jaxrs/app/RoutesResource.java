package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** Templates with a regular expression and a sub-resource locator. */
@Path("/orgs/")
public class RoutesResource {

    @GET
    @Path("/{org: [a-z]{2,8}}/")
    public String org(@PathParam("org") String org) {
        return "org " + org;
    }

    @Path("{org}/members")
    public Members members(@PathParam("org") String org) {
        return new Members(org);
    }

    /** Reached through the locator only. */
    public static class Members {
        private final String org;

        Members(String org) {
            this.org = org;
        }

        @GET
        @Path("{id}")
        public String member(@PathParam("id") String id) {
            return org + " member " + id;
        }
    }
}
