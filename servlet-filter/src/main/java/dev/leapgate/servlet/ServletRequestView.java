package dev.leapgate.servlet;

import dev.leapgate.http.HttpRequestView;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/** A servlet request as the core sees it: nothing is read until the core asks. */
final class ServletRequestView implements HttpRequestView {

    private final HttpServletRequest request;

    ServletRequestView(HttpServletRequest request) {
        this.request = request;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /** The request URI below the context path, still percent-encoded (the core decodes it once, safely). */
    @Override
    public String rawPath() {
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        return context.isEmpty() || !uri.startsWith(context) ? uri : uri.substring(context.length());
    }

    @Override
    public String remoteAddr() {
        return request.getRemoteAddr();
    }

    @Override
    public List<String> headers(String name) {
        Enumeration<String> values = request.getHeaders(name);
        return values == null || !values.hasMoreElements() ? List.of() : Collections.list(values);
    }

    @Override
    public String principal() {
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }
}
