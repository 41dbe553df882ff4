package dev.leapgate.demo;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/** The JAX-RS API: {@code GET /api/items}, {@code GET /api/items/{id}}, {@code GET /api/items/{id}/stock} (async). */
@Path("items")
@Produces(MediaType.TEXT_PLAIN)
public class ItemsResource {

    private static final Map<Integer, String> ITEMS = Map.of(1, "kettle", 2, "teapot", 3, "mug");

    @GET
    public String items() {
        return ITEMS.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining("\n", "", "\n"));
    }

    @GET
    @Path("{id}")
    public String item(@PathParam("id") int id) {
        String item = ITEMS.get(id);
        if (item == null) {
            throw new NotFoundException("no item " + id);
        }
        return id + " " + item + "\n";
    }

    /** Answers from another thread, as a call to a stock service would. */
    @GET
    @Path("{id}/stock")
    public void stock(@PathParam("id") int id, @Suspended AsyncResponse response) {
        CompletableFuture.runAsync(() -> {
            if (ITEMS.containsKey(id)) {
                response.resume(ITEMS.get(id) + ": " + (id * 7) % 10 + " in stock\n");
            } else {
                response.resume(new NotFoundException("no item " + id));
            }
        });
    }
}
