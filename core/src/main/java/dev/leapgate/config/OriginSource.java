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
 */
public record OriginSource(Kind kind, String headerName) {

    /** The three sources. */
    public enum Kind {
        IP,
        HEADER,
        PRINCIPAL
    }

    private static final OriginSource IP = new OriginSource(Kind.IP, null);
    private static final OriginSource PRINCIPAL = new OriginSource(Kind.PRINCIPAL, null);

    public OriginSource {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.HEADER) {
            Objects.requireNonNull(headerName, "headerName");
            if (!HttpToken.isToken(headerName)) {
                throw new IllegalArgumentException("header name must be an RFC 9110 token (letters, digits and"
                        + " !#$%&'*+-.^_`|~), was '" + headerName + "'");
            }
        } else if (headerName != null) {
            throw new IllegalArgumentException(
                    "origin " + kind + " takes no header name, was given '" + headerName + "'");
        }
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
