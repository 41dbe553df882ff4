package dev.leapgate.it.app;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Goes asynchronous and answers from another thread, after the first dispatch has returned. */
public class AsyncHelloServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private transient ExecutorService workers;

    @Override
    public void init() {
        workers = Executors.newFixedThreadPool(4, Workers.daemon("hello-async"));
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
        AsyncContext async = req.startAsync();
        workers.execute(() -> {
            try {
                async.getResponse().setContentType("text/plain;charset=utf-8");
                async.getResponse().getWriter().write("hello (async)\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                async.complete();
            }
        });
    }

    @Override
    public void destroy() {
        workers.shutdownNow();
    }
}
