package dev.leapgate.it.app;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * A long poll: goes asynchronous for 50 ms and, when nothing happened meanwhile, answers the
 * timeout itself ("no news", 200) and completes, as long polling does on every idle interval.
 */
public class AsyncLongPollServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
        AsyncContext async = req.startAsync();
        async.setTimeout(50);
        async.addListener(new AsyncListener() {
            @Override
            public void onTimeout(AsyncEvent event) throws IOException {
                HttpServletResponse response = (HttpServletResponse) event.getSuppliedResponse();
                response.setStatus(200);
                response.setContentType("text/plain;charset=utf-8");
                response.getWriter().write("no news\n");
                event.getAsyncContext().complete();
            }

            @Override
            public void onComplete(AsyncEvent event) {}

            @Override
            public void onError(AsyncEvent event) {}

            @Override
            public void onStartAsync(AsyncEvent event) {}
        });
    }
}
