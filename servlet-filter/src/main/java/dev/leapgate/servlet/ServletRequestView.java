package dev.leapgate.servlet;

import dev.leapgate.http.HttpRequestView;
import jakarta.servlet.ServletRequestWrapper;
import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.MappingMatch;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * A servlet request as the core sees it: nothing is read until the core asks.
 *
 * <p>Who sent it (the peer's address and the fields {@code Forwarded}, {@code X-Forwarded-For},
 * {@code X-Real-IP} and {@code Host}) is read from the request as the container made it, under the
 * wrappers of filters before this one. A wrapper may answer otherwise: Spring's {@code
 * ForwardedHeaderFilter} ({@code server.forward-headers-strategy: framework}) gives the first
 * address of a client's own {@code X-Forwarded-For} as the peer's and hides the header, so that
 * every request could name a client of its own choosing. The gate's {@code trusted-proxies} decide
 * which forwarded address to believe. The rest (method, path, principal, and every other header,
 * such as the one {@code origin = header:<Name>} names) is read through the wrappers, as the
 * application sees it: a filter of the application that replaces or removes a client's own value
 * (an authentication filter that sets the tenant of the credentials) is believed, not the client.
 */
final class ServletRequestView implements HttpRequestView {

    private final HttpServletRequest request;

    ServletRequestView(HttpServletRequest request) {
        this.request = request;
    }

    /** The request as the container made it. */
    private HttpServletRequest sent() {
        HttpServletRequest inner = request;
        while (inner instanceof ServletRequestWrapper wrapper
                && wrapper.getRequest() instanceof HttpServletRequest next) {
            inner = next;
        }
        return inner;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /**
     * The request URI, still percent-encoded; not the key (see {@link #decodedPath()}), kept for
     * views that have nothing better.
     */
    @Override
    public String rawPath() {
        return request.getRequestURI();
    }

    /**
     * What the container routed: the servlet path and the path info, which the container decoded,
     * stripped of path parameters and dot-segments and matched against the servlet mappings, below
     * the context path however the client spelled it ({@code //app/hello}, {@code /%61pp/hello} and
     * {@code /./app/hello} all give {@code /hello} at {@code /app}). The raw request URI is never
     * compared with the context path.
     */
    @Override
    public String decodedPath() {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        if (pathInfo == null) {
            return servletPath == null ? "/" : servletPath;
        }
        return servletPath == null || servletPath.isEmpty() ? pathInfo : servletPath + pathInfo;
    }

    /**
     * The request URI below the context path, still percent-encoded, when it holds a {@code %}, a
     * segment that starts with a dot, or an empty segment ({@code //}, or path parameters alone:
     * {@code /;}) there: the core looks in it for a dot-segment, plain or spelled with an escape,
     * which Tomcat resolves before routing ({@code /api/items/./price} and {@code
     * /api/items/%2E/price} reach the servlet at {@code /api} as {@code /items/price}), and for an
     * empty segment, which Tomcat drops ({@code /api/tags//count} reaches it as {@code /tags/count}),
     * while a framework that routes by the raw request URI, such as Jersey, RESTEasy or CXF, serves
     * them as {@code items/{id}/price} or {@code tags/{tag: [^/]*}/count}. The context path is the
     * prefix of the request URI that the container matched ({@code getContextPath()}, as the client
     * spelled it); a URI it does not start with is given whole. And when the segment of a servlet
     * mapped by path ({@code /api/*}) is not spelled as its path ({@code /api;items/1/price}, which
     * the container routes to it as {@code /api/1/price}), the path that a runtime cutting its base
     * path off the raw URI by length serves ({@code /api/items/1/price}: Jersey's {@code
     * items/1/price}). Null, without allocating, for a URI without {@code %}, {@code /.}, {@code
     * //} or {@code /;} whose servlet segment is spelled as its path.
     */
    @Override
    public String encodedPath() {
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        int from = context != null && uri != null && uri.startsWith(context) ? context.length() : 0;
        if (uri == null) {
            return null;
        }
        String servletPath = request.getServletPath();
        if (servletPath != null && !servletPath.isEmpty() && (request.getPathInfo() != null || pathMapped())) {
            int after = from + servletPath.length();
            if (!uri.startsWith(servletPath, from) || (after < uri.length() && uri.charAt(after) != '/')) {
                // The servlet's segment spelled otherwise than its path (/api;items/1/price, routed
                // as /api/1/price): a runtime such as Jersey cuts its base path, the context path and
                // servlet path and a slash, off the raw request URI by length, and serves what is left
                // (items/1/price). That is the path it serves.
                int cut = (context == null ? 0 : context.length()) + servletPath.length() + 1;
                return servletPath + "/" + (cut < uri.length() ? uri.substring(cut) : "");
            }
        }
        for (int i = from, last = uri.length() - 1; i <= last; i++) {
            char c = uri.charAt(i);
            if (c == '%' || (c == '/' && i < last && isSegmentStartToRead(uri.charAt(i + 1)))) {
                return from == 0 ? uri : uri.substring(from);
            }
        }
        return null;
    }

    /** Whether the servlet was matched by a path mapping ({@code /api/*}), which routes what is below it. */
    private boolean pathMapped() {
        try {
            HttpServletMapping mapping = request.getHttpServletMapping();
            return mapping != null && mapping.getMappingMatch() == MappingMatch.PATH;
        } catch (AbstractMethodError | UnsupportedOperationException noMapping) {
            return false;
        }
    }

    /** After a slash: a dot-segment may start, or an empty segment ({@code //}, {@code /;}). */
    private static boolean isSegmentStartToRead(char c) {
        return c == '.' || c == '/' || c == ';';
    }

    @Override
    public String remoteAddr() {
        return sent().getRemoteAddr();
    }

    /** The fields that say who sent the request, read under the wrappers as the peer is. */
    private static boolean aboutTheSender(String name) {
        return name.equalsIgnoreCase("Forwarded")
                || name.equalsIgnoreCase("X-Forwarded-For")
                || name.equalsIgnoreCase("X-Real-IP")
                || name.equalsIgnoreCase("Host");
    }

    @Override
    public List<String> headers(String name) {
        HttpServletRequest from = aboutTheSender(name) ? sent() : request;
        Enumeration<String> values = from.getHeaders(name);
        if (values == null || !values.hasMoreElements()) {
            return name.equalsIgnoreCase("Host")
                    ? HttpRequestView.hostOfStream(from.getProtocol(), from.getServerName(), from.getServerPort())
                    : List.of();
        }
        return Collections.list(values);
    }

    @Override
    public String principal() {
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }
}
