package dev.leapgate.rule;

import java.util.Objects;

/**
 * Whom a rule's limit applies to.
 *
 * <ul>
 *   <li>{@link #all()}: everyone together: one counter for all callers;
 *   <li>{@link #perOrigin()}: each origin (client IP, API key, ...) separately: one counter per
 *       origin, kept in a bounded table;
 *   <li>{@link #origin(String)}: one named origin only; other origins are not limited by the rule.
 * </ul>
 *
 * Written in configuration as {@code all}, {@code per-origin} and {@code origin:<value>}.
 *
 * @param kind which of the three
 * @param origin the named origin for {@link Kind#ORIGIN}, {@code null} otherwise
 */
public record Scope(Kind kind, String origin) {

    /** The three kinds of scope. */
    public enum Kind {
        ALL,
        PER_ORIGIN,
        ORIGIN
    }

    private static final Scope ALL = new Scope(Kind.ALL, null);
    private static final Scope PER_ORIGIN = new Scope(Kind.PER_ORIGIN, null);

    public Scope {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.ORIGIN) {
            Objects.requireNonNull(origin, "origin");
            if (origin.isBlank()) {
                throw new IllegalArgumentException("scope origin must not be blank");
            }
        } else if (origin != null) {
            throw new IllegalArgumentException("scope " + (kind == Kind.ALL ? "all" : "per-origin")
                    + " takes no origin, was given '" + origin + "'");
        }
    }

    public static Scope all() {
        return ALL;
    }

    public static Scope perOrigin() {
        return PER_ORIGIN;
    }

    public static Scope origin(String origin) {
        return new Scope(Kind.ORIGIN, origin);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case ALL -> "all";
            case PER_ORIGIN -> "per-origin";
            case ORIGIN -> "origin:" + origin;
        };
    }
}
