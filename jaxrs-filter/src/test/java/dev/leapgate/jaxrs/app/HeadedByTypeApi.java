package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;

/**
 * An API written as an annotated interface whose HEAD method produces, by the interface's
 * {@code @Produces}, less than its GET method.
 */
@Path("typed-api")
@Produces("text/plain")
public interface HeadedByTypeApi {

    @GET
    @Produces("application/json")
    @RateLimited(limit = 1, window = "1m")
    String json();

    @HEAD
    @RateLimited(limit = 2, window = "1m")
    Response head();

    /** Its implementation, which JAX-RS serves. */
    class Impl implements HeadedByTypeApi {
        @Override
        public String json() {
            return "{}";
        }

        @Override
        public Response head() {
            return Response.ok().build();
        }
    }
}
