package dev.leapgate.jaxrs.app;

import dev.leapgate.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * {@link RateLimited} on sub-resources: classes without {@code @Path} reached through the
 * sub-resource locators of root resources, limited on their full templates.
 */
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

    /** A sub-resource (no {@code @Path}) with a limit: {@code GET /lib/{id}}, below a root with a locator alone. */
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

    /**
     * A root resource ({@code /members/{id}}) that {@link Teams} also returns as a sub-resource
     * ({@code /teams/{team}/members/{id}}).
     */
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

    /** Nested locators: {@code /companies/{company}/staff}, then {@code .../{id}/badges}. */
    @Path("companies")
    public static class Companies {
        @Path("{company}/staff")
        public Staff staff() {
            return new Staff();
        }
    }

    /** A class-level limit on a sub-resource class: each of its resource methods, on its full template. */
    @RateLimited(limit = 1, window = "1h")
    public static class Staff {
        @GET
        public String list() {
            return "staff";
        }

        @GET
        @Path("{id}")
        public String person(@PathParam("id") String id) {
            return "person " + id;
        }

        /** A locator: the class's limit does not apply to what it returns. */
        @Path("{id}/badges")
        public Badges badges() {
            return new Badges();
        }
    }

    public static class Badges {
        @GET
        @RateLimited(limit = 2, window = "1h")
        public String list() {
            return "badges";
        }
    }

    /**
     * Two locators to one annotated class: one declares it ({@code GET /archive/typed/{id}}, limited);
     * the other returns {@code Object}, so that its route ({@code GET /archive/any/{id}}) is unknown
     * until a request takes it.
     */
    @Path("archive")
    public static class Archive {
        @Path("typed/{id}")
        public Scroll typed() {
            return new Scroll();
        }

        @Path("any/{id}")
        public Object any() {
            return new Scroll();
        }
    }

    /** An application's only route to {@link Scroll}: a locator returning {@code Object}. */
    @Path("vault")
    public static class Vault {
        @Path("{id}")
        public Object item() {
            return new Scroll();
        }
    }

    public static class Scroll {
        @GET
        @RateLimited(limit = 1, window = "1h")
        public String get() {
            return "scroll";
        }
    }

    /**
     * A locator that declares an interface ({@link Form}, where the routes are) and returns an
     * implementation whose method carries the limit: {@code GET /forms/{id}}.
     */
    @Path("forms")
    public static class Forms {
        @Path("{id}")
        public Form form(@PathParam("id") String id) {
            return new LimitedForm(id);
        }
    }

    public interface Form {
        @GET
        String get();
    }

    /** Limited on the implementation's method, which the locator's declared type does not show. */
    public static class LimitedForm implements Form {
        private final String id;

        LimitedForm(String id) {
            this.id = id;
        }

        @Override
        @RateLimited(limit = 1, window = "1h")
        public String get() {
            return "form " + id;
        }
    }

    /** The same with an abstract class: {@code GET /tickets/{id}}. */
    @Path("tickets")
    public static class Tickets {
        @Path("{id}")
        public Ticket ticket() {
            return new LimitedTicket();
        }
    }

    public abstract static class Ticket {
        @GET
        public abstract String get();
    }

    public static class LimitedTicket extends Ticket {
        @Override
        @RateLimited(limit = 1, window = "1h")
        public String get() {
            return "ticket";
        }
    }

    /**
     * The limit declared with the interface the locator declares ({@code GET /memos/{id}}), the
     * implementation unannotated: it inherits the limit, as it inherits the route.
     */
    @Path("memos")
    public static class Memos {
        @Path("{id}")
        public Memo memo(@PathParam("id") String id) {
            return new PlainMemo(id);
        }
    }

    public interface Memo {
        @GET
        @RateLimited(limit = 1, window = "1h")
        String get();

        @GET
        @Path("text")
        String text();
    }

    public static class PlainMemo implements Memo {
        private final String id;

        PlainMemo(String id) {
            this.id = id;
        }

        @Override
        public String get() {
            return "memo " + id;
        }

        @Override
        public String text() {
            return "text " + id;
        }
    }
}
