package dev.leapgate.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The answer to a request for a gate's status ({@link HttpGate#status}), status 200: the status as
 * JSON, or the live page that shows it (for a request that accepts {@code text/html}, as a browser's
 * does). Computed in core so that every adapter answers alike.
 *
 * <p>The page is one self-contained HTML document (its style and script inline, nothing loaded from
 * anywhere else) that polls the JSON at its own address every second. It is sent with a strict
 * {@code Content-Security-Policy}: nothing but its own style and script (allowed by their SHA-256
 * hashes), requests only to its own origin, no frames, forms or plugins.
 *
 * <p>Immutable: the body is copied when the response is made and each time {@link #body()} is
 * called, so that no caller can change what another is sent (every gate answers with one page).
 * The copy costs a request for the status only; other requests never get a {@code
 * StatusResponse}.
 *
 * @param headers header fields in the order to send them
 * @param contentType the body's media type
 * @param body the body, UTF-8
 */
public record StatusResponse(Map<String, String> headers, String contentType, byte[] body) {

    public StatusResponse {
        headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        Objects.requireNonNull(contentType, "contentType");
        body = Objects.requireNonNull(body, "body").clone();
    }

    /** The body, UTF-8: a copy, which the caller may keep or change. */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The status as JSON. */
    static StatusResponse json(String json) {
        return new StatusResponse(
                Map.of("Cache-Control", "no-store", "X-Content-Type-Options", "nosniff"),
                "application/json",
                json.getBytes(StandardCharsets.UTF_8));
    }

    /** The live page. */
    static StatusResponse page() {
        return Page.RESPONSE;
    }

    /** The body as text. */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** Equal when the header fields (in order), the content type and the body's bytes are. */
    @Override
    public boolean equals(Object o) {
        return o instanceof StatusResponse other
                && List.copyOf(headers.entrySet()).equals(List.copyOf(other.headers.entrySet()))
                && contentType.equals(other.contentType)
                && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
        return (headers.hashCode() * 31 + contentType.hashCode()) * 31 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "StatusResponse[headers=" + headers + ", contentType=" + contentType + ", body=" + body.length
                + " bytes]";
    }

    /** The page, read and hashed once, when first asked for. */
    private static final class Page {
        static final StatusResponse RESPONSE = load();

        private static StatusResponse load() {
            try (InputStream in = StatusResponse.class.getResourceAsStream("status-page.html")) {
                if (in == null) {
                    throw new IllegalStateException("status-page.html is missing from leapgate-core");
                }
                return page(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The live page of {@code html} (the text of status-page.html), with the policy that allows its style and script. */
    static StatusResponse page(String text) {
        // A browser hashes an inline element as its parser leaves it, every CR LF and CR made a LF:
        // a checkout with CR LF (Git for Windows' default) would otherwise block the page's own
        // script and style. Sent as hashed.
        String html = text.replace("\r\n", "\n").replace('\r', '\n');
        String policy = "default-src 'none'; script-src " + hash(inside(html, "script"))
                + "; style-src " + hash(inside(html, "style"))
                + "; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none';"
                + " frame-ancestors 'none'";
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Cache-Control", "no-store");
        headers.put("Content-Security-Policy", policy);
        headers.put("X-Content-Type-Options", "nosniff");
        headers.put("Referrer-Policy", "no-referrer");
        return new StatusResponse(headers, "text/html;charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    /** The text of the page's one {@code <tag>} element. */
    private static String inside(String html, String tag) {
        int open = html.indexOf("<" + tag + ">");
        int close = html.indexOf("</" + tag + ">");
        if (open < 0 || close < open || html.indexOf("<" + tag + ">", open + 1) >= 0) {
            throw new IllegalStateException("status-page.html must hold exactly one <" + tag + "> element");
        }
        return html.substring(open + tag.length() + 2, close);
    }

    private static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return "'sha256-" + Base64.getEncoder().encodeToString(digest) + "'";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
