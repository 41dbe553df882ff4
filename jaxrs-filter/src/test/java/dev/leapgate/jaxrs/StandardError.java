package dev.leapgate.jaxrs;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the tests' logging (slf4j-simple, which writes to {@code System.err}) said while an action
 * ran; it is written on to the real {@code System.err} too, so a test's output keeps it.
 */
final class StandardError {

    /** An action that may throw. */
    interface Action {
        void run() throws Exception;
    }

    private StandardError() {}

    /** Runs {@code action} and returns what was written to {@code System.err} meanwhile. */
    static String capturedWhile(Action action) throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(err);
            err.print(captured.toString(StandardCharsets.UTF_8));
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
