package dev.leapgate.servlet;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.testing.AdapterContract;
import java.net.URI;
import java.util.Map;

/**
 * The adapter contract ({@link AdapterContract}) for the servlet filter: init-params on Jetty 12,
 * the endpoints as servlets. The web.xml suite of {@code integration-tests} runs the filter on
 * Tomcat too.
 */
class ServletFilterContractTest extends AdapterContract {

    @Override
    protected App start(Map<String, String> settings, ManualClock clock) throws Exception {
        JettyHarness jetty = new JettyHarness(settings, clock)
                .servlet("/ok", new TestServlets.Text("ok"))
                .servlet("/server-error", new TestServlets.Status(503))
                .servlet("/throws", new TestServlets.Boom())
                .servlet("/not-found", new TestServlets.Status(404))
                .servlet("/error", new TestServlets.ErrorPage())
                .servlet("/own-fields", new TestServlets.OwnRateLimitFields(OWN_POLICY, OWN_RATE_LIMIT));
        Throwable failure = jetty.startExpectingFailure();
        if (failure != null) {
            jetty.close();
            throw failure instanceof Exception e ? e : new IllegalStateException(failure);
        }
        return new App() {
            @Override
            public URI uri(String path) {
                return jetty.uri(path);
            }

            @Override
            public HttpGate gate() {
                return jetty.gate();
            }

            @Override
            public void close() throws Exception {
                jetty.close();
            }
        };
    }
}
