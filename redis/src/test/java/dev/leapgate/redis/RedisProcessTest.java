package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The test helper itself: no {@code redis-server} it starts outlives the JVM that started it. */
class RedisProcessTest {

    /**
     * Starts a server, prints its process id, and blocks on its standard input (until the test
     * stops this JVM, or ends and closes that input) without closing the server.
     */
    static final class Leaver {
        public static void main(String[] args) throws Exception {
            RedisProcess redis = RedisProcess.start();
            System.out.println("PID " + redis.pid());
            System.out.flush();
            System.in.read();
        }
    }

    @Test
    void aTestJvmStoppedBeforeItClosesTheServer_stopsTheServerAnyway() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process jvm = new ProcessBuilder(
                        List.of(java, "-cp", System.getProperty("java.class.path"), Leaver.class.getName()))
                .redirectErrorStream(true)
                .start();
        long pid = -1;
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("PID ")) {
                    pid = Long.parseLong(line.substring(4).trim());
                    break;
                }
            }
            assertThat(pid).as("the server's pid, printed by the child JVM").isPositive();
            Optional<ProcessHandle> server = ProcessHandle.of(pid);
            assertThat(server).as("the server runs").isPresent();
            jvm.destroy(); // SIGTERM, as Ctrl+C or Surefire's stop sends it
            assertThat(jvm.waitFor(30, TimeUnit.SECONDS)).isTrue();
            long stopped = pid;
            Polling.eventually(
                    "the server stopped with the JVM",
                    Duration.ofSeconds(10),
                    () -> ProcessHandle.of(stopped).map(h -> !h.isAlive()).orElse(true));
        } finally {
            jvm.destroyForcibly();
            if (pid > 0) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // the test's own cleanup
            }
        }
    }
}
