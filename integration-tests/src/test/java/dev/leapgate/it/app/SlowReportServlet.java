package dev.leapgate.it.app;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A slow report: holds its thread until the {@link Hold} releases it. */
public class SlowReportServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Hold hold = (Hold) getServletContext().getAttribute(Hold.ATTRIBUTE);
        try {
            hold.arrive().get(Hold.MAX_HOLD.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while held", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("not released", e);
        }
        resp.setContentType("text/plain;charset=utf-8");
        resp.getWriter().write("report\n");
    }
}
