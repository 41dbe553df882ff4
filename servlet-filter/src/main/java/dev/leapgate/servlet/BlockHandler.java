package dev.leapgate.servlet;

import dev.leapgate.Rejection;
import dev.leapgate.http.RejectionResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Writes the response for a rejected request. The {@link #STANDARD} handler writes Leapgate's
 * response: the configured status (429), {@code Retry-After}, the {@code RateLimit-Policy} and
 * {@code RateLimit} fields, and the problem+json body. A custom handler (an HTML page, a redirect)
 * is set with the {@code block-handler} init-param (a class with a public no-argument
 * constructor) or {@link LeapgateFilter.Builder#blockHandler}.
 */
@FunctionalInterface
public interface BlockHandler {

    /**
     * Answers a rejected request. The response is not committed yet.
     *
     * @param standard what Leapgate would send: a custom handler may send it, or parts of it
     */
    void handle(
            HttpServletRequest request, HttpServletResponse response, Rejection rejection, RejectionResponse standard)
            throws IOException;

    /** Sends {@code standard} as it is: status, header fields and body, in one piece. */
    BlockHandler STANDARD = (request, response, rejection, standard) -> {
        response.setStatus(standard.status());
        standard.headers().forEach(response::setHeader);
        ResponseBodies.write(response, standard.contentType(), standard.body());
    };
}
