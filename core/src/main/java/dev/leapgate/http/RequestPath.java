package dev.leapgate.http;

/**
 * Canonical form of a request path for rate-limit matching.
 *
 * <p>A limit on {@code /admin/**} is worthless if {@code //admin}, {@code /x/../admin}, {@code
 * /%61dmin} or {@code /admin;foo} reach the same handler under a different key. {@link #normalize}
 * maps every spelling a servlet container or JAX-RS runtime would route to the same resource onto one
 * string, which {@link PathPattern#matches} then compares segment by segment.
 *
 * <h2>Input</h2>
 *
 * Two entry points, for the two things an adapter can have:
 *
 * <ul>
 *   <li>{@link #normalize}: a <em>raw</em> path, still percent-encoded, without the context path
 *       (a JAX-RS route template). Decoded here, once.
 *   <li>{@link #normalizeDecoded}: a path a servlet container has already decoded and
 *       canonicalized, {@code getServletPath() + getPathInfo()}: what the container routed, which
 *       is what the servlet filter keys on. Not decoded again: decoding a decoded path a second
 *       time would turn {@code %252e} into a dot, which is exactly the double-decoding attack this
 *       class refuses. Both give the same key for the same path.
 * </ul>
 *
 * <h2>Steps, in this order (the order Tomcat uses, so the key agrees with what the app routes)</h2>
 *
 * <ol>
 *   <li>Everything from the first {@code ?} or {@code #} is dropped.
 *   <li>The path is split on raw {@code /}; a segment loses everything from its first raw {@code ;}
 *       (matrix parameters such as {@code ;jsessionid=1}).
 *   <li>Each segment is percent-decoded once into its canonical spelling (see below).
 *   <li>Dot-segments are resolved as in RFC 3986 §5.2.4, after decoding, so {@code %2e%2e} is {@code
 *       ..}: {@code .} is removed, {@code ..} removes the segment before it and never climbs above the
 *       root ({@code /../../etc} is {@code /etc}).
 *   <li>Empty segments are dropped: repeated slashes collapse and a trailing slash is removed ({@code
 *       /login/} is {@code /login}), because frameworks commonly route both to one handler and a rule
 *       must not be dodged by appending a slash. The root is {@code /}.
 * </ol>
 *
 * <h2>Canonical spelling of a segment</h2>
 *
 * <ul>
 *   <li>Unreserved characters ({@code A-Z a-z 0-9 - . _ ~}) and the characters with no meaning inside
 *       a segment ({@code ! $ & ' ( ) + , = : @}) are decoded: {@code %7E} is {@code ~}, {@code %2e}
 *       is {@code .}.
 *   <li>Everything else stays, or becomes, an upper-case escape. In particular an encoded slash {@code
 *       %2F} or backslash {@code %5C} is <em>not</em> a separator: {@code /a%2Fb} is the single segment
 *       {@code a%2Fb}. A raw backslash becomes {@code %5C} as well. (Tomcat and Jetty reject {@code
 *       %2F} and {@code \} by default, so such requests do not reach the application; if a container
 *       is configured to decode them into separators, rules will not see those requests as the paths
 *       the application routes to, so keep the container's rejecting default.)
 *   <li>Decoding happens once: {@code %25} stays {@code %25}, so {@code %252e} stays {@code %252e}:
 *       the literal text "%2e", never a dot. (Keeping {@code %25} encoded is what keeps the key
 *       unambiguous: decoded, "%2e" in a key could not be told apart from an escaped dot.)
 *   <li>A {@code %} that does not start a valid escape ({@code %zz}, a trailing {@code %}) is a literal
 *       percent sign and becomes {@code %25}; nothing is thrown.
 *   <li>Non-ASCII characters are written as their UTF-8 bytes in upper-case escapes, whether they
 *       arrived raw or encoded ({@code /café} and {@code /caf%c3%a9} are both {@code /caf%C3%A9}).
 *   <li>Case is preserved: {@code /ADMIN} and {@code /admin} are different paths.
 * </ul>
 *
 * <p>Guarantees, for both entry points: the result starts with {@code /}, ends with {@code /} only
 * when it is the root, has no empty, {@code .} or {@code ..} segment and no {@code ;} {@code ?}
 * {@code #}, and is its own canonical form ({@code normalize(key).equals(key)}). For a path {@code
 * p} without {@code %}, {@code ;}, {@code ?} or {@code #}, {@code normalizeDecoded(p)} equals
 * {@code normalize(p)}; and a raw spelling decodes to what {@code normalizeDecoded} is given, the
 * two agree. Neither method throws for any input, and the work is linear in the input length.
 */
public final class RequestPath {

    private static final String ROOT = "/";

