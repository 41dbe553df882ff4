package dev.leapgate.redis;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a real Redis that answers as a "Redis-compatible" server might: the
 * integers within an array reply (a script's reply) are sent as {@link #answer} says. Requests go
 * through unchanged; the replies are parsed as RESP2/RESP3, element by element.
 */
final class RespProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<AtomicBoolean> frozenFlags = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    /** How the integers within an array reply are sent. */
    enum Answer {
        /** As Redis sends them. */
        AS_REDIS,
        /** As bulk strings: {@code :5} becomes {@code $1 5}. */
        NUMBERS_AS_STRINGS,
        /** As nil ({@code $-1}): a Lua {@code false} in a script's reply table. */
        NILS
    }

    volatile Answer answer = Answer.NUMBERS_AS_STRINGS;

    RespProxy(int target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "resp-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String uri() {
        return "redis://127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket redis = new Socket(InetAddress.getLoopbackAddress(), target);
                sockets.add(client);
                sockets.add(redis);
                AtomicBoolean frozen = new AtomicBoolean();
                frozenFlags.add(frozen);
                connections.incrementAndGet();
                daemon(() -> relay(client.getInputStream(), redis.getOutputStream(), frozen), client, redis);
                daemon(
                        () -> {
                            InputStream in = new BufferedInputStream(redis.getInputStream());
                            OutputStream out = new BufferedOutputStream(client.getOutputStream());
                            while (true) {
                                copy(in, out, false);
                                if (in.available() == 0) {
                                    out.flush();
                                }
                            }
                        },
                        client,
                        redis);
            } catch (IOException closed) {
                return;
            }
        }
    }

    /** The connections accepted so far. */
    int connections() {
        return connections.get();
    }

    /**
     * Stops relaying what the client sends on the connections made so far, which stay open, as to a
     * host that vanished without closing them; new connections are relayed.
     */
    void freezeConnections() {
        frozenFlags.forEach(frozen -> frozen.set(true));
    }

    private static void relay(InputStream in, OutputStream out, AtomicBoolean frozen) throws IOException {
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) >= 0; ) {
            if (!frozen.get()) {
                out.write(buffer, 0, n);
                out.flush();
            }
        }
    }

    private interface Pump {
        void run() throws IOException;
    }

    private static void daemon(Pump pump, Socket a, Socket b) {
        Thread t = new Thread(
                () -> {
                    try {
                        pump.run();
                    } catch (IOException ended) {
                        // one side closed
                    } finally {
                        try {
                            a.close();
                            b.close();
                        } catch (IOException ignored) {
                            // closing anyway
                        }
                    }
                },
                "resp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Copies one RESP element; {@code inArray}: an element of an array, whose integer may be rewritten. */
    private void copy(InputStream in, OutputStream out, boolean inArray) throws IOException {
        String line = line(in);
        char type = line.charAt(0);
        switch (type) {
            case ':' -> {
                Answer now = answer;
                if (inArray && now == Answer.NUMBERS_AS_STRINGS) {
                    String n = line.substring(1);
                    write(out, "$" + n.length() + "\r\n" + n + "\r\n");
                } else if (inArray && now == Answer.NILS) {
                    write(out, "$-1\r\n");
                } else {
                    write(out, line + "\r\n");
                }
            }
            case '$', '!', '=' -> {
                write(out, line + "\r\n");
                int length = Integer.parseInt(line.substring(1));
                if (length >= 0) {
                    out.write(in.readNBytes(length + 2));
                }
            }
            case '*', '~', '>' -> {
                write(out, line + "\r\n");
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < n; i++) {
                    copy(in, out, type == '*');
                }
            }
            case '%', '|' -> {
                write(out, line + "\r\n");
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < 2 * n; i++) {
                    copy(in, out, false);
                }
            }
            default -> write(out, line + "\r\n");
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException();
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
