package dev.leapgate.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;

/** The demo starts on a free port from its web.xml and rules file, answers, is limited, and stops. */
class LeapgateDemoIT {

    @Test
    void demo_startsOnAFreePort_answersWithRateLimitFields_andStops() throws Exception {
        Server server = LeapgateDemo.start("127.0.0.1", 0, Path.of("src/main/webapp"));
        try {
            int port = LeapgateDemo.port(server);
            assertThat(port).isPositive();
            assertThat(LeapgateDemo.rulesFile(server))
                    .hasValueSatisfying(
                            file -> assertThat(file).endsWith(Path.of("WEB-INF/leapgate-rules.properties")));
            HttpClient client = HttpClient.newHttpClient();

            HttpResponse<String> hello = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> item = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/items/1/stock"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(hello.statusCode()).isEqualTo(200);
            assertThat(hello.headers().firstValue("RateLimit-Policy")).hasValue("\"hello\";q=5;w=10");
            assertThat(item.statusCode()).isEqualTo(200);
            assertThat(item.body()).isEqualTo("kettle: 7 in stock\n");
            assertThat(item.headers().firstValue("RateLimit-Policy"))
                    .hasValueSatisfying(policy -> assertThat(policy)
                            .contains("\"api-per-ip\";q=20;w=10")
                            .contains("\"api-all\";q=100;w=10"));
        } finally {
            server.stop();
        }
        assertThat(server.isStopped()).isTrue();
    }
}
