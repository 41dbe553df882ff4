package dev.leapgate.http;

import java.util.List;

/**
 * What a Leapgate adapter tells the core about one HTTP request. Implemented by the servlet
 * filter and the JAX-RS provider over their own request types; every method is called at most
 * once per decision, and only when needed (headers and principal only when a rule applies).
 */
public interface HttpRequestView {

    /** The request method, as received. */
    String method();

    /**
     * The request path below the application's context path, <em>not</em> percent-decoded: what
     * the core keys the request by when {@link #decodedPath()} is null (the JAX-RS provider passes
     * the matched route template here).
     */
    String rawPath();

    /**
     * The path below the context path that the application will serve, as the container decoded and
     * canonicalized it to route the request (for a servlet: {@code getServletPath() +
     * getPathInfo()}), or null when the adapter has no such path. When present, it is the key: every
     * spelling that reaches the same servlet and path info counts against the same rules, whatever
     * the raw request URI looked like. See {@link RequestPath#normalizeDecoded}.
     */
    default String decodedPath() {
        return null;
    }

    /**
     * With {@link #decodedPath()}: the same path as the client sent it (below the context path,
     * still percent-encoded) when it holds a {@code %}, a segment that starts with a dot ({@code
     * /.}) or an empty segment ({@code //}, {@code /;}); null otherwise, and by default. The core
     * looks in it for a dot-segment, plain or spelled with an escape ({@code /api/items/./price},
     * {@code /api/items/%2E/price}), and for an empty segment ({@code /api/tags//count}, {@code
     * /api/tags/;x=1/count}), which a container such as Tomcat resolves or drops before routing
     * while a framework behind it that routes by the raw request URI (Jersey, RESTEasy, CXF) takes
     * as a segment: the rules of both readings apply. An adapter may also give here the path that
     * such a framework serves where the container routed the request otherwise (a servlet's own
     * segment with path parameters, {@code /api;items/1/price}, which Jersey serves as {@code
     * items/1/price}): its rules apply too. Called once per request; without a {@code %}, {@code
     * /.}, {@code //} or {@code /;} an adapter answers null without allocating.
     */
    default String encodedPath() {
        return null;
    }

    /** The address of the direct peer (the TCP connection's other end), as text. */
    String remoteAddr();

    /**
     * Every value of a request header, in order; empty if absent. For {@code Host} over HTTP/2
     * without the field, the stream's {@code :authority} ({@link #hostOfStream}).
     */
    List<String> headers(String name);

    /**
     * The {@code Host} values of a request without the field: over HTTP/2, the stream's {@code
     * :authority}, which a container such as Tomcat gives only as its server name and port; none for
     * any other protocol (HTTP/1.0) or without a server name. Without it, the status endpoint would
     * take an HTTP/2 request for one without a Host and answer it whatever host name it names. For
     * adapters' {@link #headers}.
     */
    static List<String> hostOfStream(String protocol, String serverName, int serverPort) {
        if (protocol == null || !protocol.startsWith("HTTP/2") || serverName == null || serverName.isEmpty()) {
            return List.of();
        }
        // An IPv6 address in brackets, as in a Host field.
        String host = serverName.indexOf(':') >= 0 && !serverName.startsWith("[") ? "[" + serverName + "]" : serverName;
        return List.of(host + ":" + serverPort);
    }

    /** The authenticated user's name, or {@code null} for an anonymous request. */
    String principal();
}
