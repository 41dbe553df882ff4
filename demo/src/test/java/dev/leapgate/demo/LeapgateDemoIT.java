package dev.leapgate.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    /**
     * The README's "whole rejection" of the demo (after seven greetings, {@code curl -i .../hello})
     * shows the header fields the demo sends: the same names, and the same values where they do
     * not depend on the moment ({@code Retry-After} and {@code t} do); the container's own
     * {@code Server} and {@code Date} aside.
     */
    @Test
    void readmesWholeRejection_showsTheFieldsTheDemoSends() throws Exception {
        String readme = Files.readString(Path.of("../README.md"), StandardCharsets.UTF_8);
        Matcher block = Pattern.compile("(?s)```\n\\$ curl -i http://127\\.0\\.0\\.1:8080/hello\n(.*?)\n\n")
                .matcher(readme);
        assertThat(block.find()).as("the README's whole rejection").isTrue();
        Map<String, String> shown = new TreeMap<>();
        String[] lines = block.group(1).split("\n");
        assertThat(lines[0]).isEqualTo("HTTP/1.1 429 Too Many Requests");
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            shown.put(
                    lines[i].substring(0, colon).toLowerCase(Locale.ROOT),
                    lines[i].substring(colon + 1).strip());
        }

        Server server = LeapgateDemo.start("127.0.0.1", 0, Path.of("src/main/webapp"));
        try {
            HttpClient client = HttpClient.newHttpClient();
            HttpRequest hello = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + LeapgateDemo.port(server) + "/hello"))
                    .build();
            HttpResponse<String> rejection = null;
            for (int i = 0; i < 8; i++) {
                rejection = client.send(hello, HttpResponse.BodyHandlers.ofString());
            }

            assertThat(rejection.statusCode()).isEqualTo(429);
            Map<String, String> sent = new TreeMap<>();
            rejection.headers().map().forEach((name, values) -> sent.put(name.toLowerCase(Locale.ROOT), values.get(0)));
            sent.keySet().removeAll(Set.of("server", "date"));
            assertThat(shown.keySet()).isEqualTo(sent.keySet());
            for (String name : Set.of("ratelimit-policy", "cache-control", "content-type")) {
                assertThat(shown.get(name)).as(name).isEqualTo(sent.get(name));
            }
        } finally {
            server.stop();
        }
    }

    /**
     * 8080 is often taken on a developer's machine: the README's first command then says which
     * port and how to choose another, instead of Jetty's stack trace ("Failed to bind to ...").
     */
    @Test
    void demo_onAPortInUse_saysSo_andHowToChooseAnother() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();

            IOException e = catchThrowableOfType(
                    IOException.class, () -> LeapgateDemo.start("127.0.0.1", port, Path.of("src/main/webapp")));

            assertThat(e)
                    .hasMessage("127.0.0.1:" + port + " is in use (another server listens there): start the demo on"
                            + " another port with -Dport=9090 or PORT=9090 (0 picks a free one)");
        }
    }
}
