package dev.leapgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.leapgate.ManualClock;
import dev.leapgate.http.HttpGate;
import dev.leapgate.stats.StatsSnapshot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * What every adapter of Leapgate to an HTTP framework must do, over real HTTP, written once: the
 * servlet filter and the JAX-RS provider each run it (as every runtime and starter to come will), by
 * extending this class and deploying the application it describes. Packaged in core's test-jar.
 *
 * <p><b>The application.</b> {@link #start} deploys, on a free loopback port, an application with
 * these endpoints, whose rules key by the paths below (a route template equal to the path):
 *
 * <ul>
 *   <li>{@code GET /ok}: 200, body {@code ok};
 *   <li>{@code GET /server-error}: a 503 response the application writes itself;
 *   <li>{@code GET /throws}: an unchecked exception escapes the application (the framework or the
 *       container answers 500);
 *   <li>{@code GET /not-found}: a 404 the application answers (mapped from an exception, where the
 *       framework maps exceptions): the server doing its job, not a failure;
 *   <li>{@code GET /own-fields}: 200, body {@code ok}, with rate-limit fields of the application's
 *       own, as the framework's users set header fields (the servlet endpoint replaces one with
 *       {@code setHeader} and adds the other with {@code addHeader}): {@code RateLimit-Policy:
 *       "daily";q=1000;w=86400} and {@code RateLimit: "daily";r=999;t=3600} ({@link #OWN_POLICY},
 *       {@link #OWN_RATE_LIMIT}).
 * </ul>
 *
 * <p>Leapgate is configured by the settings given, as the adapter's users configure it (init-params,
 * {@code leapgate.*} properties, ...), and reads time from the {@link ManualClock} given.
 */
public abstract class AdapterContract {

    /** The {@code RateLimit-Policy} value that {@code GET /own-fields} sets. */
    public static final String OWN_POLICY = "\"daily\";q=1000;w=86400";
    /** The {@code RateLimit} value that {@code GET /own-fields} sets. */
    public static final String OWN_RATE_LIMIT = "\"daily\";r=999;t=3600";

    /** A running application. */
    protected interface App extends AutoCloseable {
        /** The address of {@code path} (starting with {@code /}) in the application. */
        URI uri(String path);

        /** The application's gate. */
        HttpGate gate();
    }

    /**
     * Deploys and starts the application with {@code settings} (Leapgate's keys, without any
     * prefix the adapter adds), reading time from {@code clock}.
     *
     * @throws Exception when it cannot start, as for invalid settings
     */
    protected abstract App start(Map<String, String> settings, ManualClock clock) throws Exception;

    private static Map<String, String> settings(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            settings.put(keyValues[i], keyValues[i + 1]);
        }
        return settings;
    }

    /**
     * GET with header name, value pairs, from a client of its own: never on a connection that
     * served an earlier request (a framework may leave a stray response on a connection whose
     * request ended in an exception, and the JDK client cannot be told to close it without a
     * system property).
     */
    private static HttpResponse<String> get(App app, String path, String... headers) throws Exception {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        HttpRequest.Builder request = HttpRequest.newBuilder(app.uri(path)).timeout(Duration.ofSeconds(30));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Waits up to 10 s for what happens just after a response is sent (a completion listener). */
    private static void eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("condition not met within 10 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Test
    void overItsLimit_aClientGetsTheStandardRejection_exactly() throws Exception {
        ManualClock clock = new ManualClock();
        try (App app = start(
                settings(
                        "rule.ok-per-ip.match", "GET /ok",
                        "rule.ok-per-ip.limit", "2/1m",
                        "rule.ok-per-ip.scope", "per-origin"),
                clock)) {
            clock.advance(Duration.ofMillis(1_500)); // into the first 6 s bucket: it leaves the window at 66 s

            for (int remaining = 1; remaining >= 0; remaining--) {
                HttpResponse<String> admitted = get(app, "/ok");
                assertThat(admitted.statusCode()).isEqualTo(200);
                assertThat(admitted.body()).isEqualTo("ok");
                assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"ok-per-ip\";q=2;w=60");
                assertThat(admitted.headers().firstValue("RateLimit"))
                        .hasValue("\"ok-per-ip\";r=" + remaining + ";t=65");
            }
            HttpResponse<String> rejected = get(app, "/ok");

            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValue("65");
            assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"ok-per-ip\";q=2;w=60");
            assertThat(rejected.headers().firstValue("RateLimit")).hasValue("\"ok-per-ip\";r=0;t=65");
            assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(rejected.body())
                    .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                            + "\"detail\":\"Rule 'ok-per-ip' rejected the request: limit exceeded. Retry after 65 s.\","
                            + "\"rule\":\"ok-per-ip\",\"retryAfter\":65}");
            clock.advance(Duration.ofSeconds(65));
            assertThat(get(app, "/ok").statusCode()).as("the window moved on").isEqualTo(200);
        }
    }

    /**
     * While the shared store cannot decide (here one that never does, {@link
     * RecordingStoreProvider}), a rule under {@code store-on-failure = closed} answers 503 with
     * {@code Retry-After: 1} and no rate-limit fields, whatever the configured {@code status}; a rule
     * under {@code open} lets the request pass and shows no quota of its own (the application's
     * fields stay). Every adapter takes the status from the gate's answer.
     */
    @Test
    void whileTheStoreCannotDecide_closedAnswers503_andOpenShowsNoQuota() throws Exception {
        ManualClock clock = new ManualClock();
        try (App app = start(
                settings(
                        "store", "recording://contract.example",
                        "status", "429",
                        "rule.ok-closed.match", "GET /ok",
                        "rule.ok-closed.limit", "5/1h",
                        "rule.ok-closed.store-on-failure", "closed",
                        "rule.own-open.match", "GET /own-fields",
                        "rule.own-open.limit", "5/1h",
                        "rule.own-open.store-on-failure", "open"),
                clock)) {
            HttpResponse<String> rejected = get(app, "/ok");
            assertThat(rejected.statusCode()).isEqualTo(503);
            assertThat(rejected.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(rejected.headers().firstValue("Cache-Control")).hasValue("no-store");
            assertThat(rejected.headers().firstValue("RateLimit")).isEmpty();
            assertThat(rejected.headers().firstValue("RateLimit-Policy")).isEmpty();
            assertThat(rejected.body())
                    .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
                            + "\"detail\":\"Rule 'ok-closed' could not decide: shared store unavailable."
                            + " Retry after 1 s.\",\"rule\":\"ok-closed\",\"retryAfter\":1}");

            HttpResponse<String> passed = get(app, "/own-fields");
            assertThat(passed.statusCode()).isEqualTo(200);
            assertThat(passed.headers().allValues("RateLimit-Policy")).containsExactly(OWN_POLICY);
            assertThat(passed.headers().allValues("RateLimit")).containsExactly(OWN_RATE_LIMIT);
        }
    }

    @Test
    void anApplicationsOwnRateLimitFields_areKept_withLeapgatesItemsAfterThem_inOneFieldLineEach() throws Exception {
        ManualClock clock = new ManualClock();
        try (App app = start(
                settings(
                        "rule.per-ip.match", "GET /own-fields",
                        "rule.per-ip.limit", "2/1m",
                        "rule.per-ip.scope", "per-origin"),
                clock)) {
            clock.advance(Duration.ofMillis(1_500)); // into the first 6 s bucket: it leaves the window at 66 s

            for (int remaining = 1; remaining >= 0; remaining--) {
                HttpResponse<String> admitted = get(app, "/own-fields");
                assertThat(admitted.statusCode()).isEqualTo(200);
                assertThat(admitted.body()).isEqualTo("ok");
                assertThat(admitted.headers().allValues("RateLimit-Policy"))
                        .as("the application's items, then Leapgate's, in one field line")
                        .containsExactly(OWN_POLICY + ", \"per-ip\";q=2;w=60");
                assertThat(admitted.headers().allValues("RateLimit"))
                        .containsExactly(OWN_RATE_LIMIT + ", \"per-ip\";r=" + remaining + ";t=65");
            }
            HttpResponse<String> rejected = get(app, "/own-fields");

            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(rejected.headers().allValues("RateLimit-Policy"))
                    .as("a rejection is Leapgate's alone: the application never ran")
                    .containsExactly("\"per-ip\";q=2;w=60");
            assertThat(rejected.headers().allValues("RateLimit")).containsExactly("\"per-ip\";r=0;t=65");
            assertThat(rejected.headers().allValues("Retry-After")).containsExactly("65");
        }
    }

    @Test
    void everyWayARequestEnds_givesItsSlotBack_andOnlyNoResponseOr5xxIsAFailure() throws Exception {
        try (App app = start(
                settings("rule.one-at-a-time.match", "/**", "rule.one-at-a-time.in-flight", "1"), new ManualClock())) {
            List<String> paths = List.of("/ok", "/server-error", "/throws", "/not-found", "/ok", "/throws", "/ok");
            for (String path : paths) {
                HttpResponse<String> response = get(app, path);
                assertThat(response.statusCode()).as(path).isNotEqualTo(429);
                eventually(() -> app.gate().stats("/**").orElseThrow().inFlight() == 0);
            }

            StatsSnapshot stats = app.gate().stats("/**").orElseThrow().lastMinute();
            assertThat(stats.admitted()).isEqualTo(paths.size());
            assertThat(stats.rejected()).isZero();
            assertThat(stats.succeeded()).as("200 and 404").isEqualTo(4);
            assertThat(stats.failed()).as("503 and the exceptions").isEqualTo(3);
        }
    }

    @Test
    void forwardedFor_isBelievedFromATrustedProxyOnly() throws Exception {
        String[] perClient = {
            "rule.ok-per-ip.match", "GET /ok", "rule.ok-per-ip.limit", "1/1m", "rule.ok-per-ip.scope", "per-origin"
        };
        Map<String, String> behindProxy = settings(perClient);
        behindProxy.put("trusted-proxies", "127.0.0.1");
        try (App app = start(behindProxy, new ManualClock())) {
            assertThat(get(app, "/ok", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(200);
            assertThat(get(app, "/ok", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(429);
            assertThat(get(app, "/ok", "X-Forwarded-For", "203.0.113.2").statusCode())
                    .as("another client behind the proxy")
                    .isEqualTo(200);
            assertThat(get(app, "/ok", "X-Forwarded-For", "192.0.2.1, 203.0.113.1")
                            .statusCode())
                    .as("what a client prepends is not its address: the proxy appended 203.0.113.1")
                    .isEqualTo(429);
        }
        try (App app = start(settings(perClient), new ManualClock())) {
            assertThat(get(app, "/ok", "X-Forwarded-For", "203.0.113.1").statusCode())
                    .isEqualTo(200);
            assertThat(get(app, "/ok", "X-Forwarded-For", "203.0.113.2").statusCode())
                    .as("no trusted proxy: the peer is the client, whatever it forwards")
                    .isEqualTo(429);
        }
    }

    @Test
    void invalidSettings_failTheStart_namingTheSettingAndTheValue() {
        Throwable failure = catchThrowable(
                () -> start(settings("rule.ok.match", "GET /ok", "rule.ok.limit", "lots"), new ManualClock())
                        .close());

        assertThat(failure).as("the start failed").isNotNull();
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        assertThat(messages.toString()).contains("rule.ok.limit").contains("'lots' is not a limit");
    }
}
