package dev.leapgate.servlet;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Leapgate's own answers (a rejection, the status) written whatever a filter before it did to the response. */
final class ResponseBodies {

    private ResponseBodies() {}

    /**
     * Writes {@code body} ({@code contentType}, UTF-8; null for none) as the whole body of the
     * uncommitted {@code response}. What a filter that ran before Leapgate's wrote and left in the
     * buffer is dropped, so that it neither comes before the body nor overruns its length (which
     * the container refused with an exception: a 500 for a 429); if that filter took the writer,
     * the body goes through it, as the stream is then refused.
     */
    static void write(HttpServletResponse response, String contentType, byte[] body) throws IOException {
        response.resetBuffer();
        if (contentType == null) {
            response.setContentLength(0);
            return;
        }
        response.setContentType(contentType);
        ServletOutputStream out;
        try {
            out = response.getOutputStream();
        } catch (IllegalStateException writerTaken) {
            response.getWriter().write(new String(body, StandardCharsets.UTF_8)); // no length: the writer's encoding
            return;
        }
        response.setContentLength(body.length);
        out.write(body);
    }
}
