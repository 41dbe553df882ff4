package dev.leapgate.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Part 5 of issue #7: where a filter's time goes, from a JFR recording of {@link
 * HttpOverheadServer} under load ({@code benchmarks/run.sh} records one in {@code leapgate} and one
 * in {@code dosfilter} mode).
 *
 * <p>Counts the execution samples taken on Jetty's request threads ({@code qtp...}) and, among
 * them, those in the filter's own code: stacks with a frame of the filter's code (Leapgate's, or
 * {@code DoSFilter} and its inner classes) that has not called on into the filter chain (the
 * servlet and everything after it). Those are broken down by the call the filter class made, and by
 * the top frame. JFR samples only threads running Java code: time in the kernel (socket reads and
 * writes) and in native code is not in any sample, so the share is of the request threads' Java
 * time, not of their CPU time.
 *
 * <pre>
 * java -cp benchmarks.jar dev.leapgate.benchmarks.HttpProfile leapgate|dosfilter RECORDING.jfr
 * </pre>
 */
public final class HttpProfile {

    /** The filter class and how to tell its code, per mode. */
    private record Filter(String className, String label, Predicate<String> ownCode) {}

    private static final Map<String, Filter> FILTERS = Map.of(
            "leapgate",
            new Filter(
                    "dev.leapgate.servlet.LeapgateFilter",
                    "the Leapgate filter",
                    frame -> frame.startsWith("dev.leapgate.") && !frame.startsWith("dev.leapgate.benchmarks.")),
            "dosfilter",
            new Filter(
                    "org.eclipse.jetty.ee10.servlets.DoSFilter",
                    "DoSFilter",
                    frame -> frame.startsWith("org.eclipse.jetty.ee10.servlets.DoSFilter")));

    private HttpProfile() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2 || !FILTERS.containsKey(args[0])) {
            throw new IllegalArgumentException("usage: HttpProfile leapgate|dosfilter RECORDING.jfr");
        }
        Filter filter = FILTERS.get(args[0]);
        int total = 0;
        int inFilterCall = 0;
        int own = 0;
        Map<String, Integer> byCall = new LinkedHashMap<>();
        Map<String, Integer> byTop = new LinkedHashMap<>();
        Map<String, Integer> otherThreads = new LinkedHashMap<>();
        try (RecordingFile file = new RecordingFile(Path.of(args[1]))) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                RecordedThread thread = event.getThread("sampledThread");
                RecordedStackTrace stack = event.getStackTrace();
                if (thread == null || thread.getJavaName() == null || stack == null) {
                    continue;
                }
                if (!thread.getJavaName().startsWith("qtp")) {
                    // E.g. DoSFilter's scheduler thread, which runs the tasks its requests schedule.
                    otherThreads.merge(thread.getJavaName().replaceAll("-[0-9a-fA-F]+$|[0-9]+$", ""), 1, Integer::sum);
                    continue;
                }
                total++;
                List<String> frames = new ArrayList<>();
                List<String> types = new ArrayList<>();
                for (RecordedFrame frame : stack.getFrames()) {
                    types.add(frame.getMethod().getType().getName());
                    frames.add(types.get(types.size() - 1) + "."
                            + frame.getMethod().getName());
                }
                int deepest = deepest(frames, filter.ownCode());
                if (deepest < 0) {
                    continue;
                }
                inFilterCall++;
                if (callsChain(frames.subList(0, deepest))) {
                    continue;
                }
                own++;
                // The call made by the filter class's deepest method on the stack (doFilter, for Leapgate).
                int entry = types.indexOf(filter.className());
                String call = entry < 0
                        ? frames.get(deepest) + " (outside the filter class)"
                        : entry == 0 ? frames.get(0) + " itself" : frames.get(entry - 1);
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
                "  inside %s, chain included: %d (%s)%n",
                filter.label(),
                inFilterCall,
                percent(inFilterCall, total));
        System.out.printf(
                Locale.ROOT, "  in %s's own code, chain excluded: %d (%s)%n", filter.label(), own, percent(own, total));
        System.out.println();
        System.out.println("Its own samples by the call " + shorten(filter.className()) + " made:");
        print(byCall, total, 10);
        System.out.println();
        System.out.println("Its own samples by top frame:");
        print(byTop, total, 15);
        System.out.println();
        System.out.println("Samples on other threads, for comparison with the request threads' count:");
        print(otherThreads, total, 5);
        System.out.printf(Locale.ROOT, "RESULT\thttp-profile\t%s\t%d\t%d\t%d%n", args[0], total, inFilterCall, own);
    }

    /** Index of the deepest (closest to the top) frame of the filter's code; -1 if none. */
    private static int deepest(List<String> frames, Predicate<String> ownCode) {
        for (int i = 0; i < frames.size(); i++) {
            if (ownCode.test(frames.get(i))) {
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
        return frame.replace("dev.leapgate.", "")
                .replace("org.eclipse.jetty.", "jetty.")
                .replace("java.util.concurrent.", "j.u.c.");
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
