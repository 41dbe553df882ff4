package dev.leapgate.it.app;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** Goes asynchronous and never completes: the container times the request out (50 ms) and answers 500. */
public class AsyncTimeoutServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
        req.startAsync().setTimeout(50);
    }
}
