package dev.leapgate.jaxrs.app.invalid;

import dev.leapgate.jaxrs.RateLimited;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

/** Resource classes whose annotations the unit tests bind one method at a time. */
public final class Samples {

    private Samples() {}

    @Path("s")
    public static class Invalid {
        @GET
        @RateLimited(limit = 10)
        public void noWindow() {}

        @GET
        @RateLimited(limit = 10, window = "1s", inFlight = 3)
        public void both() {}

        @GET
        @RateLimited
        public void neither() {}

        @GET
        @RateLimited(limit = 10, window = "1min")
        public void badUnit() {}

        @GET
        @RateLimited(limit = 10, window = "1s", onExcess = OnExcess.Kind.PACE, scope = Scope.Kind.PER_ORIGIN)
        public void pacePerOrigin() {}

        @GET
        @RateLimited(limit = 10, window = "1s", maxQueue = "1s")
        public void maxQueueWithReject() {}

        @GET
        @RateLimited(limit = 10, window = "1s", buckets = 7)
        public void buckets(String unused) {}

        @GET
        @RateLimited(name = "a b", limit = 10, window = "1s")
        public void badName() {}

        @GET
        @RateLimited(limit = 10, window = "1s", scope = Scope.Kind.ORIGIN)
        public void originMissing() {}

        @GET
        @RateLimited(inFlight = 3, buckets = 20)
        public void bucketsWithInFlight() {}

        @GET
        @RateLimited(limit = 10, window = "1s", maxOrigins = 500)
        public void maxOriginsWithoutPerOrigin() {}

        @GET
        @RateLimited(limit = 10, window = "1s", scope = Scope.Kind.ORIGIN, origin = "10.0.0.0/8")
        public void originRange() {}

        @GET
        @RateLimited(limit = 10, window = "1s", scope = Scope.Kind.ORIGIN, origin = "203.0.113.7\u200B")
        public void originInvisible() {}

        @GET
        @RateLimited(limit = 10, window = "1s", scope = Scope.Kind.ORIGIN, origin = "batch-job")
        public void originName() {}

        @GET
        @RateLimited(limit = 10, window = "1s", scope = Scope.Kind.ORIGIN, origin = "10.20.0.5")
        public void originAddress() {}
    }

    /** Two invalid methods and a valid one. */
    @Path("two-invalid")
    public static class TwoInvalid {
        @GET
        @Path("a")
        @RateLimited(limit = 10)
        public void noWindow() {}

        @GET
        @Path("b")
        @RateLimited(limit = 10, window = "1s", onExcess = OnExcess.Kind.PACE, scope = Scope.Kind.PER_ORIGIN)
        public void pacePerOrigin() {}

        @GET
        @Path("c")
        @RateLimited(limit = 10, window = "1s")
        public void valid() {}
    }

    @Path("/named/")
    public static class Named {
        @GET
        @Path("one")
        @RateLimited(name = "shared", limit = 1, window = "1s")
        public void one() {}

        @POST
        @Path("/two/")
        @RateLimited(name = "shared", limit = 1, window = "1s")
        public void two() {}
    }

    @Path("paced")
    @RateLimited(limit = 100, window = "10s", onExcess = OnExcess.Kind.WARM_UP_PACE, coldFactor = 4, warmUp = "20s")
    public static class Paced {
        @GET
        @Path("{id: \\d+}")
        @RateLimited(limit = 5, window = "1m", buckets = 60, scope = Scope.Kind.PER_ORIGIN)
        public void get(String id) {}

        @GET
        @Path("{id: \\d+}/more")
        public void overloaded(String id, int other) {}
    }

    /** Two routes that differ only in the regular expression of their variable: one route for Leapgate. */
    @Path("accounts")
    public static class RegexSiblings {
        @GET
        @Path("{id: \\d+}")
        @RateLimited(limit = 1, window = "1h")
        public void byNumber(String id) {}

        @GET
        @Path("{id: [a-z]+}")
        public void byName(String id) {}
    }

    /** The same two routes, their variables named apart: two routes. */
    @Path("accounts")
    public static class RegexSiblingsNamedApart {
        @GET
        @Path("{id: \\d+}")
        @RateLimited(limit = 1, window = "1h")
        public void byNumber(String id) {}

        @GET
        @Path("{name: [a-z]+}")
        public void byName(String name) {}
    }

    /** An annotation on a method that no request reaches: a resource method's @GET forgotten. */
    @Path("not-a-resource-method")
    public static class NotAResourceMethod {
        @GET
        public String get() {
            return "";
        }

        @RateLimited(limit = 1, window = "1s")
        public String helper() {
            return "";
        }
    }
}
