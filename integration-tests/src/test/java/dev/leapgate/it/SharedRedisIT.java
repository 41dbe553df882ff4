package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.redis.RedisProcess;
import dev.leapgate.stats.StoreStats;
import dev.leapgate.testing.Together;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two servers, a Jetty and a Tomcat, each protecting the test application with the servlet filter
 * of its web.xml, and both web.xml files pointing {@code store} at one real Redis, as the README's
 * "Several instances" tells a user to: the limit holds for the two together, exactly, under
 * concurrent requests to both, and each client keeps a quota of its own.
 */
class SharedRedisIT {

    private static final String RULES = """
            rule.greet-per-ip.match = GET /hello
            rule.greet-per-ip.limit = 20/1m
            rule.greet-per-ip.scope = per-origin
            """;

    private static RedisProcess redis;
    private static TestWebApp jetty;
    private static TestWebApp tomcat;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start();
        jetty = TestWebApp.withRules(RULES)
                .on(Container.JETTY, "")
                .editDescriptor(SharedRedisIT::withStore)
                .start();
        tomcat = TestWebApp.withRules(RULES)
                .on(Container.TOMCAT, "/app")
                .editDescriptor(SharedRedisIT::withStore)
                .start();
    }

    /** The web.xml with the filter's {@code store} (and a time budget a loaded CI machine keeps). */
    private static String withStore(String webXml) {
        int anchor = webXml.indexOf("<param-name>trusted-proxies</param-name>");
        if (anchor < 0) {
            throw new IllegalStateException("web.xml no longer has the trusted-proxies init-param");
        }
        int at = webXml.indexOf("</init-param>", anchor) + "</init-param>".length();
        return webXml.substring(0, at)
                + param("store", redis.uri())
                + param("store-timeout", "2s")
                + param("store-on-failure", "closed")
                + webXml.substring(at);
    }

    private static String param(String name, String value) {
        return "\n    <init-param>\n      <param-name>" + name + "</param-name>\n      <param-value>" + value
                + "</param-value>\n    </init-param>";
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (tomcat != null) {
                tomcat.close();
            }
            if (jetty != null) {
                jetty.close();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    @Test
    void concurrentRequestsToBothServers_admitExactlyTheLimitBetweenThem() throws Exception {
        String client = "203.0.113.60";
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        AtomicInteger[] perServer = {new AtomicInteger(), new AtomicInteger()};
        Together.run(8, id -> {
            for (int i = 0; i < 20; i++) {
                int server = (id + i) % 2;
                int status = get(server == 0 ? jetty : tomcat, client).statusCode();
                if (status == 200) {
                    admitted.incrementAndGet();
                    perServer[server].incrementAndGet();
                } else if (status == 429) {
                    rejected.incrementAndGet();
                } else {
                    other.incrementAndGet();
                }
            }
        });

        assertThat(admitted.get()).as("admitted by the two servers together").isEqualTo(20);
        assertThat(rejected.get()).isEqualTo(160 - 20);
        assertThat(other.get()).isZero();
        assertThat(perServer[0].get()).as("admitted by Jetty").isPositive();
        assertThat(perServer[1].get()).as("admitted by Tomcat").isPositive();

        HttpResponse<String> refused = get(tomcat, client);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("RateLimit"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("\"greet-per-ip\";r=0;t="));
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(get(jetty, "198.51.100.61").statusCode())
                .as("another client, its own quota")
                .isEqualTo(200);
        for (TestWebApp web : new TestWebApp[] {jetty, tomcat}) {
            StoreStats stats = web.gate().store("greet-per-ip").orElseThrow();
            assertThat(stats.available()).isTrue();
            assertThat(stats.decidedWithoutStore())
                    .as("every decision made in Redis")
                    .isZero();
        }
    }

    private static HttpResponse<String> get(TestWebApp web, String client) {
        try {
            return web.getFor(client, "/hello");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
