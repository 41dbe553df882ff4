package dev.leapgate.jaxrs;

import java.util.concurrent.CompletionStage;
import org.jboss.resteasy.spi.AsyncWriterInterceptor;
import org.jboss.resteasy.spi.AsyncWriterInterceptorContext;

/**
 * {@link WriteEnd} for RESTEasy, which writes an entity asynchronously (on Vert.x or Netty, from
 * the I/O thread) only when every writer interceptor is an {@link AsyncWriterInterceptor}: a plain
 * one would force the blocking write, which must not run on an I/O thread. The request ends when
 * the asynchronous write completes. Registered only when RESTEasy is the runtime.
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
