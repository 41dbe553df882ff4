package dev.leapgate.redis;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A {@code redis-server} of a required major version, for the run of the Redis tests on Redis 7
 * (the redis module's second Surefire execution, {@code redis-7}): the binary named by the
 * environment variable {@code LEAPGATE_REDIS<major>_SERVER} ({@code LEAPGATE_REDIS7_SERVER}), else
 * {@code /usr/bin/redis-server} (Debian's package {@code redis-server}, 7.0 on Debian 12, which
 * {@code .ci/run} installs). A
 * missing binary, or one of another version, fails the test when the environment variable {@code
 * CI} is set and skips it otherwise, with a message saying what to install. Only the tests load
 * this class (it uses JUnit): {@link RedisProcess} calls it only when a version is asked for.
 */
final class RedisVersion {

    private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");

    /** The binary's version, asked once per JVM (the tests start hundreds of servers). */
    private static String found;

    private RedisVersion() {}

    /** The binary of major version {@code major}; fails or skips the calling test without one. */
    static synchronized File required(String major) throws IOException {
        String variable = "LEAPGATE_REDIS" + major + "_SERVER";
        String named = System.getenv(variable);
        File binary = new File(named != null && !named.isBlank() ? named : "/usr/bin/redis-server");
        if (found == null) {
            found = binary.canExecute()
                    ? version(binary)
                    : binary.exists() ? binary + ", which is not executable" : "none at " + binary;
        }
        if (!found.startsWith(major + ".")) {
            String message = "the Redis " + major + " run of the Redis tests needs redis-server " + major
                    + " (found: " + found + "): apt-get install redis-server (Debian 12 has 7.0; stop the service"
                    + " it starts, the tests start their own), or name a binary with " + variable;
            if (System.getenv("CI") != null) {
                Assertions.fail(message);
            }
            Assumptions.abort(message);
        }
        return binary;
    }

    /** What {@code redis-server --version} says its version is, e.g. {@code 7.0.15}. */
    private static String version(File binary) throws IOException {
        Process process = new ProcessBuilder(binary.getAbsolutePath(), "--version")
                .redirectErrorStream(true)
                .start();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "no answer to --version from " + binary;
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        String said = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        Matcher m = VERSION.matcher(said);
        return m.find() ? m.group(1) + "." + m.group(2) + "." + m.group(3) : "'" + said + "' from " + binary;
    }
}
