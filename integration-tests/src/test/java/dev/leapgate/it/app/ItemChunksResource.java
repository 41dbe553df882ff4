package dev.leapgate.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.glassfish.jersey.server.ChunkedOutput;

/**
 * An item's price as Jersey's own streamed response, a {@link ChunkedOutput} written by a thread of
 * the application's after the resource method returned ({@link ItemStreams}).
 */
@Path("items/{id}/chunks")
public class ItemChunksResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public ChunkedOutput<String> chunks(@PathParam("id") String id) {
        ChunkedOutput<String> output = new ChunkedOutput<>(String.class);
        ItemStreams.stream(id, price -> output.write(price + "\n"), output);
        return output;
    }
}
