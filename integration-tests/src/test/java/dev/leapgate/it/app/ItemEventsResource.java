package dev.leapgate.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.concurrent.TimeUnit;

/**
 * An item's price as a stream of server-sent events, sent from a thread of the application's as
 * soon as the resource method is called ({@link ItemStreams}).
 */
@Path("items/{id}/events")
public class ItemEventsResource {

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void events(@PathParam("id") String id, @Context SseEventSink sink, @Context Sse sse) {
        ItemStreams.stream(
                id,
                price -> sink.send(sse.newEvent(price)).toCompletableFuture().get(30, TimeUnit.SECONDS),
                sink);
    }
}
