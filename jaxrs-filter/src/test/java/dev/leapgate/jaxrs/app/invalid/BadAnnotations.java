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

    /** Valid on its own; with {@code exempt = 10.0.0.0/8} a rule that could never apply. */
    @Path("exempted")
    public static class ExemptedOrigin {
        @GET
        @RateLimited(limit = 10, window = "1s", scope = Scope.Kind.ORIGIN, origin = "10.20.0.5")
        public String get() {
            return "";
        }
    }

    /** Valid with {@code origin = header:<Name>}; with {@code origin = ip}, a rule that could never apply. */
    @Path("batch")
    public static class NamedOrigin {
        @GET
        @RateLimited(limit = 10, window = "1s", scope = Scope.Kind.ORIGIN, origin = "batch-job")
        public String get() {
            return "";
        }
    }
}
