package dev.leapgate.servlet;

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

    /** Goes asynchronous and never completes: the container times it out after {@code timeoutMillis}. */
    static final class AsyncTimeout extends HttpServlet {
        private final long timeoutMillis;

        AsyncTimeout(long timeoutMillis) {
            this.timeoutMillis = timeoutMillis;
        }

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) {
            req.startAsync().setTimeout(timeoutMillis);
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
