package dev.leapgate.benchmarks;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The servlet filter's own work per request (issue #11), without the servlet container: what
 * {@code LeapgateFilter.doFilter} asks of the core for an admitted request in the HTTP benchmark's
 * configuration ({@link HttpOverheadServer#LEAPGATE_PARAMS}: two rules on {@code /api/**}, one per
 * client IP and one for everyone, default headers on). One call is the status check, {@code
 * HttpGate.enter}, the two header fields ({@code RateLimit-Policy}, {@code RateLimit}) passed to a
 * consumer, and {@code HttpGate.complete} with status 200, for {@code GET /api/hello} from one of
 * 1,000 client addresses in turn, with the path the container decoded as the servlet adapter
 * passes it. The request is a plain {@link RequestView}, so the figure leaves out the container and
 * the filter's adapter object around the servlet request.
 *
 * <pre>java -jar benchmarks.jar FilterPathBenchmark -prof gc</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 2,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class FilterPathBenchmark {

    private static final int CLIENTS = 1_000;

    @State(Scope.Thread)
    public static class Filter {
        HttpGate gate;
        RequestView[] requests;
        int next;

        @Setup(Level.Trial)
        public void setUp() {
            gate = HttpGate.builder(ConfigParser.parse(HttpOverheadServer.LEAPGATE_PARAMS, "benchmark"))
                    .build();
            requests = new RequestView[CLIENTS];
            for (int i = 0; i < CLIENTS; i++) {
                requests[i] =
                        new RequestView("GET", HttpOverheadServer.PATH, HttpOverheadServer.PATH, Workload.keyText(i));
            }
        }

        RequestView nextRequest() {
            RequestView request = requests[next];
            next = next + 1 == CLIENTS ? 0 : next + 1;
            return request;
        }
    }

    @Benchmark
    public void admitted(Filter state, Blackhole blackhole) {
        RequestView request = state.nextRequest();
        if (state.gate.status(request).isPresent()) {
            throw new AssertionError("not a status request");
        }
        Decision decision = state.gate.enter(request);
        if (!(decision instanceof Entry entry)) {
            throw new AssertionError("rejected: " + decision);
        }
        state.gate.admittedHeaders(entry, (name, value) -> {
            blackhole.consume(name);
            blackhole.consume(value);
        });
        HttpGate.complete(entry, 200);
    }
}
