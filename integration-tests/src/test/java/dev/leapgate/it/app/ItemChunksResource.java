package dev.leapgate.it.app;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ChunkedOutput;

/**
 * An item's price history as Jersey's own streamed response, a {@link ChunkedOutput} written by a
 * thread of the application's after the resource method returned: the first chunk at once, the
 * last when the test lets the outputs close ({@link #close}).
 */
@Path("items/{id}/chunks")
public class ItemChunksResource {

    private static final ExecutorService OUTPUTS = Executors.newCachedThreadPool(Workers.daemon("item-chunks"));

    /** Counted down as each output has written its first chunk. */
    public static volatile CountDownLatch opened = new CountDownLatch(0);
    /** The test counts it down to let the open outputs write their last chunk and close. */
    public static volatile CountDownLatch close = new CountDownLatch(0);

    /** Before a test: {@code outputs} outputs are expected to open, and held open until {@link #close}. */
    public static void expect(int outputs) {
        opened = new CountDownLatch(outputs);
        close = new CountDownLatch(1);
    }

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public ChunkedOutput<String> chunks(@PathParam("id") String id) {
        ChunkedOutput<String> output = new ChunkedOutput<>(String.class);
        CountDownLatch first = opened;
        CountDownLatch last = close;
        OUTPUTS.execute(() -> {
            try (output) {
                output.write("item " + id + " cost 10 EUR;");
                first.countDown();
                if (last.await(30, TimeUnit.SECONDS)) {
                    output.write("item " + id + " costs 11 EUR");
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        return output;
    }
}
