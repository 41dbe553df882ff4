package dev.leapgate.jaxrs.app.invalid;

import dev.leapgate.jaxrs.RateLimited;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/**
 * The shared bad settings ({@code dev.leapgate.testing.BadSettings}) that annotations can express,
 * one resource class each, named by the case's {@code annotation}.
 */
public final class BadAnnotations {

    private BadAnnotations() {}

    @Path("unknown-unit")
    public static class UnknownUnit {
        @GET
        @RateLimited(limit = 5, window = "1min")
        public String get() {
            return "";
        }
    }

    @Path("both")
    public static class Both {
        @GET
        @RateLimited(limit = 5, window = "1m", inFlight = 3)
        public String get() {
            return "";
        }
    }

    @Path("pace-per-origin")
    public static class PacePerOrigin {
        @GET
        @RateLimited(limit = 5, window = "1m", scope = Scope.Kind.PER_ORIGIN, onExcess = OnExcess.Kind.PACE)
        public String get() {
            return "";
        }
    }

    @Path("twice")
    public static class Twice {
        @GET
        @RateLimited(limit = 5, window = "1m")
        @RateLimited(limit = 5, window = "1m")
        public String get() {
            return "";
        }
    }

    @Path("names-in-case")
    public static class NamesInCase {
        @GET
        @Path("a")
        @RateLimited(name = "Login", limit = 5, window = "1m")
        public String a() {
            return "";
        }

        @GET
        @Path("b")
        @RateLimited(name = "login", limit = 5, window = "1m")
        public String b() {
            return "";
        }
    }
}
