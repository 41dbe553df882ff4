package dev.leapgate.it.app;

/** No such item: mapped to 404 by {@link ItemNotFoundMapper}. */
public class ItemNotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ItemNotFoundException(String id) {
        super("no item " + id);
    }
}
