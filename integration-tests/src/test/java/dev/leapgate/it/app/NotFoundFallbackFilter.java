package dev.leapgate.it.app;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;

/**
 * A single-page application's fallback: a request the application answers 404 ({@code sendError},
 * as a container's default servlet does) is forwarded, after the chain returned, to the page named
 * by the init-param {@code fallback}. Declared without async-supported, as web.xml declares filters
 * by default.
 */
public class NotFoundFallbackFilter implements Filter {

    private String fallback;

    @Override
    public void init(FilterConfig config) {
        fallback = config.getInitParameter("fallback");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        NotFound watched = new NotFound((HttpServletResponse) response);
        chain.doFilter(request, watched);
        if (watched.notFound) {
            request.getRequestDispatcher(fallback).forward(request, response);
        }
    }

    /** Holds back a 404 sent as an error, which the filter answers with the fallback page. */
    private static final class NotFound extends HttpServletResponseWrapper {
        boolean notFound;

        NotFound(HttpServletResponse response) {
            super(response);
        }

        @Override
        public void sendError(int status) throws IOException {
            sendError(status, null);
        }

        @Override
        public void sendError(int status, String message) throws IOException {
            if (status == SC_NOT_FOUND) {
                notFound = true;
            } else {
                super.sendError(status, message);
            }
        }
    }
}
