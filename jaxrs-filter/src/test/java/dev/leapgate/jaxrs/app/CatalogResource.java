package dev.leapgate.jaxrs.app;

/** Implements {@link CatalogApi}, whose root path it inherits: no JAX-RS annotation of its own. */
public class CatalogResource implements CatalogApi {

    @Override
    public String entry(String id) {
        return "entry " + id;
    }
}
