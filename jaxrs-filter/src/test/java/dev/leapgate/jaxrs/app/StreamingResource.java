package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
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

    @GET
    @Path("quick")
    public String quick() {
        return "ok";
    }
}
