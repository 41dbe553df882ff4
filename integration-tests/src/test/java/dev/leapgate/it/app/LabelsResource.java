package dev.leapgate.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * A route whose last segment is a variable that accepts an empty segment: Jersey and CXF serve
 * {@code labels/} with the empty label (CXF {@code labels} as well), which a rule on {@code
 * /labels/*} does not count; {@code /labels/**} does.
 */
@Path("labels")
@Produces(MediaType.TEXT_PLAIN)
public class LabelsResource {

    @GET
    @Path("{label: [^/]*}")
    public String label(@PathParam("label") String label) {
        return "label '" + label + "' listed\n";
    }
}
