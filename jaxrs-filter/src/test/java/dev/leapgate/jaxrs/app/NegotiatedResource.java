package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import dev.leapgate.rule.Scope;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** One route served by two methods told apart by the media type they produce, limited by the class. */
@Path("negotiated")
@RateLimited(limit = 2, window = "1m", scope = Scope.Kind.PER_ORIGIN)
public class NegotiatedResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public String json() {
        return "{}";
    }

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String text() {
        return "text";
    }
}
