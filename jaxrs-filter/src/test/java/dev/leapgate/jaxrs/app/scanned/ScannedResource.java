package dev.leapgate.jaxrs.app.scanned;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** Found by package scanning, as the provider is. */
@Path("scanned")
public class ScannedResource {

    @GET
    @RateLimited(limit = 1, window = "1h")
    public String get() {
        return "scanned";
    }
}
