package dev.leapgate.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.ManualClock;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.testing.JavaSnippets;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The README's {@code HtmlRejection} block handler, compiled from the README and run in the
 * filter: the page, with the standard status and fields, for a rate limit, a denied origin and a
 * shared store that could not decide.
 */
class ReadmeBlockHandlerTest {

    @Test
    void theReadmesHtmlRejection_answersWithThePageAndTheStandardFields() throws Exception {
        String snippet = JavaSnippets.of(JavaSnippets.document("README.md")).stream()
                .filter(s -> JavaSnippets.typeName(s).equals("HtmlRejection"))
                .findFirst()
                .orElseThrow();
        BlockHandler handler = (BlockHandler) JavaSnippets.compile(List.of(snippet))
                .loadClass("HtmlRejection")
                .getConstructor()
                .newInstance();
        LeapgateFilter filter = LeapgateFilter.builder()
                .config(ConfigParser.parse(
                        Map.of(
                                "rule.hello.match", "GET /hello",
                                "rule.hello.limit", "1/10s",
                                "rule.hello.store", "local",
                                // a store that never decides: the rule answers 503
                                "store", "recording://readme.example",
                                "rule.stored.match", "GET /stored",
                                "rule.stored.limit", "5/1h",
                                "rule.stored.store-on-failure", "closed",
                                "trusted-proxies", "127.0.0.1",
                                "deny", "192.0.2.1"),
                        "test"))
                .clock(new ManualClock()) // the retry times below, whatever time the requests take
                .blockHandler(handler)
                .build();

        try (JettyHarness jetty = new JettyHarness(filter)
                .servlet("/hello", new TestServlets.Text("hello"))
                .servlet("/stored", new TestServlets.Text("stored"))) {
            jetty.start();
            assertThat(jetty.get("/hello").statusCode()).isEqualTo(200);

            HttpResponse<String> rejected = jetty.get("/hello");

            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.headers().firstValue("Content-Type")).hasValue("text/html;charset=utf-8");
            assertThat(rejected.headers().firstValue("Retry-After"))
                    .hasValue("11"); // the strict window: 10 s, plus the bucket it began in
            assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"hello\";r=0;t=11");
            assertThat(rejected.body()).isEqualTo("<p>Too many requests (hello). Try again in 11 s.</p>");
            HttpResponse<String> denied = jetty.get("/hello", "X-Forwarded-For", "192.0.2.1");
            assertThat(denied.statusCode()).isEqualTo(403);
            assertThat(denied.headers().firstValue("Retry-After")).isEmpty();
            assertThat(denied.body()).isEqualTo("<p>Access denied.</p>");
            // Not "Too many requests": the client sent no more than allowed.
            HttpResponse<String> unavailable = jetty.get("/stored");
            assertThat(unavailable.statusCode()).isEqualTo(503);
            assertThat(unavailable.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(unavailable.body()).isEqualTo("<p>Service unavailable. Try again in 1 s.</p>");
        }
    }
}