    /**
     * An empty segment in an {@link #asRouted} key: a lone {@code %}, which no canonical segment
     * and no pattern's literal is (both write a percent sign {@code %25}), so only a wildcard
     * matches it.
     */
    private static final char EMPTY_SEGMENT = '%';

    private RequestPath() {}

    /**
     * Returns the canonical form of {@code rawPath} as described in the class comment; {@code null} or
     * empty input gives {@code "/"}.
     */
    public static String normalize(String rawPath) {
        if (rawPath == null) {
            return ROOT;
        }
        int end = pathEnd(rawPath);
        return end == rawPath.length() && isCanonical(rawPath) ? rawPath : canonical(rawPath, end, true);
    }

    /**
     * Returns the canonical form of a path that a servlet container has already decoded and
     * canonicalized ({@code getServletPath() + getPathInfo()}): the same key {@link #normalize}
     * gives for the raw spellings of that path, without decoding a second time. Every character
     * stands for itself: {@code %} is a literal percent sign ({@code %25} in the key), and {@code ;},
     * {@code ?} and {@code #} are literal characters of a segment (escaped), since a container has
     * removed path parameters, query and fragment before decoding. Dot-segments and empty segments
     * are removed as by {@link #normalize} (a container has normally removed them already).
     * {@code null} or empty input gives {@code "/"}. Never throws; linear in the input length.
     */
    public static String normalizeDecoded(String decodedPath) {
        if (decodedPath == null) {
            return ROOT;
        }
        return isCanonical(decodedPath) ? decodedPath : canonical(decodedPath, decodedPath.length(), false);
    }

    /**
     * The key of a raw path as a framework that routes by the raw request URI reads it: each
     * dot-segment ({@code .}, {@code ..}, or spelled with escapes: {@code %2E}, {@code %2e%2e},
     * {@code .%2E}; path parameters aside) kept as a segment of its own, written {@code %2E} or
     * {@code %2E%2E}, instead of resolved; and each empty segment ({@code //}, or a segment of path
     * parameters alone: {@code /;x=1/}, {@code /;}), but for the one a plain trailing slash ends the
     * path with, kept as the segment {@code %}, which only a wildcard ({@code *}, {@code {name}},
     * {@code **}) matches. Null when the path has no such segment (the usual case: no work beyond a
     * scan for {@code %}, {@code /.}, {@code //} and {@code /;}). For a request that a servlet
     * container routed after resolving such segments (Tomcat routes {@code /api/items/./price} and
     * {@code /api/items/%2E/price} as {@code /api/items/price}, and {@code /api/tags//count} and
     * {@code /api/tags/;x=1/count} as {@code /api/tags/count}), while a framework behind it that
     * routes by the raw request URI (Jersey, RESTEasy, CXF) serves it as {@code
     * /api/items/{id}/price} with the id {@code .}, or through a template whose variable accepts an
     * empty segment ({@code tags/{tag: [^/]*}/count}) with the empty tag: the rules matching this key
     * apply too ({@link HttpGate#enter(HttpRequestView)}). Not canonical ({@link #normalize} of it
     * resolves those segments): a key to match rules with, never a resource name. Never throws;
     * linear.
     */
    static String asRouted(String rawPath) {
        if (rawPath == null
                || (rawPath.indexOf('%') < 0
                        && rawPath.indexOf("/.") < 0
                        && rawPath.indexOf("//") < 0
                        && rawPath.indexOf("/;") < 0)) {
            return null;
        }
        int end = pathEnd(rawPath);
        return hasDotOrEmptySegment(rawPath, end) ? canonical(rawPath, end, true, true) : null;
    }

    /** Where the path of {@code rawPath} ends: at its query or fragment, if it has one. */
    private static int pathEnd(String rawPath) {
        int end = rawPath.length();
        for (int i = 0; i < end; i++) {
            char c = rawPath.charAt(i);
            if (c == '?' || c == '#') {
                return i;
            }
        }
        return end;
    }

    /**
     * Whether a segment of {@code path[0, end)} (without its parameters) is or decodes to a
     * dot-segment, or is empty: between two slashes, or of parameters alone (not the empty text
     * before the path's first slash, nor after a plain trailing slash).
     */
    private static boolean hasDotOrEmptySegment(String path, int end) {
        int i = 0;
        while (i < end) {
            int segmentEnd = i;
            int contentEnd = -1;
            while (segmentEnd < end && path.charAt(segmentEnd) != '/') {
                if (path.charAt(segmentEnd) == ';' && contentEnd < 0) {
                    contentEnd = segmentEnd;
                }
                segmentEnd++;
            }
            if (isDotSegment(path, i, contentEnd < 0 ? segmentEnd : contentEnd)) {
                return true;
            }
            if (i > 0 && (contentEnd == i || (segmentEnd == i && segmentEnd < end))) {
                return true;
            }
            i = segmentEnd + 1;
        }
        return false;
    }

