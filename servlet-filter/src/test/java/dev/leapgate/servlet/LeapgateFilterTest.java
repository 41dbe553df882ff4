package dev.leapgate.servlet;

import static dev.leapgate.servlet.JettyHarness.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Rejection;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.http.RejectionResponse;
import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.testing.RecordingStoreProvider;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LeapgateFilterTest {

    private JettyHarness jetty;

    @AfterEach
    void stop() throws Exception {
        if (jetty != null) {
            jetty.close();
        }
    }

    private JettyHarness start(String... params) throws Exception {
        Map<String, String> init = new java.util.LinkedHashMap<>();
        for (int i = 0; i < params.length; i += 2) {
            init.put(params[i], params[i + 1]);
        }
        jetty = new JettyHarness(init)
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .servlet("/api/boom", new TestServlets.Boom())
                .servlet("/api/forward", new TestServlets.Forward("/api/hello"))
                .servlet("/error", new TestServlets.ErrorPage())
                .servlet("/static/*", new TestServlets.Text("hello"));
        return jetty.start();
    }

    @Test
    void aFilterBuiltInCode_closesTheStoreItOpened_whenDestroyed_butNotAGateHandedToIt() {
        Map<String, String> settings =
                Map.of("store", "recording://test", "rule.api.match", "/api/**", "rule.api.limit", "5/1s");
        LeapgateFilter built = LeapgateFilter.builder()
                .config(ConfigParser.parse(settings, "test"))
                .build();
        RecordingStoreProvider.Store builtsStore =
                RecordingStoreProvider.OPENED.get(RecordingStoreProvider.OPENED.size() - 1);
        HttpGate handed = HttpGate.builder(ConfigParser.parse(settings, "test")).build();
        RecordingStoreProvider.Store handedsStore =
                RecordingStoreProvider.OPENED.get(RecordingStoreProvider.OPENED.size() - 1);

        built.destroy();
        LeapgateFilter.forGate(handed, BlockHandler.STANDARD).destroy();

        // Nobody else holds the gate the builder built: left open, its store (a Redis client and
        // its heartbeat thread) would outlive every undeployment of the application.
        assertThat(builtsStore.closed)
                .as("the store of the gate the filter's builder built")
                .isTrue();
        assertThat(handedsStore.closed).as("the store of the caller's gate").isFalse();
        handed.close();
    }

    @Test
    void requestMatchingNoRule_passesUntouched() throws Exception {
        start("rule.api.match", "/api/**", "rule.api.limit", "1/10s");

        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = jetty.get("/static/app.js");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("RateLimit")).isEmpty();
        }
        assertThat(jetty.stats("/api/**").admitted()).isZero();
    }

    @Test
    void pathSpellings_areOneResourceKey() throws Exception {
        start("rule.api.match", "GET /api/hello", "rule.api.limit", "2/10s");

        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);
        assertThat(jetty.get("/api/hello;jsessionid=abc").statusCode()).isEqualTo(200);
        assertThat(jetty.get("/api/hello/").statusCode()).isEqualTo(429);
    }

    @Test
    void exceptionFromTheChain_isCountedAndPropagatesToTheContainer_andTheErrorDispatchIsNotCountedAgain()
            throws Exception {
        start("rule.all.match", "/**", "rule.all.limit", "100/10s");

        HttpResponse<String> r = jetty.get("/api/boom");

        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(r.body()).isEqualTo("error page");
        StatsSnapshot m = jetty.stats("/**");
        assertThat(m.admitted())
                .as("the error dispatch to /error is not a second request")
                .isEqualTo(1);
        assertThat(m.failed()).isEqualTo(1);
        assertThat(m.inFlight()).isZero();
    }

    /**
     * A checked exception that the servlet's signature does not declare (thrown by code in another
     * JVM language, or through a "sneaky throw" as Lombok's {@code @SneakyThrows} writes): the
     * request failed as much as with any other exception.
     */
    @Test
    void anUndeclaredCheckedExceptionFromTheChain_isCountedAsAFailure_andPropagates() throws Exception {
        jetty = new JettyHarness(Map.of("rule.all.match", "/api/**", "rule.all.in-flight", "1"))
                .servlet("/api/sneaky", new HttpServlet() {
                    @Override
                    protected void service(HttpServletRequest req, HttpServletResponse resp) {
                        LeapgateFilterTest.<RuntimeException>sneakyThrow(new Exception("checked, undeclared"));
                    }
                })
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .servlet("/error", new TestServlets.ErrorPage())
                .start();

        assertThat(jetty.get("/api/sneaky").statusCode()).isEqualTo(500);

        StatsSnapshot m = jetty.stats("/api/**");
        assertThat(m.admitted()).isEqualTo(1);
        assertThat(m.failed()).as("failed").isEqualTo(1);
        assertThat(m.succeeded()).as("succeeded").isZero();
        assertThat(m.inFlight()).isZero();
        assertThat(jetty.get("/api/hello").statusCode()).as("the slot is back").isEqualTo(200);
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable e) throws E {
        throw (E) e;
    }

    /**
     * The adapter contract's {@code /own-fields}, in the other ways a servlet application writes the
     * fields: a filter before Leapgate's sets one, the servlet adds items one by one, and reads a
     * field (Leapgate's items in it) to write it back extended. Each field goes out as one line,
     * with Leapgate's items once.
     */
    @Test
    void theApplicationsRateLimitFields_beforeAndAfterLeapgates_goOutWithLeapgatesInOneLineEach() throws Exception {
        jetty = new JettyHarness(Map.of("rule.api.match", "/api/**", "rule.api.limit", "5/10s"))
                .servlet("/api/own", new HttpServlet() {
                    @Override
                    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                        resp.addHeader("RateLimit", "\"hourly\";r=99");
                        resp.addHeader("RateLimit", "\"daily\";r=999");
                        resp.setHeader("RateLimit-Policy", resp.getHeader("RateLimit-Policy") + ", \"daily\";q=1000");
                        resp.getWriter().write("own");
                    }
                });
        jetty.upstream((request, response, chain) -> {
            ((HttpServletResponse) response).setHeader("RateLimit-Policy", "\"gateway\";q=50");
            chain.doFilter(request, response);
        });
        jetty.start();

        HttpResponse<String> r = jetty.get("/api/own");

        assertThat(r.body()).isEqualTo("own");
        assertThat(r.headers().allValues("RateLimit-Policy"))
                .containsExactly("\"gateway\";q=50, \"api\";q=5;w=10, \"daily\";q=1000");
        assertThat(r.headers().allValues("RateLimit")).hasSize(1);
        assertThat(r.headers().firstValue("RateLimit").orElseThrow())
                .matches("\"hourly\";r=99, \"daily\";r=999, \"api\";r=4;t=\\d+");
    }

    /**
     * A filter before Leapgate's that took the response's writer, or wrote bytes still in the
     * buffer: the rejection's body was refused by the container (the stream after the writer; more
     * than the length it had set), and the client got a 500 where it should get the 429. So did
     * the status.
     */
    @Test
    void aRejection_andTheStatus_afterAnEarlierFilterTookTheWriterOrBufferedBytes_areAnsweredWhole() throws Exception {
        for (boolean writer : new boolean[] {true, false}) {
            jetty = new JettyHarness(Map.of(
                            "rule.api.match", "/api/**", "rule.api.limit", "1/1m", "status-path", "/leapgate/status"))
                    .servlet("/api/hello", new TestServlets.Text("hello"));
            jetty.upstream((request, response, chain) -> {
                if (writer) {
                    response.getWriter(); // taken, nothing written yet
                } else {
                    response.getOutputStream().write("PREFIX".getBytes(StandardCharsets.UTF_8));
                }
                chain.doFilter(request, response);
            });
            jetty.start();

            jetty.get("/api/hello");
            HttpResponse<String> rejected = jetty.get("/api/hello");
            HttpResponse<String> status = jetty.get("/leapgate/status");
            jetty.close();
            jetty = null;

            String what = writer ? "after the writer was taken" : "after bytes were buffered";
            assertThat(rejected.statusCode()).as(what).isEqualTo(429);
            assertThat(rejected.body())
                    .as(what)
                    .startsWith("{\"type\":\"about:blank\"")
                    .endsWith("}");
            assertThat(status.statusCode()).as(what).isEqualTo(200);
            assertThat(status.body()).as(what).startsWith("{").endsWith("}");
        }
    }

    /**
     * An application that resets the response (as Jersey and RESTEasy do before they answer an
     * unmapped exception with a 500) clears its own headers, not Leapgate's fields: the request
     * was admitted, and its response says so.
     */
    @Test
    void aResponseTheApplicationResets_keepsLeapgatesFields_andLosesItsOwn() throws Exception {
        jetty = new JettyHarness(Map.of("rule.api.match", "/api/**", "rule.api.limit", "5/10s"))
                .servlet("/api/reset", new HttpServlet() {
                    @Override
                    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                        resp.setHeader("X-Early", "1");
                        resp.addHeader("RateLimit", "\"hourly\";r=99");
                        resp.reset();
                        resp.setStatus(500);
                        resp.getWriter().write("failed");
                    }
                });
        jetty.start();

        HttpResponse<String> r = jetty.get("/api/reset");

        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(r.headers().firstValue("X-Early")).isEmpty();
        assertThat(r.headers().allValues("RateLimit-Policy")).containsExactly("\"api\";q=5;w=10");
        assertThat(r.headers().allValues("RateLimit"))
                .singleElement()
                .asString()
                .matches("\"api\";r=4;t=\\d+");
    }

    /**
     * Leapgate wraps the response only to combine its fields with the application's: where it
     * writes none on an admitted response (rate-limit-headers rejected or none, a request no rule
     * limits), the application's servlet gets the response the container made (as an earlier
     * filter saw it), not a wrapper of Leapgate's.
     */
    @ParameterizedTest(name = "rate-limit-headers = {0}, GET {1}: wrapped {2}")
    @CsvSource({
        "none, /api/hello, false",
        "rejected, /api/hello, false",
        "all, /static/x, false",
        "all, /api/hello, true"
    })
    void theApplication_getsTheContainersResponse_unlessLeapgateWritesFieldsOnIt(
            String setting, String path, boolean wrapped) throws Exception {
        AtomicReference<ServletResponse> container = new AtomicReference<>();
        AtomicReference<HttpServletResponse> application = new AtomicReference<>();
        HttpServlet servlet = new HttpServlet() {
            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                application.set(resp);
                resp.getWriter().write("hello");
            }
        };
        jetty = new JettyHarness(
                        Map.of("rate-limit-headers", setting, "rule.api.match", "/api/**", "rule.api.limit", "5/10s"))
                .servlet("/api/hello", servlet)
                .servlet("/static/*", servlet);
        jetty.upstream((request, response, chain) -> {
            container.set(response);
            chain.doFilter(request, response);
        });
        jetty.start();

        HttpResponse<String> r = jetty.get(path);

        assertThat(r.body()).isEqualTo("hello");
        if (wrapped) {
            assertThat(r.headers().firstValue("RateLimit"))
                    .hasValueSatisfying(v -> assertThat(v).startsWith("\"api\";r=4;"));
            assertThat(application.get()).isInstanceOf(RateLimitFieldsResponse.class);
        } else {
            assertThat(r.headers().firstValue("RateLimit")).isEmpty();
            assertThat(application.get()).isSameAs(container.get());
        }
    }

    /** An earlier filter's response wrapper that refuses a field must not cost the request its slot. */
    @Test
    void aResponseWrapperThatThrowsOnTheRateLimitFields_failsTheRequest_andItsSlotComesBack() throws Exception {
        jetty = new JettyHarness(Map.of("rule.slots.match", "/**", "rule.slots.in-flight", "1"))
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .servlet("/error", new TestServlets.ErrorPage());
        jetty.upstream((request, response, chain) -> chain.doFilter(
                request,
                new jakarta.servlet.http.HttpServletResponseWrapper(
                        (jakarta.servlet.http.HttpServletResponse) response) {
                    @Override
                    public void setHeader(String name, String value) {
                        if (name.startsWith("RateLimit")) {
                            throw new IllegalStateException("no rate-limit fields here");
                        }
                        super.setHeader(name, value);
                    }
                }));
        jetty.start();

        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(500);

        StatsSnapshot m = jetty.stats("/**");
        assertThat(m.admitted()).isEqualTo(1);
        assertThat(m.failed()).isEqualTo(1);
        assertThat(m.inFlight()).as("the slot came back").isZero();
    }

    /**
     * An earlier filter that forwards (as a URL-rewriting filter does) before the request reaches
     * Leapgate's: the forward is where Leapgate first sees the request, and it is limited there,
     * once.
     */
    @Test
    void aRequestForwardedByAnEarlierFilter_isLimitedWhereTheFilterFirstSeesIt() throws Exception {
        jetty = new JettyHarness(Map.of("rule.api.match", "/api/**", "rule.api.limit", "1/10s"))
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .servlet("/api/forward", new TestServlets.Forward("/api/hello"));
        jetty.upstream((request, response, chain) -> {
            jakarta.servlet.http.HttpServletRequest http = (jakarta.servlet.http.HttpServletRequest) request;
            if (http.getRequestURI().endsWith("/rewritten")) {
                request.getRequestDispatcher("/api/forward").forward(request, response);
            } else {
                chain.doFilter(request, response);
            }
        });
        jetty.start();

        assertThat(jetty.get("/rewritten").statusCode()).isEqualTo(200);
        assertThat(jetty.get("/rewritten").statusCode())
                .as("limited in the forward, where Leapgate first saw it")
                .isEqualTo(429);
        assertThat(jetty.stats("/api/**").admitted())
                .as("the forward to /api/forward and its forward to /api/hello are one request")
                .isEqualTo(1);
    }

    /** The async dispatch of a request the filter let through is the same request: not limited again. */
    @Test
    void asyncDispatch_ofAnAdmittedRequest_isNotLimitedAgain() throws Exception {
        jetty = new JettyHarness(Map.of("rule.all.match", "/**", "rule.all.limit", "1/10s"))
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .servlet("/api/later", new TestServlets.AsyncError("/api/hello")); // goes async, dispatches
        jetty.start();

        HttpResponse<String> r = jetty.get("/api/later");

        assertThat(r.statusCode())
                .as("the dispatch to /api/hello was not limited")
                .isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello");
        assertThat(jetty.stats("/**").admitted()).isEqualTo(1);
        assertThat(jetty.get("/api/hello").statusCode())
                .as("the one request used the limit")
                .isEqualTo(429);
    }

    /**
     * An earlier filter that goes asynchronous after the chain returned (here: to retry a 503) and
     * dispatches the request again: the request was let through in its REQUEST dispatch, so the
     * async dispatch is the same request, not limited again.
     */
    @Test
    void aRequestAnEarlierFilterDispatchesAsynchronouslyAfterTheChain_isNotLimitedAgain() throws Exception {
        jetty = new JettyHarness(Map.of("rule.all.match", "/**", "rule.all.limit", "1/10s"))
                .servlet("/api/flaky", new HttpServlet() {
                    @Override
                    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                        if (req.getAttribute("retried") == null) {
                            resp.setStatus(503);
                        } else {
                            resp.getWriter().write("ok");
                        }
                    }
                });
        jetty.upstream((request, response, chain) -> {
            chain.doFilter(request, response);
            HttpServletResponse http = (HttpServletResponse) response;
            if (http.getStatus() == 503 && request.getAttribute("retried") == null) {
                request.setAttribute("retried", Boolean.TRUE);
                http.reset();
                request.startAsync().dispatch();
            }
        });
        jetty.start();

        HttpResponse<String> r = jetty.get("/api/flaky");

        assertThat(r.statusCode())
                .as("the retry of the request let through was not limited")
                .isEqualTo(200);
        assertThat(r.body()).isEqualTo("ok");
        assertThat(jetty.stats("/**").admitted()).isEqualTo(1);
        assertThat(jetty.stats("/**").rejected()).isZero();
    }

    /**
     * An earlier filter that forwards after the chain returned (here a single-page application's
     * fallback: a 404 becomes the index page; an error-page filter does the same) forwards a request
     * the filter has let through already: the forward is the same request, not limited again. The
     * earlier filter is declared without async-supported, as web.xml declares filters by default, so
     * that the request cannot go asynchronous.
     */
    @Test
    void aForwardAnEarlierFilterMakesAfterTheChain_isNotLimitedAgain() throws Exception {
        jetty = new JettyHarness(Map.of("rule.all.match", "/**", "rule.all.limit", "1/10s"))
                .servlet("/index.html", new TestServlets.Text("index"))
                .servlet("/api/missing", new TestServlets.Status(404));
        jetty.upstream(
                (request, response, chain) -> {
                    chain.doFilter(request, response);
                    if (((HttpServletResponse) response).getStatus() == 404) {
                        response.resetBuffer();
                        ((HttpServletResponse) response).setStatus(200);
                        request.getRequestDispatcher("/index.html").forward(request, response);
                    }
                },
                false);
        jetty.start();

        HttpResponse<String> r = jetty.get("/api/missing");

        assertThat(r.statusCode())
                .as("the forward to the index page was not limited")
                .isEqualTo(200);
        assertThat(r.body()).isEqualTo("index");
        assertThat(jetty.stats("/**").admitted()).isEqualTo(1);
        assertThat(jetty.stats("/**").rejected()).isZero();
        assertThat(jetty.get("/api/missing").statusCode())
                .as("the one request used the limit")
                .isEqualTo(429);
    }

    /** Sends the status and fields of the standard rejection, and leaves the body to the application. */
    public static final class StatusOnlyHandler implements BlockHandler {
        @Override
        public void handle(
                HttpServletRequest request,
                HttpServletResponse response,
                Rejection rejection,
                RejectionResponse standard) {
            response.setStatus(standard.status());
            standard.headers().forEach(response::setHeader);
        }
    }

    /**
     * An earlier filter that renders every 4xx by forwarding to a page after the chain returned:
     * the forward of a rejected request is part of it, not a second request to reject (which would
     * count the rejection twice and answer with an empty body instead of the page).
     */
    @Test
    void aForwardAnEarlierFilterMakesAfterARejection_isNotLimitedAgain() throws Exception {
        jetty = new JettyHarness(Map.of(
                        "block-handler", StatusOnlyHandler.class.getName(),
                        "rule.all.match", "/**",
                        "rule.all.limit", "1/10s"))
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .servlet("/status-page", new HttpServlet() {
                    @Override
                    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                        resp.getWriter().write("page for " + resp.getStatus());
                    }
                });
        jetty.upstream(
                (request, response, chain) -> {
                    chain.doFilter(request, response);
                    if (((HttpServletResponse) response).getStatus() >= 400) {
                        request.getRequestDispatcher("/status-page").forward(request, response);
                    }
                },
                false);
        jetty.start();
        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);

        HttpResponse<String> r = jetty.get("/api/hello");

        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
        assertThat(r.body()).isEqualTo("page for 429");
        assertThat(jetty.stats("/**").admitted()).isEqualTo(1);
        assertThat(jetty.stats("/**").rejected()).as("one rejected request").isEqualTo(1);
    }

    /**
     * An earlier filter that retries a request refused with 429 or 503 (a retry filter; or one that
     * turns store-on-failure = closed into a retry) dispatches it again to the same URI, by a forward
     * or an async dispatch, after the chain returned: the resource it was refused, so it is refused
     * again, and the rejection counted once. It was served unlimited, with the rejection counted.
     */
    @ParameterizedTest(name = "asynchronously: {0}")
    @ValueSource(booleans = {false, true})
    void aRejectedRequestThatAnEarlierFilterRetries_isRejectedAgain(boolean async) throws Exception {
        // No body: a rejection with one is committed when written, and no filter can retry it.
        jetty = new JettyHarness(Map.of("rule.all.match", "/**", "rule.all.limit", "1/10s", "body", "none"))
                .servlet("/api/hello", new TestServlets.Text("hello"));
        jetty.upstream(
                (request, response, chain) -> {
                    chain.doFilter(request, response);
                    HttpServletResponse http = (HttpServletResponse) response;
                    if (http.getStatus() >= 429 && request.getAttribute("retried") == null) {
                        request.setAttribute("retried", Boolean.TRUE);
                        http.reset();
                        if (async) {
                            request.startAsync().dispatch();
                        } else {
                            request.getRequestDispatcher("/api/hello").forward(request, response);
                        }
                    }
                },
                async);
        jetty.start();
        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);

        HttpResponse<String> r = jetty.get("/api/hello");

        assertThat(r.statusCode()).as("the retry of the refused request").isEqualTo(429);
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
        assertThat(r.body()).isEmpty();
        assertThat(jetty.stats("/**").admitted()).isEqualTo(1);
        assertThat(jetty.stats("/**").rejected()).as("one rejected request").isEqualTo(1);
    }

    /** Renders the rejection by forwarding to a page of the application, as a JSP-based handler does. */
    public static final class ForwardingHandler implements BlockHandler {
        @Override
        public void handle(
                HttpServletRequest request,
                HttpServletResponse response,
                Rejection rejection,
                RejectionResponse standard)
                throws IOException {
            response.setStatus(standard.status());
            try {
                request.getRequestDispatcher("/blocked").forward(request, response);
            } catch (ServletException e) {
                throw new IOException(e);
            }
        }
    }

    /**
     * A block handler that forwards to a page: the forward is part of the rejected request, not a
     * request of its own to limit (rejected again, it would forward again, without end).
     */
    @Test
    void aBlockHandlerThatForwardsToAPage_answersWithThePage_andCountsOneRejection() throws Exception {
        jetty = new JettyHarness(Map.of(
                        "block-handler", ForwardingHandler.class.getName(),
                        "rule.all.match", "/**",
                        "rule.all.limit", "1/10s"))
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .servlet("/blocked", new TestServlets.Text("blocked page"));
        jetty.start();
        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);

        HttpResponse<String> r = jetty.get("/api/hello");

        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.body()).isEqualTo("blocked page");
        assertThat(jetty.stats("/**").admitted()).isEqualTo(1);
        assertThat(jetty.stats("/**").rejected()).isEqualTo(1);
    }

    @Test
    void forward_isNotCountedTwice() throws Exception {
        start("rule.api.match", "/api/**", "rule.api.limit", "1/10s");

        HttpResponse<String> r = jetty.get("/api/forward");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello");
        assertThat(jetty.stats("/api/**").admitted()).isEqualTo(1);
    }

    @Test
    void invalidInitParams_failTheFilterStart_namingEachKeyAndValue() throws Exception {
        jetty = new JettyHarness(Map.of("rule.api.match", "/api/**", "rule.api.limit", "ten/10s", "status", "200"))
                .servlet("/api/hello", new TestServlets.Text("hello"));
        Throwable failure = jetty.startExpectingFailure();

        assertThat(failure)
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("2 problems in init-params of filter 'leapgate'")
                .hasMessageContaining("rule.api.limit")
                .hasMessageContaining("'ten/10s'")
                .hasMessageContaining("status")
                .hasMessageContaining("was 200");
    }

    /** Jetty's context without a base resource stands for an application served from a packed archive. */
    @Test
    void aRelativeRulesFile_withoutAnApplicationDirectory_failsTheStart_ratherThanReadingAnotherFile() {
        jetty = new JettyHarness(Map.of("rules-file", "WEB-INF/leapgate-rules.properties"))
                .servlet("/api/hello", new TestServlets.Text("hello"));

        assertThat(jetty.startExpectingFailure())
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("1 problem in init-params of filter 'leapgate'")
                .hasMessageContaining("rules-file: WEB-INF/leapgate-rules.properties is relative, but the web"
                        + " application has no directory on disk");
    }

    /** A block handler for the test below: plain text, its own status. */
    public static final class TeapotHandler implements BlockHandler {
        @Override
        public void handle(
                HttpServletRequest request,
                HttpServletResponse response,
                Rejection rejection,
                RejectionResponse standard)
                throws IOException {
            response.setStatus(418);
            response.setHeader("Retry-After", standard.headers().get("Retry-After"));
            response.getWriter().write("slow down, " + rejection.rule());
        }
    }

    @Test
    void customBlockHandler_fromAnInitParam_writesTheRejection() throws Exception {
        start("block-handler", TeapotHandler.class.getName(), "rule.api.match", "/api/**", "rule.api.limit", "1/10s");
        jetty.get("/api/hello");

        HttpResponse<String> r = jetty.get("/api/hello");

        assertThat(r.statusCode()).isEqualTo(418);
        assertThat(r.body()).isEqualTo("slow down, api");
        assertThat(r.headers().firstValue("Retry-After")).hasValue("11");
    }

    /** Not a block handler. */
    public static final class NotAHandler {}

    /** A block handler without a public no-argument constructor. */
    public static final class HandlerWithArgument implements BlockHandler {
        public HandlerWithArgument(String page) {}

        @Override
        public void handle(HttpServletRequest q, HttpServletResponse r, Rejection j, RejectionResponse s) {}
    }

    /** A block handler whose constructor fails. */
    public static final class FailingHandler implements BlockHandler {
        public FailingHandler() {
            throw new IllegalStateException("template missing");
        }

        @Override
        public void handle(HttpServletRequest q, HttpServletResponse r, Rejection j, RejectionResponse s) {}
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(
            delimiter = '|',
            value = {
                "com.example.Missing | class 'com.example.Missing' was not found (java.lang.ClassNotFoundException:"
                        + " com.example.Missing); check the name and that its jar is in the application",
                "dev.leapgate.servlet.LeapgateFilterTest$NotAHandler | class"
                        + " 'dev.leapgate.servlet.LeapgateFilterTest$NotAHandler' is not a"
                        + " dev.leapgate.servlet.BlockHandler; implement it",
                "dev.leapgate.servlet.LeapgateFilterTest$HandlerWithArgument | class"
                        + " 'dev.leapgate.servlet.LeapgateFilterTest$HandlerWithArgument' has no public no-argument"
                        + " constructor; add one",
                "dev.leapgate.servlet.LeapgateFilterTest$FailingHandler | the constructor of"
                        + " 'dev.leapgate.servlet.LeapgateFilterTest$FailingHandler' threw"
                        + " java.lang.IllegalStateException: template missing"
            })
    void badBlockHandler_failsTheStart_sayingWhatIsWrong(String className, String message) throws Exception {
        jetty = new JettyHarness(Map.of("block-handler", className))
                .servlet("/api/hello", new TestServlets.Text("hello"));
        assertThat(jetty.startExpectingFailure()).hasMessage("init-param block-handler: " + message);
    }

    /** A bad block handler is named with the configuration's problems, not after they are fixed. */
    @Test
    void aBadBlockHandler_andABadRule_areReportedTogether() {
        jetty = new JettyHarness(Map.of(
                        "rule.api.match", "/api/**",
                        "rule.api.limit", "5/1min",
                        "block-handler", "com.example.Missing"))
                .servlet("/api/hello", new TestServlets.Text("hello"));

        assertThat(jetty.startExpectingFailure())
                .hasMessageStartingWith("2 problems in init-params of filter")
                .hasMessageContaining("rule.api.limit: '5/1min' is not a limit")
                .hasMessageContaining("block-handler: class 'com.example.Missing' was not found");
    }

    @Test
    void aBlockHandlerThatFailsTheStart_leavesNoStoreOpen() {
        int opened = RecordingStoreProvider.OPENED.size();
        jetty = new JettyHarness(Map.of(
                        "store", "recording://test",
                        "rule.api.match", "/api/**",
                        "rule.api.limit", "5/1s",
                        "block-handler", "com.example.Missing"))
                .servlet("/api/hello", new TestServlets.Text("hello"));

        assertThat(jetty.startExpectingFailure()).hasMessageContaining("init-param block-handler");

        // The container never destroys a filter whose init failed: a store (a Redis client and its
        // threads) left open would stay for the life of the JVM, once per failed deployment.
        assertThat(RecordingStoreProvider.OPENED.subList(opened, RecordingStoreProvider.OPENED.size()))
                .as("stores the refused configuration opened")
                .allSatisfy(store -> assertThat(store.closed).isTrue());
    }

    /**
     * Jetty keeps a filter instance it was given and initializes it again when the context starts
     * again (a context stopped and started in place, a hot redeploy): the restarted filter must
     * decide with a gate whose store is open, not with the one its destroy closed.
     */
    @Test
    void aFilterBuiltInCode_startedAgainAfterItsDestroy_decidesWithAnOpenStore() throws Exception {
        int opened = RecordingStoreProvider.OPENED.size();
        LeapgateFilter filter = LeapgateFilter.builder()
                .config(ConfigParser.parseProperties(
                        "store=recording://test\nrule.api.match=/api/**\nrule.api.limit=100/10s\n", "code"))
                .build();
        jetty = new JettyHarness(filter)
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .start();
        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);

        jetty.close(); // destroy(): the store is closed
        assertThat(jetty.startExpectingFailure()).isNull();

        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);
        assertThat(jetty.gate()).isSameAs(filter.gate());
        List<RecordingStoreProvider.Store> stores =
                RecordingStoreProvider.OPENED.subList(opened, RecordingStoreProvider.OPENED.size());
        assertThat(stores).as("stores opened by the two starts").hasSize(2);
        assertThat(stores.get(0).closed).as("the first start's store").isTrue();
        assertThat(stores.get(1).closed)
                .as("the store in use after the restart")
                .isFalse();
        jetty.close();
        assertThat(stores.get(1).closed)
                .as("the second start's store, after the second stop")
                .isTrue();
    }

    /**
     * A filter instance configured by init-params on its registration ({@code
     * ServletContext.addFilter(name, new LeapgateFilter())} and {@code setInitParameter}): Jetty
     * initializes the same instance again when the context starts again, and the filter reads its
     * init-params again rather than refusing them as those of a filter built in code.
     */
    @Test
    void aFilterInstanceWithInitParams_startsAgainAfterItsDestroy() throws Exception {
        int opened = RecordingStoreProvider.OPENED.size();
        LeapgateFilter filter = new LeapgateFilter();
        jetty = new JettyHarness(
                        filter,
                        Map.of("store", "recording://test", "rule.api.match", "/api/**", "rule.api.limit", "1/10s"))
                .servlet("/api/hello", new TestServlets.Text("hello"));
        jetty.start();
        HttpGate first = filter.gate();

        jetty.close();
        assertThat(jetty.startExpectingFailure()).as("the second start").isNull();

        assertThat(filter.gate()).isNotSameAs(first);
        assertThat(jetty.gate()).isSameAs(filter.gate());
        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);
        List<RecordingStoreProvider.Store> stores =
                RecordingStoreProvider.OPENED.subList(opened, RecordingStoreProvider.OPENED.size());
        assertThat(stores).hasSize(2);
        assertThat(stores.get(1).closed)
                .as("the store in use after the restart")
                .isFalse();
    }

    @Test
    void builtInCode_isRegisteredWithoutInitParams() throws Exception {
        LeapgateFilter filter = LeapgateFilter.builder()
                .config(ConfigParser.parseProperties("rule.api.match=/api/**\nrule.api.limit=1/10s\n", "code"))
                .build();
        jetty = new JettyHarness(filter)
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .start();

        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);
        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(429);
        assertThat(jetty.gate()).isSameAs(filter.gate());
    }

    /**
     * A filter built in code is configured by its builder; init-params on its registration would
     * not be read, and the rules they name would protect nothing: the start fails, naming them.
     */
    @Test
    void initParamsOnAFilterBuiltInCode_failTheStart_namingEachParam() {
        int opened = RecordingStoreProvider.OPENED.size();
        LeapgateFilter filter = LeapgateFilter.builder()
                .config(ConfigParser.parseProperties(
                        "store=recording://test\nrule.api.match=/api/**\nrule.api.limit=100/10s\n", "code"))
                .build();
        jetty = new JettyHarness(
                        filter,
                        Map.of(
                                "rule.login.match", "POST /login",
                                "rule.login.limit", "5/1m",
                                "block-handler", "com.example.Page"))
                .servlet("/login", new TestServlets.Text("welcome"));

        Throwable failure = jetty.startExpectingFailure();

        assertThat(failure)
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("filter 'leapgate'")
                .hasMessageContaining("rule.login.match")
                .hasMessageContaining("rule.login.limit")
                .hasMessageContaining("block-handler")
                .hasMessageContaining("built in code");
        assertThat(RecordingStoreProvider.OPENED.get(opened).closed)
                .as("the store of the gate the filter's builder built: the container never destroys a filter"
                        + " whose init failed")
                .isTrue();
    }

    /** A gate handed to the filter is the caller's: a start refused for init-params leaves it open. */
    @Test
    void initParamsOnAFilterForAGate_failTheStart_andLeaveTheGateOpen() {
        int opened = RecordingStoreProvider.OPENED.size();
        HttpGate gate = HttpGate.builder(ConfigParser.parseProperties(
                        "store=recording://test\nrule.api.match=/api/**\nrule.api.limit=100/10s\n", "code"))
                .build();
        jetty = new JettyHarness(
                        LeapgateFilter.forGate(gate, BlockHandler.STANDARD), Map.of("rule.login.limit", "5/1m"))
                .servlet("/login", new TestServlets.Text("welcome"));

        assertThat(jetty.startExpectingFailure()).hasMessageContaining("rule.login.limit");
        assertThat(RecordingStoreProvider.OPENED.get(opened).closed).isFalse();
        gate.close();
    }

    /**
     * Spring's DelegatingFilterProxy calls a filter bean's init only with targetFilterLifecycle =
     * true: a filter made with the no-argument constructor then has no gate. Its requests fail with
     * a message that says why and what to change, not a NullPointerException.
     */
    @Test
    void aFilterWhoseInitWasNeverCalled_failsItsRequests_sayingWhy() throws Exception {
        LeapgateFilter neverInitialized = new LeapgateFilter();
        java.util.concurrent.atomic.AtomicReference<Exception> thrown =
                new java.util.concurrent.atomic.AtomicReference<>();
        jetty = new JettyHarness(Map.of("rule.api.match", "/api/**", "rule.api.limit", "100/10s"))
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .servlet("/error", new TestServlets.ErrorPage());
        jetty.upstream((request, response, chain) -> {
            try {
                neverInitialized.doFilter(request, response, chain); // as a proxy that skips init
            } catch (IOException | ServletException | RuntimeException e) {
                thrown.set(e);
                throw e;
            }
        });
        jetty.start();

        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(500);
        assertThat(thrown.get())
                .isInstanceOf(ServletException.class)
                .hasMessageContaining("init")
                .hasMessageContaining("targetFilterLifecycle")
                .hasMessageContaining("LeapgateFilter.builder()");
    }

    @Test
    void malformedForwardingHeaders_neverCauseAnError() throws Exception {
        start(
                "trusted-proxies",
                "127.0.0.1, ::1",
                "rule.api.match",
                "/api/**",
                "rule.api.limit",
                "100/10s",
                "rule.api.scope",
                "per-origin");

        for (String garbage :
                new String[] {"", "unknown", ",,,", "[::1", "1.2.3.4:x", "\"quoted", "for=\"[", "999.9.9.9"}) {
            assertThat(jetty.get("/api/hello", "X-Forwarded-For", garbage).statusCode())
                    .as("X-Forwarded-For: %s", garbage)
                    .isEqualTo(200);
            assertThat(jetty.get("/api/hello", "Forwarded", garbage).statusCode())
                    .as("Forwarded: %s", garbage)
                    .isEqualTo(200);
        }
    }

    // ---- Asynchronous requests -------------------------------------------------------------

    /** Goes asynchronous and completes from another thread once released. */
    static final class AsyncComplete extends HttpServlet {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext async = req.startAsync();
            CompletableFuture.runAsync(() -> {
                try {
                    release.await(30, TimeUnit.SECONDS);
                    async.getResponse().getWriter().write("async");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                } finally {
                    async.complete();
                }
            });
        }
    }
    /** Goes asynchronous and dispatches to a servlet that throws. */
    @Test
    void asyncRequest_holdsItsSlotUntilItCompletes() throws Exception {
        AsyncComplete servlet = new AsyncComplete();
        jetty = new JettyHarness(Map.of("rule.slots.match", "/async/**", "rule.slots.in-flight", "1"))
                .servlet("/async/complete", servlet)
                .servlet("/async/other", new TestServlets.Text("hello"))
                .start();

        CompletableFuture<HttpResponse<String>> first = jetty.client.sendAsync(
                java.net.http.HttpRequest.newBuilder(jetty.uri("/async/complete"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        eventually(() -> jetty.stats("/async/**").inFlight() == 1);
        assertThat(jetty.get("/async/other").statusCode())
                .as("the async request still holds the slot")
                .isEqualTo(429);

        servlet.release.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS).body()).isEqualTo("async");
        eventually(() -> jetty.stats("/async/**").inFlight() == 0);

        assertThat(jetty.get("/async/other").statusCode()).isEqualTo(200);
        StatsSnapshot m = jetty.stats("/async/**");
        assertThat(m.succeeded()).isEqualTo(2);
        assertThat(m.failed()).isZero();
    }

    @Test
    void asyncTimeout_andAsyncError_releaseTheSlot_andCountAsExceptions() throws Exception {
        jetty = new JettyHarness(Map.of("rule.slots.match", "/api/**", "rule.slots.in-flight", "1"))
                .servlet("/api/timeout", new TestServlets.AsyncTimeout(100, false))
                .servlet("/api/async-error", new TestServlets.AsyncError("/api/boom"))
                .servlet("/api/boom", new TestServlets.Boom())
                .servlet("/api/hello", new TestServlets.Text("hello"))
                .servlet("/error", new TestServlets.ErrorPage())
                .start();

        assertThat(jetty.get("/api/timeout").statusCode())
                .as("answered by the container")
                .isNotEqualTo(200);
        eventually(() -> jetty.stats("/api/**").inFlight() == 0);
        assertThat(jetty.get("/api/async-error").statusCode()).isEqualTo(500);
        eventually(() -> jetty.stats("/api/**").inFlight() == 0);

        StatsSnapshot m = jetty.stats("/api/**");
        assertThat(m.failed()).isEqualTo(2);
        assertThat(m.admitted())
                .as("the async dispatch is not a second request")
                .isEqualTo(2);
        assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);
    }

    /**
     * An earlier filter that runs the rest of the chain on another thread ({@code
     * AsyncContext.start}) and gives the request 200 ms: the container times the request out, answers
     * and ends it while the servlet still runs. When the chain returns, the request no longer
     * answers (Jetty throws from it); the slot must still come back.
     */
    @Test
    void aChainThatReturnsAfterTheContainerEndedTheRequest_givesItsSlotBack() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        jetty = new JettyHarness(Map.of("rule.slots.match", "/api/**", "rule.slots.in-flight", "1"))
                .servlet("/api/held", new HttpServlet() {
                    @Override
                    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                        arrived.countDown();
                        try {
                            release.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        resp.getWriter().write("late");
                    }
                })
                .servlet("/error", new TestServlets.ErrorPage());
        jetty.upstream((request, response, chain) -> {
            AsyncContext async = request.startAsync();
            async.setTimeout(200);
            async.start(() -> {
                try {
                    chain.doFilter(request, response);
                    async.complete();
                } catch (Exception e) {
                    // The container ended the request: nothing left to answer.
                }
            });
        });
        jetty.start();

        HttpResponse<String> timedOut = jetty.get("/api/held");

        assertThat(timedOut.statusCode())
                .as("answered by the container's timeout")
                .isEqualTo(500);
        assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(jetty.stats("/api/**").inFlight())
                .as("the servlet still runs")
                .isEqualTo(1);
        release.countDown();
        eventually(() -> jetty.stats("/api/**").inFlight() == 0);
        assertThat(jetty.stats("/api/**").failed()).isEqualTo(1);
    }

    @Test
    void ruleWrittenWithTheContextPath_isReportedAtStart_asOneThatCanNeverMatch() throws Exception {
        start(
                "rule.login.match", "POST /app/login",
                "rule.login.limit", "2/1m",
                "rule.api.match", "/api/**",
                "rule.api.limit", "100/1m",
                "rule.all.match", "/app/**",
                "rule.all.limit", "100/1m");

        assertThat(jetty.gate().warnings())
                .containsExactlyInAnyOrder(
                        "rule 'login' (POST /app/login) can never match: rules match the path below the context path"
                                + " /app, so it applies to /app/app/login; write POST /login",
                        "rule 'all' (/app/**) can never match: rules match the path below the context path /app, so"
                                + " it applies to /app/app/**; write /**");
        // What the warning says: /app/login is the path /login here, which the rule does not match.
        for (int i = 0; i < 3; i++) {
            assertThat(jetty.get("/api/hello").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void ruleStartingLikeTheContextPath_isNotReported_whenTheApplicationServesSuchPaths() throws Exception {
        jetty = new JettyHarness(Map.of("rule.nested.match", "/app/x/**", "rule.nested.limit", "1/1m"))
                .servlet("/app/x/*", new TestServlets.Text("nested"));
        jetty.start();

        assertThat(jetty.gate().warnings()).isEmpty();
        assertThat(jetty.get("/app/x/1").statusCode()).isEqualTo(200);
        assertThat(jetty.get("/app/x/1").statusCode())
                .as("the rule applies below the context path")
                .isEqualTo(429);
    }
}
