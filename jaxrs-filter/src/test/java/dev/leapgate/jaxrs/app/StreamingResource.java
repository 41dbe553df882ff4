package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Entities written after the resource method returned: one the test holds, one whose write fails. */
@Path("stream")
public class StreamingResource {

    /** Counted down when {@code /stream/held} has started writing its entity. */
    public static volatile CountDownLatch writing = new CountDownLatch(1);
    /** The test counts it down to let {@code /stream/held} finish its entity. */
    public static volatile CountDownLatch release = new CountDownLatch(1);

    /** Fresh latches, before a test. */
    public static void reset() {
        writing = new CountDownLatch(1);
        release = new CountDownLatch(1);
    }

    @GET
    @Path("held")
    public StreamingOutput held() {
        CountDownLatch started = writing;
        CountDownLatch finish = release;
        return out -> {
            started.countDown();
            try {
                if (!finish.await(30, TimeUnit.SECONDS)) {
                    throw new IOException("never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            out.write("streamed".getBytes(StandardCharsets.UTF_8));
        };
    }

    @GET
    @Path("failing")
    public StreamingOutput failing() {
        return out -> {
            throw new IOException("the entity's write fails, on purpose");
        };
    }

    /** A write that throws an exception the application maps (to 409, {@link MappedException.Mapper}). */
    @GET
    @Path("mapped")
    public StreamingOutput mapped() {
        return out -> {
            throw new MappedException();
        };
    }

    /** An entity nothing writes: no MessageBodyWriter for this class and media type. */
    public record Unwritable(String name) {}

    @GET
    @Path("unwritable")
    @Produces("application/x-leapgate-unwritable")
    public Unwritable unwritable() {
        return new Unwritable("no writer");
    }

    @GET
    @Path("empty")
    public void empty() {}

    @GET
    @Path("unavailable")
    public Response unavailable() {
        return Response.status(503).entity("unavailable").build();
    }

    @GET
    @Path("quick")
    public String quick() {
        return "ok";
    }
}
