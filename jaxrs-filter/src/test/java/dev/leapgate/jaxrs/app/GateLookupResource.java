package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.LeapgateFeature;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;

/** Finds the application's gate as the README shows: {@code LeapgateFeature.gate(configuration)}. */
@Path("gate")
public class GateLookupResource {

    @Context
    Configuration configuration;

    /** The gate's admissions on this resource in the last minute, or "none" without a gate. */
    @GET
    public String admitted() {
        return LeapgateFeature.gate(configuration)
                .flatMap(gate -> gate.stats("GET /gate"))
                .map(stats -> Long.toString(stats.lastMinute().admitted()))
                .orElse("none");
    }
}
