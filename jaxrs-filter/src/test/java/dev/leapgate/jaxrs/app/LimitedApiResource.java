package dev.leapgate.jaxrs.app;

/** Implements {@link LimitedApi}: no annotation of its own on the methods. */
@jakarta.ws.rs.Path("limited-api")
public class LimitedApiResource implements LimitedApi {

    @Override
    public String item(String id) {
        return "item " + id;
    }

    @Override
    public String featured() {
        return "featured";
    }
}
