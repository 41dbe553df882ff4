package dev.leapgate.it.app;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A slow report that holds no thread: goes asynchronous at once and completes when the {@link Hold}
 * releases it (on the releasing thread).
 */
public class AsyncSlowReportServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
        Hold hold = (Hold) getServletContext().getAttribute(Hold.ATTRIBUTE);
        AsyncContext async = req.startAsync();
        async.setTimeout(Hold.MAX_HOLD.toMillis());
        hold.arrive().thenRun(() -> {
            try {
                async.getResponse().setContentType("text/plain;charset=utf-8");
                async.getResponse().getWriter().write("report (async)\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                async.complete();
            }
        });
    }
}
