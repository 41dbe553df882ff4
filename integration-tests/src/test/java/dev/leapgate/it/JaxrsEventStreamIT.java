package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.it.app.ItemStreams;
import dev.leapgate.stats.ResourceStats;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Streams of server-sent events through the JAX-RS provider on Jersey, deployed from web.xml in
 * each container: each open stream holds its request's in-flight slot until it closes, so the
 * web.xml's {@code items-in-flight} rule (4) bounds the streams open, and a request beside four
 * open streams is rejected. The streams send their first event from the application's thread at
 * once, racing the start of their response. The same for Jersey's {@code ChunkedOutput}, whose
 * asynchronous cycle Jersey starts after Leapgate's response filter has run.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JaxrsEventStreamIT {

    private TestWebApp web;

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        web = TestWebApp.withRules("rules = none\n").on(container, contextPath).start(); // the provider's rules only
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    @Test
    void openStreams_holdTheirInFlightSlots_untilTheyClose() throws Exception {
        fourOpen_holdTheirSlots_untilTheyClose("events");
    }

    @Test
    void openChunkedOutputs_holdTheirInFlightSlots_untilTheyClose() throws Exception {
        fourOpen_holdTheirSlots_untilTheyClose("chunks");
    }

    /** Opens four streams of an item's prices ({@code /api/items/<id>/<kind>}), holds them open, then closes them. */
    private void fourOpen_holdTheirSlots_untilTheyClose(String kind) throws Exception {
        ResourceStats items = web.jaxrsResource("/items/**");
        ItemStreams.expect(4);
        List<CompletableFuture<HttpResponse<String>>> streams = new ArrayList<>();
        try {
            for (int id = 1; id <= 4; id++) {
                streams.add(web.getAsync("/api/items/" + id + "/" + kind));
            }
            assertThat(ItemStreams.opened.await(30, TimeUnit.SECONDS))
                    .as("four streams open")
                    .isTrue();
            assertThat(items.inFlight()).as("in flight").isEqualTo(4);
            assertThat(web.get("/api/items/5").statusCode())
                    .as("a request beside four open streams, over in-flight 4")
                    .isEqualTo(429);
        } finally {
            ItemStreams.close.countDown();
        }
        for (CompletableFuture<HttpResponse<String>> stream : streams) {
            HttpResponse<String> streamed = stream.get(30, TimeUnit.SECONDS);
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(streamed.body()).contains("costs 10 EUR").contains("costs 11 EUR");
        }
        TestWebApp.eventually(() -> items.inFlight() == 0);
        assertThat(web.get("/api/items/5").statusCode())
                .as("once the streams closed")
                .isEqualTo(200);
    }
}
