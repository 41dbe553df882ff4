package dev.leapgate.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The JAX-RS API: synchronous and asynchronous items, and the ways a resource method fails. */
@Path("items")
@Produces(MediaType.TEXT_PLAIN)
public class ItemsResource {

    private static final ExecutorService WORKERS = Executors.newFixedThreadPool(4, Workers.daemon("items-async"));

    @GET
    @Path("{id}")
    public String item(@PathParam("id") String id) {
        return "item " + id + "\n";
    }

    @GET
    @Path("{id}/price")
    public String price(@PathParam("id") String id) {
        return "item " + id + " costs " + (id.length() * 3 + 7) + " EUR\n";
    }

    /** Answers from another thread, after the request thread has returned. */
    @GET
    @Path("{id}/async")
    public void itemAsync(@PathParam("id") String id, @Suspended AsyncResponse response) {
        WORKERS.execute(() -> response.resume("item " + id + " (async)\n"));
    }

    /** Throws an exception that {@link ItemNotFoundMapper} maps to 404. */
    @GET
    @Path("{id}/missing")
    public String missing(@PathParam("id") String id) {
        throw new ItemNotFoundException(id);
    }

    /** Throws an exception that no mapper handles: it reaches the container, which answers 500. */
    @GET
    @Path("{id}/broken")
    public String broken(@PathParam("id") String id) {
        throw new IllegalStateException("item " + id + " is broken on purpose");
    }

    /** Resumes asynchronously with an exception that no mapper handles: 500. */
    @GET
    @Path("{id}/async-broken")
    public void asyncBroken(@PathParam("id") String id, @Suspended AsyncResponse response) {
        WORKERS.execute(() -> response.resume(new IllegalStateException("item " + id + " is broken on purpose")));
    }
}
