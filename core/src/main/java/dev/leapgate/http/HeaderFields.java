package dev.leapgate.http;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * A few header fields in the order to send them, as an unmodifiable map: what {@link HttpGate}
 * answers a rejection with, which {@link RejectionResponse} keeps as it is (a map from anywhere
 * else it copies). One array of names and values, where a {@code LinkedHashMap} and its copy took
 * two tables and eight entries per rejection; {@link #forEach}, which the adapters call, makes no
 * object.
 *
 * <p>A lookup by name ({@link #get}, {@link #containsKey}, {@code getOrDefault}, {@code
 * keySet().contains}) ignores case, as HTTP field names do (RFC 9110 section 5.1): {@code
 * get("retry-after")} finds {@code Retry-After}. A few names compared with {@code
 * equalsIgnoreCase}, rather than a case-insensitive table: the rejection path builds the fields
 * and the adapters only iterate them, so nothing is added where every rejection pays. Entries and
 * iteration keep the names as written.
 */
final class HeaderFields extends AbstractMap<String, String> {

    /** Name, value, name, value, ...; the names distinct, nothing null. */
    private final String[] fields;

    /**
     * The fields {@code name, value, name, value, ...}, with names distinct ignoring case (the
     * gate's own, which it does not check); the array is kept.
     */
    HeaderFields(String... fields) {
        if (fields.length % 2 != 0) {
            throw new IllegalArgumentException("a name without a value: " + String.join(", ", fields));
        }
        for (int i = 0; i < fields.length; i++) {
            if (fields[i] == null) {
                throw new NullPointerException("header field " + (i % 2 == 0 ? "name" : "value") + " " + i / 2);
            }
        }
        this.fields = fields;
    }

    /**
     * A copy of {@code headers}, in their order, refusing one name given twice in two cases: a
     * lookup that ignores case would find one of them, and a client receives both as one field.
     */
    static HeaderFields copyOf(Map<String, String> headers) {
        String[] fields = new String[headers.size() * 2];
        int i = 0;
        for (Map.Entry<String, String> field : headers.entrySet()) {
            String name = field.getKey();
            for (int j = 0; j < i; j += 2) {
                if (fields[j].equalsIgnoreCase(name)) {
                    throw new IllegalArgumentException(
                            "header field '" + name + "' is '" + fields[j] + "' again (field names ignore case)");
                }
            }
            fields[i++] = name;
            fields[i++] = field.getValue();
        }
        return new HeaderFields(fields);
    }

    @Override
    public int size() {
        return fields.length / 2;
    }

    /** The value of the field {@code name}, ignoring case; {@code null} for none. */
    @Override
    public String get(Object name) {
        if (!(name instanceof String wanted)) {
            return null;
        }
        for (int i = 0; i < fields.length; i += 2) {
            if (fields[i].equalsIgnoreCase(wanted)) {
                return fields[i + 1];
            }
        }
        return null;
    }

    @Override
    public boolean containsKey(Object name) {
        return get(name) != null;
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super String> action) {
        for (int i = 0; i < fields.length; i += 2) {
            action.accept(fields[i], fields[i + 1]);
        }
    }

    @Override
    public Set<Map.Entry<String, String>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return fields.length / 2;
            }

            @Override
            public Iterator<Map.Entry<String, String>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < fields.length;
                    }

                    @Override
                    public Map.Entry<String, String> next() {
                        if (next >= fields.length) {
                            throw new NoSuchElementException();
                        }
                        Map.Entry<String, String> entry = Map.entry(fields[next], fields[next + 1]);
                        next += 2;
                        return entry;
                    }
                };
            }
        };
    }
}
