package dev.leapgate.demo;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /reports/slow}: a report that takes 2 s, asynchronously (no thread waits for it). An
 * in-flight rule counts it until it completes.
 */
public class SlowReportServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private transient ScheduledExecutorService timer;

    @Override
    public void init() {
        timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "slow-report");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
        AsyncContext async = req.startAsync();
        timer.schedule(
                () -> {
                    try {
                        async.getResponse().setContentType("text/plain;charset=utf-8");
                        async.getResponse().getWriter().write("Your report is ready\n");
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    } finally {
                        async.complete();
                    }
                },
                2,
                TimeUnit.SECONDS);
    }

    @Override
    public void destroy() {
        timer.shutdownNow();
    }
}
