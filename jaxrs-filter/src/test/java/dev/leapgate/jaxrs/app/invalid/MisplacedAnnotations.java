package dev.leapgate.jaxrs.app.invalid;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** {@code @RateLimited} where no route it could limit is served (MisplacedAnnotationsTest). */
public final class MisplacedAnnotations {

    private MisplacedAnnotations() {}

    /** An API whose route the implementation declares again, elsewhere. */
    public interface Api {
        @GET
        @Path("a")
        @RateLimited(limit = 1, window = "1h")
        String item();
    }

    /** Its own JAX-RS annotations replace all of the interface method's: {@code GET /api/b} alone is served. */
    @Path("api")
    public static class ApiElsewhere implements Api {
        @Override
        @GET
        @Path("b")
        public String item() {
            return "b";
        }
    }

    /** A resource method and a locator whose templates differ only in a regular expression. */
    @Path("users")
    public static class UsersAndProfiles {
        @GET
        @Path("{id: \\d+}")
        public String byNumber() {
            return "user";
        }

        @Path("{id: [a-z]+}")
        public Profile profile() {
            return new Profile();
        }
    }

    /** Reached through {@link UsersAndProfiles#profile}: {@code GET /users/{id}}, as is {@code byNumber}. */
    public static class Profile {
        @GET
        @RateLimited(limit = 1, window = "1h")
        public String get() {
            return "profile";
        }
    }

    /** A handler of a resource built in code: its route is the builder's. */
    public static class Handler {
        @RateLimited(limit = 1, window = "1h")
        public String hello() {
            return "hello";
        }
    }
}
