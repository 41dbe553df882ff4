package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.LeapgateFeature;
import dev.leapgate.stats.ResourceStats;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One servlet request that enters the JAX-RS application twice: an unmapped exception whose
 * container error page is a resource of the same application, and a resource that forwards the
 * servlet request to another.
 */
@Path("second")
public class SecondDispatchResource {

    /** How many times the second entry (the error page, the forward's target) was reached. */
    public static final AtomicInteger SECOND = new AtomicInteger();

    @GET
    @Path("ok")
    public String ok() {
        return "ok";
    }

    @GET
    @Path("unmapped")
    public String unmapped() {
        throw new IllegalStateException("unmapped, on purpose");
    }

    /** The container's error page for 500 ({@code JaxrsServer.App#errorPage}). */
    @GET
    @Path("error")
    public String error() {
        SECOND.incrementAndGet();
        return "error page";
    }

    /**
     * Forwards the servlet request to {@code /second/target}. The container's own request and
     * response objects, which {@link Exposer} leaves in attributes: RESTEasy injects proxies,
     * which Jetty's dispatcher does not take.
     */
    @GET
    @Path("forward")
    public void forward(@Context HttpServletRequest request) throws ServletException, IOException {
        HttpServletRequest servletRequest = (HttpServletRequest) request.getAttribute(Exposer.REQUEST);
        servletRequest.getRequestDispatcher("/second/target").forward(servletRequest, (HttpServletResponse)
                request.getAttribute(Exposer.RESPONSE));
    }

    /**
     * What {@link #forwardToAbsent} read in flight on its resource after its forward returned; -1
     * until then (the client may have the forward's response before).
     */
    public static final AtomicLong IN_FLIGHT_AFTER_FORWARD = new AtomicLong(-1);

    @Context
    Configuration configuration;

    /**
     * Forwards the servlet request to a path no resource serves (the runtime answers 404 there),
     * then reads what its own resource holds in flight: this request, still running.
     */
    @GET
    @Path("forward-absent")
    public void forwardToAbsent(@Context HttpServletRequest request) throws ServletException, IOException {
        // Read before the forward: RESTEasy's injected proxies answer no more after it.
        HttpServletRequest servletRequest = (HttpServletRequest) request.getAttribute(Exposer.REQUEST);
        HttpServletResponse servletResponse = (HttpServletResponse) request.getAttribute(Exposer.RESPONSE);
        ResourceStats stats = LeapgateFeature.gate(configuration)
                .flatMap(gate -> gate.stats("/second/forward-absent"))
                .orElseThrow();
        servletRequest.getRequestDispatcher("/second/absent").forward(servletRequest, servletResponse);
        IN_FLIGHT_AFTER_FORWARD.set(stats.inFlight());
    }

    /** Leaves the container's request and response in the request's attributes, for {@link #forward}. */
    public static final class Exposer implements Filter {
        static final String REQUEST = "test.servlet-request";
        static final String RESPONSE = "test.servlet-response";

        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            request.setAttribute(REQUEST, request);
            request.setAttribute(RESPONSE, response);
            chain.doFilter(request, response);
        }
    }

    @GET
    @Path("target")
    public String target() {
        SECOND.incrementAndGet();
        return "forwarded";
    }
}
