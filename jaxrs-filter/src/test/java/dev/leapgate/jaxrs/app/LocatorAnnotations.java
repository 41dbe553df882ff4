package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** {@link RateLimited} next to sub-resource locators, which Leapgate reads on root resources only. */
public final class LocatorAnnotations {

    private LocatorAnnotations() {}

    /** A class-level limit on a root resource that also has a locator: it limits {@code GET /shelf} alone. */
    @Path("shelf")
    @RateLimited(limit = 1, window = "1h")
    public static class Shelf {
        @GET
        public String list() {
            return "shelf";
        }

        @Path("{id}")
        public Book book(@PathParam("id") String id) {
            return new Book(id);
        }
    }

    /** Reached through {@link Shelf#book} only. */
    public static class Book {
        private final String id;

        Book(String id) {
            this.id = id;
        }

        @GET
        public String get() {
            return "book " + id;
        }
    }

    /** The application's root, {@code GET /}. */
    @Path("/")
    public static class Home {
        @GET
        public String home() {
            return "home";
        }
    }

    @Path("lib")
    public static class Library {
        @Path("{id}")
        public Page page(@PathParam("id") String id) {
            return new Page(id);
        }
    }

    /** A sub-resource (no {@code @Path}) with a limit, which cannot be applied. */
    public static class Page {
        private final String id;

        Page(String id) {
            this.id = id;
        }

        @GET
        @RateLimited(limit = 1, window = "1h")
        public String get() {
            return "page " + id;
        }
    }

    /** A root resource ({@code /members/{id}}) that {@link Teams} also returns as a sub-resource. */
    @Path("members")
    public static class Members {
        @GET
        @Path("{id}")
        @RateLimited(limit = 1, window = "1h")
        public String member(@PathParam("id") String id) {
            return "member " + id;
        }
    }

    @Path("teams")
    public static class Teams {
        @Path("{team}/members")
        public Members members() {
            return new Members();
        }
    }
}
