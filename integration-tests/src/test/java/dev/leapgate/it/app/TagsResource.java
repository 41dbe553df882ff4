package dev.leapgate.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * A route whose template variable is a regular expression that also accepts an empty segment
 * ({@code [^/]*}, where the default {@code {tag}} needs at least one character): every runtime
 * serves {@code tags//count} with the empty tag.
 */
@Path("tags")
@Produces(MediaType.TEXT_PLAIN)
public class TagsResource {

    @GET
    @Path("{tag: [^/]*}/count")
    public String count(@PathParam("tag") String tag) {
        return "tag '" + tag + "' counted " + tag.length() + " times\n";
    }
}