    /** Whether {@code path[from, to)} is {@code .} or {@code ..}, each dot written as itself or {@code %2E} (either case). */
    private static boolean isDotSegment(String path, int from, int to) {
        int dots = 0;
        int i = from;
        while (i < to && dots < 3) {
            if (path.charAt(i) == '.') {
                i++;
            } else if (path.charAt(i) == '%'
                    && i + 2 < to
                    && path.charAt(i + 1) == '2'
                    && (path.charAt(i + 2) | 0x20) == 'e') {
                i += 3;
            } else {
                return false;
            }
            dots++;
        }
        return i == to && dots > 0 && dots <= 2;
    }

    /**
     * Whether {@code path} is a key already, the common case: {@code /} and segments of characters
     * spelled as themselves, none empty, {@code .} or {@code ..}. Such a path is its own key under
     * either entry point (it has no {@code %}, {@code ;}, {@code ?} or {@code #}), and the request
     * allocates none.
     */
    private static boolean isCanonical(String path) {
        int n = path.length();
        if (n == 0 || path.charAt(0) != '/') {
            return false;
        }
        int segment = 1;
        for (int i = 1; i <= n; i++) {
            char c = i < n ? path.charAt(i) : '/';
            if (c == '/') {
                int length = i - segment;
                if ((length == 0 && n > 1)
                        || (length == 1 && path.charAt(segment) == '.')
                        || (length == 2 && path.charAt(segment) == '.' && path.charAt(segment + 1) == '.')) {
                    return false;
                }
                segment = i + 1;
            } else if (!PathEncoding.isLiteral(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The canonical key of {@code path[0, end)}, raw (decoded once here) or already decoded, built
     * character by character (tests compare {@link #isCanonical}'s shortcut with it).
     */
    static String canonical(String path, int end, boolean raw) {
        return canonical(path, end, raw, false);
    }

    /**
     * {@link #canonical(String, int, boolean)}; with {@code asRouted}, a raw dot-segment is kept as
     * {@code %2E} or {@code %2E%2E}, and an empty segment as {@code %} ({@link #asRouted}).
     */
    private static String canonical(String path, int end, boolean raw, boolean asRouted) {
        // Invariant: out is empty (the root) or a sequence of "/segment", each segment canonical,
        // non-empty and not a dot-segment (but for the kept ones, spelled with escapes, and the
        // empty ones kept as "%").
        StringBuilder out = new StringBuilder(end + 1);
        int i = 0;
        while (i < end) {
            if (path.charAt(i) == '/') {
                if (asRouted && i + 1 < end && path.charAt(i + 1) == '/') {
                    out.append('/').append(EMPTY_SEGMENT);
                }
                i++;
                continue;
            }
            int segmentEnd = i;
            int parametersAt = -1;
            while (segmentEnd < end) {
                char c = path.charAt(segmentEnd);
                if (c == '/') {
                    break;
                }
                if (raw && c == ';' && parametersAt < 0) {
                    parametersAt = segmentEnd;
                }
                segmentEnd++;
            }
            int mark = out.length();
            out.append('/');
            int contentEnd = parametersAt < 0 ? segmentEnd : parametersAt;
            if (raw) {
                PathEncoding.appendCanonical(path, i, contentEnd, out);
            } else {
                PathEncoding.appendDecoded(path, i, contentEnd, out);
            }
            int length = out.length() - mark - 1;
            if (asRouted && isDotSegment(path, i, contentEnd)) {
                out.setLength(mark + 1);
                out.append(length == 1 ? "%2E" : "%2E%2E");
            } else if (asRouted && length == 0) {
                out.append(EMPTY_SEGMENT);
            } else if (length == 0 || (length == 1 && out.charAt(mark + 1) == '.')) {
                out.setLength(mark);
            } else if (length == 2 && out.charAt(mark + 1) == '.' && out.charAt(mark + 2) == '.') {
                out.setLength(mark);
                removeLastSegment(out);
            }
            i = segmentEnd;
        }
        return out.length() == 0 ? ROOT : out.toString();
    }

    /**
     * Removes the last "/segment" of {@code out}, or nothing at the root. The backward scan only
     * passes over characters it then removes, so all scans of one call to normalize together stay
     * linear in the output length.
     */
    private static void removeLastSegment(StringBuilder out) {
        int k = out.length() - 1;
        if (k < 0) {
            return;
        }
        while (k > 0 && out.charAt(k) != '/') {
            k--;
        }
        out.setLength(k);
    }
}
