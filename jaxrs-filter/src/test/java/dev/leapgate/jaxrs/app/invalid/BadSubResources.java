package dev.leapgate.jaxrs.app.invalid;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/** Annotated sub-resources that cannot start: each fails the application's start. */
public final class BadSubResources {

    private BadSubResources() {}

    /** An invalid value on a sub-resource method, {@code GET /broken/{id}}. */
    @Path("broken")
    public static class Broken {
        @Path("{id}")
        public BrokenPage page() {
            return new BrokenPage();
        }
    }

    public static class BrokenPage {
        @GET
        @RateLimited(limit = 1, window = "0s")
        public String get() {
            return "";
        }
    }

    /** A tree of any depth: {@code /tree/{name}}, {@code /tree/{name}/{child}}, ... */
    @Path("tree")
    public static class Tree {
        @Path("{name}")
        public Node node() {
            return new Node();
        }
    }

    public static class Node {
        @GET
        @RateLimited(limit = 1, window = "1h")
        public String get() {
            return "";
        }

        @Path("{child}")
        public Node child() {
            return new Node();
        }
    }

    /** One named limit on a method reached through two locators: two routes, one name. */
    @Path("twins")
    public static class Twins {
        @Path("left")
        public Named left() {
            return new Named();
        }

        @Path("right")
        public Named right() {
            return new Named();
        }
    }

    public static class Named {
        @GET
        @RateLimited(name = "twin", limit = 1, window = "1h")
        public String get() {
            return "";
        }
    }
}
