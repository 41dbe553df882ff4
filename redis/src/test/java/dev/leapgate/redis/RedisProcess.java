package dev.leapgate.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import redis.embedded.core.ExecutableProvider;

/**
 * A real {@code redis-server} for a test or a benchmark, on a free loopback port, without
 * persistence: the binary that {@code embedded-redis} ships in its jar (Redis 6.2, Linux x86-64),
 * or the one named by the environment variable {@code LEAPGATE_REDIS_SERVER} or the system property
 * {@code leapgate.redis.server}; with the system property {@code leapgate.redis.version} (the
 * Redis 7 run of the tests sets it), a binary of that major version ({@link RedisVersion}). With
 * the system property {@code leapgate.redis.cpus} (e.g. {@code 0}) it runs under {@code taskset
 * -c}, on cores of its own. The caller can pause it (SIGSTOP),
 * resume it, kill it and start it again on the same port; {@link #close()} stops it.
 */
public final class RedisProcess implements AutoCloseable {

    private final File binary;
    private final int port;
    private final Path dir;
    /** Arguments before the options: a configuration file and {@code --sentinel}, for a Sentinel. */
    private final List<String> leadingArgs;

    private final List<String> extraArgs;
    private volatile Process process;
    /**
     * Kills the server if the JVM ends before {@link #close()} (a build stopped with Ctrl+C, a test
     * JVM that Surefire ends): no {@code redis-server} outlives the tests that started it.
     */
    private final Thread stopAtExit = new Thread(
            () -> {
                Process running = process;
                if (running != null) {
                    running.destroyForcibly();
                }
            },
            "redis-process-stop");

    private RedisProcess(File binary, int port, Path dir, List<String> leadingArgs, List<String> extraArgs) {
        this.binary = binary;
        this.port = port;
        this.dir = dir;
        this.leadingArgs = leadingArgs;
        this.extraArgs = extraArgs;
    }

    /** Starts a server with {@code extraArgs} besides the port, loopback, no persistence. */
    public static RedisProcess start(String... extraArgs) throws IOException, InterruptedException {
        RedisProcess redis = new RedisProcess(
                binary(), freePort(), Files.createTempDirectory("leapgate-redis"), List.of(), List.of(extraArgs));
        return started(redis);
    }

    /**
     * Starts a server that speaks TLS only, on its port, with a certificate and its private key in
     * PEM files; clients need no certificate of their own.
     */
    public static RedisProcess startTls(Path certificate, Path key) throws IOException, InterruptedException {
        int port = freePort();
        RedisProcess redis = new RedisProcess(
                binary(),
                port,
                Files.createTempDirectory("leapgate-redis"),
                List.of(),
                List.of(
                        "--port",
                        "0", // no plain-text port
                        "--tls-port",
                        Integer.toString(port),
                        "--tls-cert-file",
                        certificate.toString(),
                        "--tls-key-file",
                        key.toString(),
                        "--tls-auth-clients",
                        "no"));
        return started(redis);
    }

    /**
     * Starts a Sentinel (the same binary, in Sentinel mode) that watches the master {@code
     * masterName} at {@code masterPort} on loopback alone (a quorum of 1), judges it down after
     * {@code downAfter} without an answer, and then promotes one of its replicas.
     */
    public static RedisProcess sentinel(String masterName, int masterPort, Duration downAfter)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("leapgate-sentinel");
        Path config = dir.resolve("sentinel.conf"); // Sentinel rewrites it: a file of its own
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 1",
                        "sentinel down-after-milliseconds " + masterName + " " + downAfter.toMillis(),
                        "sentinel failover-timeout " + masterName + " 10000",
                        ""));
        RedisProcess sentinel =
                new RedisProcess(binary(), freePort(), dir, List.of(config.toString(), "--sentinel"), List.of());
        return started(sentinel);
    }

    /** Starts {@code redis}; if it does not come up, leaves no process and no directory behind. */
    private static RedisProcess started(RedisProcess redis) throws IOException, InterruptedException {
        Runtime.getRuntime().addShutdownHook(redis.stopAtExit);
        try {
            redis.startAgain();
            return redis;
        } catch (IOException | InterruptedException | RuntimeException e) {
            try {
                redis.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static File binary() throws IOException {
        String version = System.getProperty("leapgate.redis.version");
        if (version != null && !version.isBlank()) {
            return RedisVersion.required(version);
        }
        String named = System.getProperty("leapgate.redis.server", System.getenv("LEAPGATE_REDIS_SERVER"));
        File binary = named != null && !named.isBlank()
                ? new File(named)
                : ExecutableProvider.newJarResourceProvider().get();
        if (!binary.canExecute()) {
            binary.setExecutable(true);
        }
        return binary;
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Starts the server (again, after {@link #kill()}) and waits until it accepts connections. */
    public void startAgain() throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>();
        String cpus = System.getProperty("leapgate.redis.cpus");
        if (cpus != null && !cpus.isBlank()) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        command.add(binary.getAbsolutePath());
        command.addAll(leadingArgs);
        command.addAll(List.of(
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString()));
        command.addAll(extraArgs);
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    process.destroyForcibly().waitFor(); // a server that did not come up is not left running
                    throw new IOException("redis-server did not start on port " + port + ": "
                            + Files.readString(dir.resolve("redis.log")));
                }
                Thread.sleep(20);
            }
        }
    }

    /** SIGSTOP: the server keeps its connections but answers nothing. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start()
                .waitFor();
        if (exit != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed: " + exit);
        }
    }

    /** Kills the server (SIGKILL); everything it held is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Runs {@code commands} on a connection of the test's own. */
    public <T> T call(java.util.function.Function<RedisCommands<String, String>, T> commands) {
        RedisClient client = RedisClient.create(uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return commands.apply(connection.sync());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    /** The server's process id. */
    public long pid() {
        return process.pid();
    }

    @Override
    public void close() throws Exception {
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs, or has run, anyway
        }
        if (process != null) {
            if (process.isAlive()) {
                try {
                    signal("CONT"); // a paused server would not act on SIGTERM
                } catch (IOException exitedMeanwhile) {
                    // it ended between the two calls: nothing to resume, and destroy below is a no-op
                }
            }
            process.destroy();
            if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        }
    }
}
