package dev.leapgate.servlet;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Small servlets the filter tests route requests to. */
final class TestServlets {

    private TestServlets() {}

    /** Answers 200 with a fixed text. */
    static final class Text extends HttpServlet {
        private final String text;

        Text(String text) {
            this.text = text;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write(text);
        }
    }

    /**
     * Answers {@code ok} with rate-limit fields of its own: {@code RateLimit-Policy} set with {@code
     * setHeader} (which replaces a field), {@code RateLimit} with {@code addHeader} (which adds a
     * field line).
     */
    static final class OwnRateLimitFields extends HttpServlet {
        private final String policy;
        private final String rateLimit;

        OwnRateLimitFields(String policy, String rateLimit) {
            this.policy = policy;
            this.rateLimit = rateLimit;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setHeader("RateLimit-Policy", policy);
            resp.addHeader("RateLimit", rateLimit);
            resp.getWriter().write("ok");
        }
    }

    /** Answers a fixed status with a short text. */
    static final class Status extends HttpServlet {
        private final int status;

        Status(int status) {
            this.status = status;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setStatus(status);
            resp.getWriter().write("status " + status);
        }
    }

    /** Throws, so the container answers through its error page. */
    static final class Boom extends HttpServlet {
        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) {
            throw new IllegalStateException("boom");
        }
    }

    /** Forwards to another path of the same context. */
    static final class Forward extends HttpServlet {
        private final String target;

        Forward(String target) {
            this.target = target;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
            req.getRequestDispatcher(target).forward(req, resp);
        }
    }

    /** The error page: status 500 and a short text. */
    static final class ErrorPage extends HttpServlet {
        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setStatus(500);
            resp.getWriter().write("error page");
        }
    }

    /**
     * Goes asynchronous and never completes by itself: it times out after {@code timeoutMillis}.
     * With {@code answerTimeout}, its own listener answers 503 and completes on timeout, as
     * applications usually do; without, the container answers through its error page.
     */
    static final class AsyncTimeout extends HttpServlet {
        private final long timeoutMillis;
        private final boolean answerTimeout;

        AsyncTimeout(long timeoutMillis, boolean answerTimeout) {
            this.timeoutMillis = timeoutMillis;
            this.answerTimeout = answerTimeout;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext async = req.startAsync();
            async.setTimeout(timeoutMillis);
            if (answerTimeout) {
                async.addListener(new AsyncListener() {
                    @Override
                    public void onTimeout(AsyncEvent event) {
                        ((HttpServletResponse) event.getSuppliedResponse()).setStatus(503);
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
    }

    /** Goes asynchronous and dispatches to {@code target}, typically a servlet that throws. */
    static final class AsyncError extends HttpServlet {
        private final String target;

        AsyncError(String target) {
            this.target = target;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) {
            req.startAsync().dispatch(target);
        }
    }
}
