package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ChunkedOutput;

/**
 * Jersey's own streamed response, a {@link ChunkedOutput} that a thread of the application's
 * writes to after the resource method returned: the first chunk at once, the last when the test
 * lets it, then the output is closed.
 */
@Path("stream/chunks")
public class ChunksResource {

    /** Counted down when the first chunk has been written. */
    public static volatile CountDownLatch sent = new CountDownLatch(1);
    /** The test counts it down to let the output write its last chunk and close. */
    public static volatile CountDownLatch release = new CountDownLatch(1);

    /** Fresh latches, before a test. */
    public static void reset() {
        sent = new CountDownLatch(1);
        release = new CountDownLatch(1);
    }

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public ChunkedOutput<String> chunks() {
        ChunkedOutput<String> output = new ChunkedOutput<>(String.class);
        CountDownLatch first = sent;
        CountDownLatch last = release;
        Thread writer = new Thread(() -> {
            try (output) {
                output.write("first;");
                first.countDown();
                if (last.await(30, TimeUnit.SECONDS)) {
                    output.write("last");
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        writer.setDaemon(true);
        writer.start();
        return output;
    }
}
