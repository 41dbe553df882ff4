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

    /** A limit on a locator, which is no resource method: {@code /orgs/{org}/members/...}. */
    @Path("orgs")
    public static class LimitedLocator {
        @Path("{org}/members")
        @RateLimited(limit = 1, window = "1h")
        public Member members() {
            return new Member();
        }
    }

    public static class Member {
        @GET
        @Path("{id}")
        public String get() {
            return "";
        }
    }

    /** A limit on a sub-resource's own locator: {@code /depts/{dept}/staff/{id}}. */
    @Path("depts")
    public static class Depts {
        @Path("{dept}")
        public Members dept() {
            return new Members();
        }
    }

    public static class Members {
        @GET
        @Path("{id}")
        public String get() {
            return "";
        }

        @Path("staff/{id}")
        @RateLimited(limit = 1, window = "1h")
        public Object staff() {
            return new Members();
        }
    }
}
