package dev.leapgate.jaxrs;

import java.util.concurrent.CompletionStage;
import org.jboss.resteasy.spi.AsyncWriterInterceptor;
import org.jboss.resteasy.spi.AsyncWriterInterceptorContext;

/**
 * {@link WriteEnd} for RESTEasy in a servlet container, which writes an entity asynchronously
 * (where the entity's writer and the output stream can) only when every writer interceptor is an
 * {@link AsyncWriterInterceptor}: a plain one would turn every write into a blocking one. The
 * request ends when the asynchronous write completes. Registered only when RESTEasy is the runtime
 * and runs in a servlet container.
 */
final class ResteasyWriteEnd extends WriteEnd implements AsyncWriterInterceptor {

    @Override
    public CompletionStage<Void> asyncAroundWriteTo(AsyncWriterInterceptorContext context) {
        RequestTracker tracker = take(context);
        if (tracker == null) {
            return context.asyncProceed();
        }
        CompletionStage<Void> write;
        try {
            write = context.asyncProceed();
        } catch (RuntimeException | Error failed) {
            tracker.written(false);
            throw failed;
        }
        return write.whenComplete((done, failure) -> tracker.written(failure == null));
    }
}
