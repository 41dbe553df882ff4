package dev.leapgate.rule;

import dev.leapgate.Origin;
import dev.leapgate.net.IpAddress;
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
 * @param origin the named origin for {@link Kind#ORIGIN} (an IP address in canonical form, or an
 *     identifier: see {@link #origin(String)}), {@code null} otherwise
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
            origin = canonical(origin);
        } else if (origin != null) {
            throw new IllegalArgumentException("scope " + (kind == Kind.ALL ? "all" : "per-origin")
                    + " takes no origin, was given '" + origin + "'");
        }
    }

    /**
     * An IP address in its canonical form ({@code 2001:db8::9}, {@code 192.0.2.1}), which is what
     * an IP origin's {@link Origin#id()} is and what the rule is compared with; any other text as
     * it is, an identifier. As the configuration reads {@code origin:<value>}: text made of digits,
     * dots and colons only is meant as an address and must be one.
     */
    private static String canonical(String origin) {
        boolean looksLikeAddress = origin.chars().allMatch(c -> Character.isDigit(c) || c == '.' || c == ':')
                && origin.chars().anyMatch(c -> c == '.' || c == ':');
        try {
            return IpAddress.parse(origin).toString();
        } catch (IllegalArgumentException notAnAddress) {
            if (looksLikeAddress) {
                throw new IllegalArgumentException("scope origin: " + notAnAddress.getMessage(), notAnAddress);
            }
            return origin; // an identifier (an IPv6 address has letters too, so only now is it known)
        }
    }

    public static Scope all() {
        return ALL;
    }

    public static Scope perOrigin() {
        return PER_ORIGIN;
    }

    /**
     * One named origin: an IP address, in any of its spellings ({@code 2001:DB8::9}, {@code
     * ::ffff:192.0.2.1}; kept in canonical form, as {@link Origin#ip} origins are named), or an
     * identifier, as {@link Origin#id} gives it.
     *
     * @throws IllegalArgumentException if {@code origin} is blank, or digits, dots and colons that
     *     are no IP address ({@code 010.0.0.1})
     */
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
