package dev.leapgate.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Part 5 of issue #7: where the Leapgate filter's time goes, from a JFR recording of {@link
 * HttpOverheadServer} under load ({@code benchmarks/run.sh} records one in {@code leapgate} mode).
 *
 * <p>Counts the execution samples taken on Jetty's request threads ({@code qtp...}) and, among
 * them, those in the filter's own code: stacks with a {@code dev.leapgate} frame that has not
 * called on into the filter chain (the servlet and everything after it). Those are broken down by
 * the call {@code LeapgateFilter.doFilter} made, and by the top frame. JFR samples only threads
 * running Java code: time in the kernel (socket reads and writes) and in native code is not in any
 * sample, so the share is of the request threads' Java time, not of their CPU time.
 *
 * <pre>
 * java -cp benchmarks.jar dev.leapgate.benchmarks.HttpProfile RECORDING.jfr
 * </pre>
 */
public final class HttpProfile {

    private static final String FILTER = "dev.leapgate.servlet.LeapgateFilter";

    private HttpProfile() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: HttpProfile RECORDING.jfr");
        }
        int total = 0;
        int inFilterCall = 0;
        int own = 0;
        Map<String, Integer> byCall = new LinkedHashMap<>();
        Map<String, Integer> byTop = new LinkedHashMap<>();
        try (RecordingFile file = new RecordingFile(Path.of(args[0]))) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                RecordedThread thread = event.getThread("sampledThread");
                RecordedStackTrace stack = event.getStackTrace();
                if (thread == null
                        || thread.getJavaName() == null
                        || !thread.getJavaName().startsWith("qtp")
                        || stack == null) {
                    continue;
                }
                total++;
                List<String> frames = new ArrayList<>();
                for (RecordedFrame frame : stack.getFrames()) {
                    frames.add(frame.getMethod().getType().getName() + "."
                            + frame.getMethod().getName());
                }
                int leapgate = deepestLeapgateFrame(frames);
                if (leapgate < 0) {
                    continue;
                }
                inFilterCall++;
                if (callsChain(frames.subList(0, leapgate))) {
                    continue;
                }
                own++;
                int filter = frames.indexOf(FILTER + ".doFilter");
                String call = filter < 0
                        ? frames.get(leapgate) + " (outside doFilter)"
                        : filter == 0 ? "LeapgateFilter.doFilter itself" : frames.get(filter - 1);
                byCall.merge(shorten(call), 1, Integer::sum);
                byTop.merge(shorten(frames.get(0)), 1, Integer::sum);
            }
        }
        System.out.printf(
                Locale.ROOT,
                "Execution samples on Jetty's request threads: %d (Java code only; kernel and native time are not"
                        + " sampled)%n",
                total);
        System.out.printf(
                Locale.ROOT,
                "  inside LeapgateFilter.doFilter, chain included: %d (%s)%n",
                inFilterCall,
                percent(inFilterCall, total));
        System.out.printf(
                Locale.ROOT, "  in the filter's own code, chain excluded:       %d (%s)%n", own, percent(own, total));
        System.out.println();
        System.out.println("The filter's own samples by the call LeapgateFilter.doFilter made:");
        print(byCall, total, 15);
        System.out.println();
        System.out.println("The filter's own samples by top frame:");
        print(byTop, total, 25);
        System.out.printf(Locale.ROOT, "RESULT\thttp-profile\t%d\t%d\t%d%n", total, inFilterCall, own);
    }

    /** Index of the deepest (closest to the top) frame of Leapgate's code, not the benchmark's; -1 if none. */
    private static int deepestLeapgateFrame(List<String> frames) {
        for (int i = 0; i < frames.size(); i++) {
            String frame = frames.get(i);
            if (frame.startsWith("dev.leapgate.") && !frame.startsWith("dev.leapgate.benchmarks.")) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the frames above a Leapgate frame are the rest of the filter chain rather than the filter's work. */
    private static boolean callsChain(List<String> above) {
        for (String frame : above) {
            if (frame.startsWith("org.eclipse.jetty.ee10.servlet.FilterHolder")
                    || frame.startsWith("org.eclipse.jetty.ee10.servlet.ServletHandler")
                    || frame.startsWith("org.eclipse.jetty.ee10.servlet.ServletHolder")
                    || frame.startsWith("dev.leapgate.benchmarks.")) {
                return true;
            }
        }
        return false;
    }

    private static String shorten(String frame) {
        return frame.replace("dev.leapgate.", "").replace("org.eclipse.jetty.", "jetty.");
    }

    private static void print(Map<String, Integer> counts, int total, int limit) {
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(limit)
                .forEach(e -> System.out.printf(
                        Locale.ROOT, "  %5d  %6s  %s%n", e.getValue(), percent(e.getValue(), total), e.getKey()));
    }

    private static String percent(int part, int total) {
        return total == 0 ? "–" : String.format(Locale.ROOT, "%.1f %%", 100.0 * part / total);
    }
}
