package dev.leapgate.it.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * What the streamed item resources ({@link ItemEventsResource}, {@link ItemChunksResource}) share:
 * the application's threads that write them, and the latches of the test that holds them open.
 * Each stream writes an item's price at once, and its next price when the test lets the streams
 * close ({@link #close}).
 */
public final class ItemStreams {

    /** Counted down as each stream has written its first price. */
    public static volatile CountDownLatch opened = new CountDownLatch(0);
    /** The test counts it down to let the open streams write their last price and close. */
    public static volatile CountDownLatch close = new CountDownLatch(0);

    private static final ExecutorService WRITERS = Executors.newCachedThreadPool(Workers.daemon("item-streams"));

    private ItemStreams() {}

    /** Before a test: {@code streams} streams are expected to open, and held open until {@link #close}. */
    public static void expect(int streams) {
        opened = new CountDownLatch(streams);
        close = new CountDownLatch(1);
    }

    /** What a stream writes, a price at a time. */
    interface Writer {
        void write(String price) throws Exception;
    }

    /**
     * Writes item {@code id}'s prices with {@code writer} on an application thread: the first at
     * once, the last when the test lets it; then {@code end} closes the stream.
     */
    static void stream(String id, Writer writer, AutoCloseable end) {
        CountDownLatch first = opened;
        CountDownLatch last = close;
        WRITERS.execute(() -> {
            try (end) {
                writer.write("item " + id + " costs 10 EUR");
                first.countDown();
                if (last.await(30, TimeUnit.SECONDS)) {
                    writer.write("item " + id + " costs 11 EUR");
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
