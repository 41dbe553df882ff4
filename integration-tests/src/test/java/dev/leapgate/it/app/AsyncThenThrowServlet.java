package dev.leapgate.it.app;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Goes asynchronous, then throws from its first dispatch. Containers differ in what the client
 * sees (an error status, or a dropped connection on Tomcat 10.1); the request's slot must come
 * back either way.
 */
public class AsyncThenThrowServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
        req.startAsync();
        throw new IllegalStateException("failing on purpose after startAsync");
    }
}
