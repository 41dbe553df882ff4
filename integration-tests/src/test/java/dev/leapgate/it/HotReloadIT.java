package dev.leapgate.it;

import static dev.leapgate.it.TestWebApp.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.testing.Together;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rules file is rewritten while clients run. The web.xml checks it every 5 s of the test's
 * clock, lazily on the request path: the test advances the clock past that interval and the next
 * request applies the file. A new limit applies to what the rule already counted (a reload is no
 * fresh allowance: raised from 20 to 50, it admits 30 more); a broken file is rejected whole and
 * the limit in force stays, with its count; a fixed file applies again.
 * The clock does not move otherwise, so no window slides: every admission is counted exactly.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HotReloadIT {

    private static final Duration RELOAD_INTERVAL = Duration.ofSeconds(5); // as in web.xml
    private static final int CLIENTS = 4;

    private TestWebApp web;

    /** What the clients saw, by the quota in the response's RateLimit-Policy ({@code q=20}...). */
    private final Map<String, LongAdder> admitted = new ConcurrentHashMap<>();

    private final Map<String, LongAdder> rejected = new ConcurrentHashMap<>();
    private final LongAdder responses = new LongAdder();
    private final AtomicReference<Throwable> clientFailure = new AtomicReference<>();

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        // One instance serves every deployment of the class: start each from nothing.
        admitted.clear();
        rejected.clear();
        responses.reset();
        clientFailure.set(null);
        web = TestWebApp.withRules(rules(20)).on(container, contextPath).start();
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    private static String rules(int limit) {
        return """
                # greetings for everyone together
                rule.hello.match = GET /hello
                rule.hello.limit = %d/1m
                """.formatted(limit);
    }

    /** Waits for the clients to have done something; fails at once, with its cause, if one failed. */
    private void whileClientsRun(BooleanSupplier condition) {
        eventually(() -> {
            checkClients();
            return condition.getAsBoolean();
        });
    }

    private void checkClients() {
        if (clientFailure.get() != null) {
            throw new AssertionError("a client failed", clientFailure.get());
        }
    }

    private long seen(Map<String, LongAdder> byQuota, int quota) {
        LongAdder count = byQuota.get("q=" + quota);
        return count == null ? 0 : count.sum();
    }

    @Test
    void rulesFileRewrittenWhileClientsRun_newLimitsApply_aBrokenFileIsRejected_andTheOldLimitStays() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        Thread driver = new Thread(() -> {
            try {
                Together.run(CLIENTS, client -> {
                    while (running.get()) {
                        record(client);
                    }
                });
            } catch (Throwable t) {
                clientFailure.set(t);
            }
        });
        driver.start();
        try {
            // 20 per minute: exactly 20 admitted, then rejections.
            whileClientsRun(() -> seen(rejected, 20) > 0);

            // Raised to 50: applied at the first request after the interval, to the 20 counted.
            web.rewriteRules(rules(50));
            web.clock.advance(RELOAD_INTERVAL);
            whileClientsRun(() -> seen(rejected, 50) > 0);

            // A broken file: rejected whole, the 50 stay in force and keep their count.
            web.rewriteRules(rules(50).replace("50/1m", "fifty/1m"));
            web.clock.advance(RELOAD_INTERVAL);
            long before = responses.sum();
            whileClientsRun(() -> responses.sum() > before + 200); // the file was looked at by one of them
            assertThat(web.gate().rules().rules())
                    .singleElement()
                    .satisfies(rule -> assertThat(rule.limit()).isEqualTo(50));

            // Fixed, at 80: applies.
            web.rewriteRules(rules(80));
            web.clock.advance(RELOAD_INTERVAL);
            whileClientsRun(() -> seen(rejected, 80) > 0);
        } finally {
            running.set(false);
            driver.join();
        }
        checkClients();

        String seen = "admitted by quota " + admitted + ", rejected by quota " + rejected + ", the gate counted "
                + web.stats("GET /hello").admitted() + " admitted";
        assertThat(seen(admitted, 20)).as(seen).isEqualTo(20);
        assertThat(seen(admitted, 50)).as(seen).isEqualTo(30);
        assertThat(seen(admitted, 80)).as(seen).isEqualTo(30);
        assertThat(admitted.keySet()).containsExactlyInAnyOrder("q=20", "q=50", "q=80");
        assertThat(rejected.keySet()).containsExactlyInAnyOrder("q=20", "q=50", "q=80");
        assertThat(web.stats("GET /hello").admitted()).isEqualTo(80);
        assertThat(web.resource("GET /hello").inFlight()).isZero();
    }

    private void record(int client) {
        HttpResponse<String> response;
        try {
            response = web.getFor("203.0.113." + client, "/hello");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        String policy = response.headers().firstValue("RateLimit-Policy").orElse("none");
        String quota = policy.replaceAll("^\"hello\";(q=\\d+);w=60$", "$1");
        Map<String, LongAdder> byQuota = switch (response.statusCode()) {
            case 200 -> admitted;
            case 429 -> rejected;
            default -> throw new AssertionError("status " + response.statusCode() + ": " + response.body());
        };
        byQuota.computeIfAbsent(quota, q -> new LongAdder()).increment();
        responses.increment();
    }
}
