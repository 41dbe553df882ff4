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
     * The request path below the application's context path, <em>not</em> percent-decoded (for
     * a servlet: {@code getRequestURI()} minus {@code getContextPath()}).
     */
    String rawPath();

    /** The address of the direct peer (the TCP connection's other end), as text. */
    String remoteAddr();

    /** Every value of a request header, in order; empty if absent. */
    List<String> headers(String name);

    /** The authenticated user's name, or {@code null} for an anonymous request. */
    String principal();
}
