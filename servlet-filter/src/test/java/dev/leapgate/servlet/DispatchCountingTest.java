package dev.leapgate.servlet;

import static dev.leapgate.servlet.JettyHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.stats.StatsSnapshot;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A request limited and counted once, and by what was answered: filter mappings, async timeouts. */
class DispatchCountingTest {

    private JettyHarness jetty;

    @AfterEach
    void stop() throws Exception {
        if (jetty != null) {
            jetty.close();
        }
    }

    /**
     * web.xml maps the filter twice ({@code /*}, and {@code /api/*} or a servlet-name): Jetty runs
     * a filter once per mapping that matches, nested in the same REQUEST dispatch. It is one
     * request: admitted once (4 requests under a limit of 4 all pass), one item in its RateLimit
     * field.
     */
    @Test
    void aFilterMappedTwice_limitsARequestOnce() throws Exception {
        jetty = new JettyHarness(Map.of("rule.api.match", "/api/**", "rule.api.limit", "4/10s"))
                .alsoMapped("/api/*")
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .start();

        HttpResponse<String> first = jetty.get("/api/hello");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().allValues("RateLimit"))
                .as("one item of Leapgate's")
                .singleElement()
                .satisfies(v -> assertThat(v).startsWith("\"api\";r=3;").doesNotContain(","));
        for (int i = 2; i <= 4; i++) {
            assertThat(jetty.get("/api/hello").statusCode())
                    .as("request %d of 4", i)
                    .isEqualTo(200);
        }
        assertThat(jetty.get("/api/hello").statusCode()).as("request 5 of 4").isEqualTo(429);
        StatsSnapshot m = jetty.stats("/api/**");
        assertThat(m.admitted()).as("admitted").isEqualTo(4);
        assertThat(m.succeeded()).as("succeeded").isEqualTo(4);
        assertThat(m.inFlight()).isZero();
    }

    /**
     * A long poll: the application's own listener answers a timeout ("no news yet", 200) and
     * completes, as long polling does on every idle interval. The request got a response that is
     * no server error: by the README's rule (only no response or a 5xx is a failure, as the JAX-RS
     * provider counts an AsyncResponse its timeout handler resumes) it succeeded.
     */
    @Test
    void anAsyncTimeoutTheApplicationAnswers_withA200_isASuccess() throws Exception {
        jetty = new JettyHarness(Map.of("rule.poll.match", "/api/**", "rule.poll.in-flight", "1"))
                .servlet("/api/poll", new HttpServlet() {
                    @Override
                    protected void service(HttpServletRequest req, HttpServletResponse resp) {
                        AsyncContext async = req.startAsync();
                        async.setTimeout(100);
                        async.addListener(new AsyncListener() {
                            @Override
                            public void onTimeout(AsyncEvent event) throws IOException {
                                HttpServletResponse r = (HttpServletResponse) event.getSuppliedResponse();
                                r.setStatus(200);
                                r.getWriter().write("no news");
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
                })
                .servlet("/error", new TestServlets.ErrorPage())
                .start();

        HttpResponse<String> r = jetty.get("/api/poll");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("no news");
        eventually(() -> jetty.stats("/api/**").inFlight() == 0);
        StatsSnapshot m = jetty.stats("/api/**");
        assertThat(m.failed()).as("failed").isZero();
        assertThat(m.succeeded()).as("succeeded").isEqualTo(1);
    }
}
