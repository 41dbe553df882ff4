package dev.leapgate.jaxrs.app;

/** Implements {@link ItemsApi}: its methods carry no JAX-RS annotation of their own. */
@jakarta.ws.rs.Path("items")
public class ItemsResource implements ItemsApi {

    @Override
    public String item(String id) {
        return "item " + id;
    }

    @Override
    public String featured() {
        return "featured";
    }
}
