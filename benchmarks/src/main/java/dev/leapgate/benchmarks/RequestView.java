package dev.leapgate.benchmarks;

import dev.leapgate.http.HttpRequestView;
import java.util.List;

/**
 * A request as an adapter passes it to the core: no headers, no principal. {@code decodedPath} is
 * what a servlet container routed by (null for an adapter without one).
 */
record RequestView(String method, String rawPath, String decodedPath, String remoteAddr) implements HttpRequestView {

    @Override
    public List<String> headers(String name) {
        return List.of();
    }

    @Override
    public String principal() {
        return null;
    }
}
