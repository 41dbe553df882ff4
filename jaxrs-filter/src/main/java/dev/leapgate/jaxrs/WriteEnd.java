package dev.leapgate.jaxrs;

import jakarta.ws.rs.ext.InterceptorContext;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;

/**
 * The end of an admitted request whose response has an entity, on a runtime that reports no end of
 * its own (CXF, and RESTEasy in a servlet container; not RESTEasy on Vert.x or Netty, which refuses
 * blocking writes on its I/O threads once any writer interceptor is registered): the entity
 * is written after the response filters, perhaps much later (a {@code StreamingOutput}, a slow
 * client), and the write may fail. Finishing the request in the response filter would release its
 * in-flight slot while it still streams, and count a failed write as a success. So {@link
 * GateFilter} leaves the tracker under {@link #WRITING}, and this interceptor, the outermost,
 * finishes it when the write returns: with the response's status, or as failed (no response) when
 * the write threw (the entity's writer failed, the client went away; also when the application
 * maps the exception and the runtime then answers with the mapped response, which comes too late to
 * change the outcome). Where a servlet container's listener watches the request, the listener
 * finishes it, and a failed write makes it failed. An entity with no writer still ends here (CXF
 * runs the interceptors and fails in them) or in the response filter of the runtime's 500
 * (RESTEasy); a response a runtime wrote without its writer interceptors would be released by
 * the safety net ({@link Leases}).
 *
 * <p>Concurrency: stateless; the request's property is read and removed by the writing thread.
 */
class WriteEnd implements WriterInterceptor {

    /** The request property holding the {@link RequestTracker} whose entity is about to be written. */
    static final String WRITING = "dev.leapgate.jaxrs.writing";

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        RequestTracker tracker = take(context);
        if (tracker == null) {
            context.proceed();
            return;
        }
        boolean written = false;
        try {
            context.proceed();
            written = true;
        } finally {
            tracker.written(written);
        }
    }

    /**
     * The tracker left for this write, removed so that a second write of the same request (the
     * runtime's answer to an exception thrown by the first) finds only what its own response
     * filter left.
     */
    static RequestTracker take(InterceptorContext context) {
        if (context.getProperty(WRITING) instanceof RequestTracker tracker) {
            context.removeProperty(WRITING);
            return tracker;
        }
        return null;
    }
}
