package dev.leapgate.jaxrs.app;

/** Implements {@link CrudApi} for text notes: its methods carry no JAX-RS annotation of their own. */
@jakarta.ws.rs.Path("notes")
public class NotesResource implements CrudApi<String> {

    @Override
    public String get(String id) {
        return "note " + id;
    }

    @Override
    public String put(String id, String body) {
        return "put " + id;
    }
}
