package dev.leapgate.benchmarks;

import dev.leapgate.servlet.LeapgateFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.servlets.DoSFilter;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Part 5 of issue #7: the server side of the HTTP overhead measurement. Embedded Jetty 12 (ee10)
 * on {@code 127.0.0.1} with one servlet, {@code GET /api/hello} answering {@code hello} as
 * {@code text/plain}, in one of three modes:
 *
 * <ul>
 *   <li>{@code none}: no filter;
 *   <li>{@code leapgate}: {@link LeapgateFilter} on {@code /*}, configured by init-params exactly
 *       as a {@code web.xml} would ({@link #LEAPGATE_PARAMS}): two rules on {@code /api/**}, one
 *       per client IP and one for everyone, whose limits no load on one machine reaches, so every
 *       request is admitted and gets the {@code RateLimit} fields of both;
 *   <li>{@code dosfilter}: Jetty's {@link DoSFilter} on {@code /*} with {@link #DOS_PARAMS}:
 *       {@code maxRequestsPerSec} far above the load, every other setting at its default;
 *   <li>{@code leapgate-no-fields}: as {@code leapgate}, with {@code rate-limit-headers = none}:
 *       what the filter costs without the {@code RateLimit} fields (not one of {@code run.sh}'s
 *       modes; started by hand to tell the fields' cost from the rest).
 * </ul>
 *
 * <p>The load generator ({@code wrk}, run by {@code benchmarks/run.sh}) runs outside this JVM.
 * Before it prints {@code READY <url>} the server sends one request to itself and prints the
 * response's status and headers, so the log shows that the filter is in place. When the JVM is
 * stopped (SIGTERM), it prints how many requests the servlet answered.
 *
 * <pre>
 * java -cp benchmarks.jar dev.leapgate.benchmarks.HttpOverheadServer none|leapgate|dosfilter|leapgate-no-fields PORT
 * </pre>
 *
 * Port 0 picks a free port; the {@code READY} line names it.
 */
public final class HttpOverheadServer {

    /** The path wrk requests. */
    static final String PATH = "/api/hello";

    /**
     * The Leapgate filter's init-params: two rules on {@code /api/**}, as a real API has them, one
     * per client IP and one for everyone together, each with a 1 s strict window in the default 10
     * buckets. 100,000,000 per second is below the largest limit of 100 ms buckets (2^27 - 1) and
     * far above any load on loopback, so every request is admitted by both. {@code
     * rate-limit-headers} is spelled out at its default, {@code all}: admitted responses carry
     * {@code RateLimit-Policy} and {@code RateLimit}.
     */
    static final Map<String, String> LEAPGATE_PARAMS = ordered(
            "rule.api-per-ip.match", "/api/**",
            "rule.api-per-ip.limit", "100000000/1s",
            "rule.api-per-ip.scope", "per-origin",
            "rule.api-all.match", "/api/**",
            "rule.api-all.limit", "100000000/1s",
            "rate-limit-headers", "all");

    /**
     * DoSFilter's init-params: only {@code maxRequestsPerSec}, far above the load; everything else
     * at Jetty's defaults (tracked per remote IP, {@code remotePort=false}; {@code delayMs=100},
     * {@code throttledRequests=5}, {@code maxWaitMs=50}, {@code throttleMs=30000}, {@code
     * maxRequestMs=30000}, {@code maxIdleTrackerMs=30000}, {@code insertHeaders=true}, no
     * whitelist). DoSFilter keeps one {@code long} per allowed request per second for each IP, so
     * this limit costs an 8 MB array for the one client IP; it is never reached.
     */
    static final Map<String, String> DOS_PARAMS = ordered("maxRequestsPerSec", "1000000");

    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);

    private HttpOverheadServer() {}

    public static void main(String[] args) throws Exception {
        List<String> modes = List.of("none", "leapgate", "dosfilter", "leapgate-no-fields");
        if (args.length != 2 || !modes.contains(args[0])) {
            System.err.println("usage: HttpOverheadServer none|leapgate|dosfilter|leapgate-no-fields PORT");
            System.exit(2);
        }
        String mode = args[0];
        int port = Integer.parseInt(args[1]);

        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);

        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        LongAdder served = new LongAdder();
        context.addServlet(new ServletHolder("hello", new Hello(served)), PATH);
        switch (mode) {
            case "leapgate", "leapgate-no-fields" -> {
                // As a web.xml declares it: the class, init-params, mapped to /* for REQUEST dispatches.
                FilterHolder filter = new FilterHolder(LeapgateFilter.class);
                filter.setName("leapgate");
                filter.setAsyncSupported(true);
                LEAPGATE_PARAMS.forEach(filter::setInitParameter);
                if (mode.equals("leapgate-no-fields")) {
                    filter.setInitParameter("rate-limit-headers", "none");
                }
                context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
            }
            case "dosfilter" -> {
                // As DoSFilter's documentation asks: REQUEST and ASYNC dispatches, async supported.
                FilterHolder filter = new FilterHolder(DoSFilter.class);
                filter.setName("dos");
                filter.setAsyncSupported(true);
                DOS_PARAMS.forEach(filter::setInitParameter);
                context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
            }
            default -> {}
        }
        server.setHandler(context);
        server.setStopAtShutdown(true);
        server.start();

        String url = "http://127.0.0.1:" + connector.getLocalPort() + PATH;
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> System.out.printf(
                                Locale.ROOT, "STOPPED %s: the servlet answered %d requests%n", mode, served.sum()),
                        "report"));
        selfCheck(mode, url);
        System.out.printf(
                Locale.ROOT,
                "READY %s %s (jvm %s, %d processors)%n",
                url,
                mode,
                Runtime.version(),
                Runtime.getRuntime().availableProcessors());
        System.out.flush();
        server.join();
    }

    /** One request before the load: shows the status and headers the measured responses carry. */
    private static void selfCheck(String mode, String url) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        HttpResponse<String> response = client.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        StringBuilder text = new StringBuilder();
        text.append("CHECK ")
                .append(mode)
                .append(": ")
                .append(response.statusCode())
                .append(' ');
        text.append('\'').append(response.body()).append('\'');
        response.headers()
                .map()
                .forEach((name, values) ->
                        text.append("\n  ").append(name).append(": ").append(String.join(", ", values)));
        System.out.println(text);
        if (response.statusCode() != 200) {
            throw new IllegalStateException("self-check failed: " + response.statusCode());
        }
    }

    private static Map<String, String> ordered(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    /** {@code hello}, {@code text/plain}, with a content length: the smallest realistic response. */
    private static final class Hello extends HttpServlet {
        private final transient LongAdder served;

        Hello(LongAdder served) {
            this.served = served;
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain;charset=utf-8");
            response.setContentLength(HELLO.length);
            response.getOutputStream().write(HELLO);
            served.increment();
        }
    }
}
