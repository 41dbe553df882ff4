package dev.leapgate.it;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 request over a raw socket, with the request target sent byte for byte as given: an
 * HTTP client would normalize the spellings the tests are about ({@code /./}, {@code //}, {@code
 * %61}) before they reach the server.
 */
final class RawHttp {

    /** A response: status, header fields (names lower case, the last value of each), body. */
    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {}

    /**
     * Sends {@code GET target HTTP/1.1} with {@code Connection: close} and the given extra header
     * lines ({@code "Name: value"}), and reads the whole response: once, never retried (as
     * {@code HttpClient} retries a GET on a dropped connection). {@link EOFException} if the server
     * closes the connection without answering.
     */
    static Response get(int port, String target, String... headerLines) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.setSoTimeout(30_000);
            StringBuilder request = new StringBuilder()
                    .append("GET ")
                    .append(target)
                    .append(" HTTP/1.1\r\nHost: 127.0.0.1:")
                    .append(port)
                    .append("\r\nConnection: close\r\n");
            for (String line : headerLines) {
                request.append(line).append("\r\n");
            }
            request.append("\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            byte[] response = readAll(socket.getInputStream());
            if (response.length == 0) {
                throw new EOFException("the server closed the connection without a response");
            }
            return parse(response);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) >= 0; ) {
            all.write(buffer, 0, n);
        }
        return all.toByteArray();
    }

    private static Response parse(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int headEnd = text.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            throw new IllegalStateException("no complete response head: " + text);
        }
        String[] lines = text.substring(0, headEnd).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(
                        lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).strip());
            }
        }
        String body = text.substring(headEnd + 4);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Response(
                Integer.parseInt(statusLine[1]),
                headers,
                new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
    }

    private static String dechunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int i = 0;
        while (i < chunked.length()) {
            int lineEnd = chunked.indexOf("\r\n", i);
            if (lineEnd < 0) {
                break;
            }
            String sizeText = chunked.substring(i, lineEnd);
            int semicolon = sizeText.indexOf(';');
            int size = Integer.parseInt((semicolon < 0 ? sizeText : sizeText.substring(0, semicolon)).strip(), 16);
            if (size == 0) {
                break;
            }
            body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
            i = lineEnd + 2 + size + 2;
        }
        return body.toString();
    }
}
