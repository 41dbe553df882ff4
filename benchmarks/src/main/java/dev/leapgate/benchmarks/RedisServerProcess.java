package dev.leapgate.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import redis.embedded.core.ExecutableProvider;

/**
 * A {@code redis-server} for a benchmark, on a free loopback port, without persistence: the binary
 * named by {@code -Dleapgate.redis.server=...}, else the one {@code embedded-redis} ships (6.2);
 * {@code -Dleapgate.redis.cpus=0} runs it under {@code taskset -c 0}.
 */
final class RedisServerProcess implements AutoCloseable {

    private final Process process;
    private final int port;

    private RedisServerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static RedisServerProcess start() throws IOException, InterruptedException {
        String named = System.getProperty("leapgate.redis.server");
        File binary = named != null
                ? new File(named)
                : ExecutableProvider.newJarResourceProvider().get();
        binary.setExecutable(true);
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<String> command = new java.util.ArrayList<>();
        String cpus = System.getProperty("leapgate.redis.cpus"); // e.g. 0: Redis on a core of its own
        if (cpus != null) {
            command.addAll(List.of("taskset", "-c", cpus));
        }
        command.addAll(List.of(
                binary.getAbsolutePath(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no"));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        for (int attempt = 0; ; attempt++) {
            try (Socket connected = new Socket("127.0.0.1", port)) {
                return new RedisServerProcess(process, port);
            } catch (IOException notYet) {
                if (attempt > 200) {
                    process.destroyForcibly();
                    throw notYet;
                }
                Thread.sleep(25);
            }
        }
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .start()
                .waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }
}
