package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;

/** Implements {@link ItemsApi}, limiting one of the methods whose JAX-RS annotations it inherits. */
@jakarta.ws.rs.Path("limited-items")
public class LimitedItemsResource implements ItemsApi {

    @Override
    @RateLimited(limit = 1, window = "1h")
    public String item(String id) {
        return "item " + id;
    }

    @Override
    public String featured() {
        return "featured";
    }
}
