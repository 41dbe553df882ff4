package dev.leapgate.config;

import dev.leapgate.net.HttpToken;
import java.util.Objects;

/**
 * Where the origin of a request (who is calling) comes from. Written in configuration as {@code
 * ip}, {@code header:<Header-Name>} and {@code principal}.
 *
 * <ul>
 *   <li>{@link Kind#IP}: the client IP address, behind trusted proxies as configured;
 *   <li>{@link Kind#HEADER}: the value of a request header, such as an API key;
 *   <li>{@link Kind#PRINCIPAL}: the name of the authenticated user.
 * </ul>
 *
 * @param kind which of the three
 * @param headerName the header for {@link Kind#HEADER}, an RFC 9110 token as written (header
 *     names compare ignoring case); {@code null} otherwise
 * @param valuesShown for {@link Kind#HEADER}, whether the header's values are shown as sent in the
 *     status and the rejection log ({@code header-origin-shown = as-sent}); by default such a value,
 *     usually a credential (an API key), is shown only as its fingerprint (see {@link
 *     dev.leapgate.Origin#secret}). Always false for the other kinds, whose origins are shown as
 *     they are (an address, a user name).
 */
public record OriginSource(Kind kind, String headerName, boolean valuesShown) {

    /** The three sources. */
    public enum Kind {
        IP,
        HEADER,
        PRINCIPAL
    }

    private static final OriginSource IP = new OriginSource(Kind.IP, null);
    private static final OriginSource PRINCIPAL = new OriginSource(Kind.PRINCIPAL, null);

    /** A source whose values, if it is a header, are shown only as fingerprints. */
    public OriginSource(Kind kind, String headerName) {
        this(kind, headerName, false);
    }

    public OriginSource {
        Objects.requireNonNull(kind, "kind");
        if (valuesShown && kind != Kind.HEADER) {
            throw new IllegalArgumentException(
                    "only a header's values are shown as sent or as fingerprints, not the " + kind + "'s");
        }
        if (kind == Kind.HEADER) {
            Objects.requireNonNull(headerName, "headerName");
            if (!HttpToken.isToken(headerName)) {
                throw new IllegalArgumentException("header name must be an RFC 9110 token (letters, digits and"
                        + " !#$%&'*+-.^_`|~), was '" + headerName + "'");
            }
            String forwarding = forwardingList(headerName);
            if (forwarding != null) {
                throw new IllegalArgumentException("origin header:" + headerName + " " + forwarding);
            }
        } else if (headerName != null) {
            throw new IllegalArgumentException(
                    "origin " + kind + " takes no header name, was given '" + headerName + "'");
        }
    }

    /**
     * Why {@code headerName} cannot be an origin, if it is a forwarding list (X-Forwarded-For,
     * Forwarded, in any case); null otherwise. Each proxy appends to such a list, so its first entry
     * is the client's own text: a client that sends another one with each request would escape
     * every per-origin limit. The same refusal whether the origin is parsed or built in code.
     */
    static String forwardingList(String headerName) {
        return forwardingList(headerName, "");
    }

    /** As {@link #forwardingList(String)}, naming the keys with {@code keyPrefix} ({@code leapgate.}). */
    static String forwardingList(String headerName, String keyPrefix) {
        if (!headerName.equalsIgnoreCase("X-Forwarded-For") && !headerName.equalsIgnoreCase("Forwarded")) {
            return null;
        }
        return "would let every client choose its origin: the first entry of " + headerName
                + " is what the client wrote (each proxy appends after it), so a client that sends another"
                + " one with each request escapes every per-origin limit; to count clients by their"
                + " address behind a proxy, keep " + keyPrefix + "origin = ip and set " + keyPrefix
                + "trusted-proxies (and " + keyPrefix + "forwarded-header), which walks the header from the right";
    }

    public static OriginSource ip() {
        return IP;
    }

    public static OriginSource header(String headerName) {
        return new OriginSource(Kind.HEADER, headerName);
    }

    public static OriginSource principal() {
        return PRINCIPAL;
    }

    /**
     * Whether clients are named by the fingerprints of their values, never as sent: a header's values
     * (API keys, most often) unless {@code header-origin-shown = as-sent}.
     */
    public boolean fingerprinted() {
        return kind == Kind.HEADER && !valuesShown;
    }

    /** This header source, with its values shown as sent ({@code header-origin-shown = as-sent}). */
    public OriginSource valuesShownAsSent() {
        return new OriginSource(kind, headerName, true);
    }

    /** The configuration spelling: {@code ip}, {@code header:X-Api-Key}, {@code principal}. */
    @Override
    public String toString() {
        return switch (kind) {
            case IP -> "ip";
            case HEADER -> "header:" + headerName;
            case PRINCIPAL -> "principal";
        };
    }
}
