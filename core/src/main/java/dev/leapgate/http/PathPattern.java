package dev.leapgate.http;

import dev.leapgate.net.HttpToken;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A compiled rule pattern that matches paths produced by {@link RequestPath#normalize}, optionally
 * restricted to one HTTP method. Its {@link #toString()} is the canonical pattern text, used as the
 * resource name: one per rule, never one per raw URL.
 *
 * <h2>Syntax</h2>
 *
 * <pre>
 *   pattern  = [ method whitespace ] path
 *   path     = "/" | 1*( "/" segment )
 *   segment  = literal | "*" | "{" name "}" | "**"   ("**" only as the last segment)
 * </pre>
 *
 * <ul>
 *   <li>A <b>literal</b> matches one segment spelled the same after canonicalization: a literal is
 *       spelled the way {@link RequestPath} spells request segments, so {@code /caf%c3%a9}, {@code
 *       /café} and {@code /%63afé} are one pattern, written {@code /caf%C3%A9}. Case-sensitive.
 *   <li>{@code *} and {@code {name}} match exactly one non-empty segment. A name starts with an ASCII
 *       letter and continues with letters, digits, {@code _} or {@code -}; names are unique within a
 *       pattern; regular expressions ({@code {id:\d+}}) are not supported.
 *   <li>{@code **} matches zero or more segments, so {@code /api/**} matches {@code /api}, {@code
 *       /api/x} and {@code /api/x/y}, but not {@code /apix}; {@code /**} matches every path.
 *   <li>{@code /} alone matches only the root.
 *   <li>The method is an RFC 9110 token. A method written in lower or mixed case whose upper case
 *       is a standard method ({@code get /x}) is refused as a mistake; any other token ({@code
 *       PURGE}, {@code MKCOL}) is taken as written. It matches the request's method in any ASCII
 *       case: methods are case-sensitive in HTTP, and servlet containers answer {@code get /x} 501,
 *       but Apache CXF serves {@code get}, {@code Get} and {@code head} with the resource method
 *       annotated {@code @GET} (it compares methods ignoring case), and so may any servlet that
 *       answers every method itself; a limit must not be dodged by a client writing its method in
 *       lower case. Without a method the pattern matches every method. A {@code GET} pattern also
 *       matches {@code HEAD}: servlets, JAX-RS and Spring all serve {@code HEAD} with the {@code GET}
 *       handler, so a limit on {@code GET} must not be dodged with {@code HEAD}; unless the pattern
 *       is made {@link #withoutHead()}, for a route whose {@code HEAD} requests another handler
 *       serves.
 * </ul>
 *
 * <p>Rejected, with an {@link IllegalArgumentException} naming the pattern: a path not starting with
 * {@code /}; empty segments ({@code //}, a trailing {@code /}) and dot-segments, which normalized
 * paths never contain; {@code ;}, {@code ?}, {@code #} and whitespace inside the path; {@code **} before
 * the last segment; {@code *} or braces inside a literal; invalid percent-escapes; empty, invalid or
 * duplicate variable names; an invalid method token.
 *
 * <h2>Specificity</h2>
 *
 * When several patterns match one request, {@link #mostSpecificFirst()} orders them so that the first
 * is the one to apply: exact patterns (literals only) first, then patterns with {@code *} or {@code
 * {name}}, then patterns ending in {@code **}; within a group, the longer literal prefix (counted in
 * segments), then more literal segments, then more segments, then a pattern with a method before one
 * without. Remaining ties are broken by the pattern text, so the order is total and deterministic.
 *
 * <p>Matching walks the path once, compares literals in place and allocates nothing; the pattern is
 * split into segments once, at parse time. Instances are immutable and safe to share between threads.
 */
public final class PathPattern {

    // Segment kinds. They double as specificity groups (a pattern's group is the largest kind it
    // holds), so their numeric order is the documented order: exact, then '*'/'{name}', then '**'.

    /** A literal segment, compared character by character. */
    private static final int LITERAL = 0;

    /** '*' or '{name}': exactly one non-empty segment. */
    private static final int ONE_SEGMENT = 1;

    /** '**': zero or more segments; only ever the last segment. */
    private static final int ANY_DEPTH = 2;

    private static final Comparator<PathPattern> MOST_SPECIFIC_FIRST = PathPattern::compareSpecificity;

    /** Upper-case method token, or null when the pattern matches every method. */
    private final String method;

    /** Canonical path text, starting with "/". */
    private final String path;

    /**
     * Pattern text: path, or method + " " + path; for a {@link #route} pattern, the template as
     * written. Defines equality, with the segments' kinds.
     */
    private final String text;

    /** Per segment, its kind (LITERAL, ONE_SEGMENT, ANY_DEPTH); ANY_DEPTH only at the end. */
    private final int[] kinds;

    /** Per segment, the canonical literal when its kind is LITERAL, else null. */
    private final String[] literals;

    /** Largest kind among the segments; LITERAL for an exact pattern. */
    private final int group;

    /** Number of LITERAL segments before the first other one. */
    private final int literalPrefix;

    /** Number of LITERAL segments in all. */
    private final int literalCount;

    /** Whether a GET pattern matches HEAD too: false once {@link #withoutHead()}. */
    private final boolean headAsGet;

    private PathPattern(String method, String path, int[] kinds, String[] literals) {
        this(method, path, method == null ? path : method + " " + path, kinds, literals, true);
    }

    private PathPattern(String method, String path, String text, int[] kinds, String[] literals, boolean headAsGet) {
        this.method = method;
        this.headAsGet = headAsGet;
        this.path = path;
        this.text = text;
        this.kinds = kinds;
        this.literals = literals;
        int maxKind = LITERAL;
        int prefix = -1;
        int count = 0;
        for (int s = 0; s < kinds.length; s++) {
            maxKind = Math.max(maxKind, kinds[s]);
            if (kinds[s] == LITERAL) {
                count++;
            } else if (prefix < 0) {
                prefix = s;
            }
        }
        this.group = maxKind;
        this.literalPrefix = prefix < 0 ? kinds.length : prefix;
        this.literalCount = count;
    }

    /**
     * Parses {@code pattern}, for example {@code "/login"}, {@code "POST /login"}, {@code
     * "/api/**"} or {@code "GET /users/{id}/orders/{orderId}"}. Leading and trailing whitespace is
     * ignored.
     *
     * @throws IllegalArgumentException when the pattern breaks a rule of the class comment; the
     *     message names the pattern and what is allowed
     */
    public static PathPattern parse(String pattern) {
        Objects.requireNonNull(pattern, "pattern");
        String trimmed = pattern.strip();
        if (trimmed.isEmpty()) {
            throw invalid(pattern, "must not be empty; expected '/path' or 'METHOD /path'");
        }
        String method = null;
        String path = trimmed;
        int space = indexOfWhitespace(trimmed, 0);
        if (space >= 0) {
            String token = trimmed.substring(0, space);
            path = trimmed.substring(space).strip();
            if (token.startsWith("/")) {
                throw invalid(
                        pattern,
                        "whitespace and control characters are not allowed in the path; write them as %XX, e.g. %20");
            }
            if (indexOfWhitespace(path, 0) >= 0) {
                if (!path.startsWith("/")) {
                    throw invalid(pattern, "expected '/path' or 'METHOD /path'");
                }
                throw invalid(
                        pattern,
                        "whitespace and control characters are not allowed in the path; write them as %XX, e.g. %20");
            }
            method = parseMethod(pattern, token, path);
        }
        if (!path.startsWith("/")) {
            throw invalid(pattern, "must start with '/'");
        }
        return new Compiler(pattern, method, path).compile();
    }

    /**
     * The pattern of exactly one route template, as a JAX-RS application names its requests by the
     * template they were matched through ({@code /users/{id}}, never {@code /users/42}): every
     * segment is a literal, so the variable {@code {id}} matches the template's own {@code {id}}
     * segment and not a sibling route such as {@code /users/me}. Its text, the resource name of a
     * rule with this pattern, is the template as the application writes it: {@code GET
     * /users/{id}}. It is not equal to the {@link #parse parsed} pattern of that text, whose
     * {@code {id}} matches any segment.
     *
     * @param method the HTTP method, upper case, or null for every method
     * @param template a route template without regular expressions, starting with {@code /}
     * @throws IllegalArgumentException when the template is not a valid path
     */
    public static PathPattern route(String method, String template) {
        Objects.requireNonNull(template, "template");
        String canonical = RequestPath.normalize(template); // braces spelled %7B and %7D: literals
        PathPattern literal = parse(method == null ? canonical : method + " " + canonical);
        String text = method == null ? template : method + " " + template;
        return new PathPattern(literal.method, literal.path, text, literal.kinds, literal.literals, true);
    }

    /**
     * This {@code GET} pattern matching {@code GET} requests only, not {@code HEAD}: for a route
     * whose {@code HEAD} requests another handler serves (a JAX-RS resource method annotated
     * {@code @HEAD} beside the {@code @GET} one), so that its limits do not count them. Its text is
     * this pattern's; it is not equal to it.
     *
     * @throws IllegalStateException if this pattern's method is not {@code GET}
     */
    public PathPattern withoutHead() {
        if (!"GET".equals(method)) {
            throw new IllegalStateException("only a GET pattern matches HEAD, not " + text);
        }
        return new PathPattern(method, path, text, kinds, literals, false);
    }

    /**
     * Whether a request with {@code requestMethod} and {@code normalizedPath} (as returned by {@link
     * RequestPath#normalize}) matches this pattern. A path not starting with {@code /} never matches.
     */
    public boolean matches(String requestMethod, String normalizedPath) {
        Objects.requireNonNull(requestMethod, "requestMethod");
        Objects.requireNonNull(normalizedPath, "normalizedPath");
        if (method != null && !methodMatches(requestMethod)) {
            return false;
        }
        int length = normalizedPath.length();
        if (length == 0 || normalizedPath.charAt(0) != '/') {
            return false;
        }
        int position = 1;
        for (int s = 0; s < kinds.length; s++) {
            int kind = kinds[s];
            if (kind == ANY_DEPTH) {
                return true;
            }
            if (position >= length) {
                return false;
            }
            int end = normalizedPath.indexOf('/', position);
            if (end < 0) {
                end = length;
            }
            if (kind == LITERAL) {
                String literal = literals[s];
                if (end - position != literal.length() || !normalizedPath.startsWith(literal, position)) {
                    return false;
                }
            } else if (end == position) {
                return false;
            }
            position = end + 1;
        }
        return position >= length;
    }

    /** The upper-case method this pattern is restricted to, or empty when it matches every method. */
    public Optional<String> method() {
        return Optional.ofNullable(method);
    }

    /** The canonical path part of the pattern, without the method. */
    public String path() {
        return path;
    }

    /**
     * Orders patterns most specific first, as described in the class comment: the first of the
     * matching patterns in this order is the one to apply. Consistent with {@link #equals}.
     */
    public static Comparator<PathPattern> mostSpecificFirst() {
        return MOST_SPECIFIC_FIRST;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PathPattern p
                && text.equals(p.text)
                && Arrays.equals(kinds, p.kinds)
                && headAsGet == p.headAsGet;
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /**
     * The pattern text, e.g. {@code GET /users/{id}}: canonical, so that parsing it gives an equal
     * pattern; for a {@link #route} pattern, its template.
     */
    @Override
    public String toString() {
        return text;
    }

    // The pattern's structure, for PatternIndex.

    /** Whether a request with {@code requestMethod} passes this pattern's method, if it has one. */
    boolean matchesMethod(String requestMethod) {
        return method == null || methodMatches(requestMethod);
    }

    int segmentCount() {
        return kinds.length;
    }

    /** The canonical literal of segment {@code s}, or null for {@code *}, {@code {name}} and {@code **}. */
    String literal(int s) {
        return literals[s];
    }

    /** Whether segment {@code s} is the final {@code **}. */
    boolean isAnyDepth(int s) {
        return kinds[s] == ANY_DEPTH;
    }

    /** Negative when {@code a} is more specific than {@code b}; see the class comment. */
    private static int compareSpecificity(PathPattern a, PathPattern b) {
        int order = Integer.compare(a.group, b.group);
        if (order == 0) {
            order = Integer.compare(b.literalPrefix, a.literalPrefix);
        }
        if (order == 0) {
            order = Integer.compare(b.literalCount, a.literalCount);
        }
        if (order == 0) {
            order = Integer.compare(b.kinds.length, a.kinds.length);
        }
        if (order == 0) {
            order = Boolean.compare(a.method == null, b.method == null);
        }
        if (order == 0) {
            order = a.text.compareTo(b.text);
        }
        return order != 0 ? order : Boolean.compare(a.headAsGet, b.headAsGet);
    }

    /**
     * The request's method is this pattern's in any ASCII case, or HEAD in any case for a GET
     * pattern, unless {@link #withoutHead()} (see the class comment). The exact spelling is tried first: it is what clients send.
     */
    private boolean methodMatches(String requestMethod) {
        return method.equals(requestMethod)
                || sameIgnoringAsciiCase(method, requestMethod)
                || (headAsGet && method.equals("GET") && sameIgnoringAsciiCase("HEAD", requestMethod));
    }

    /**
     * ASCII case only: {@link String#equalsIgnoreCase} would also take {@code POſT} (a long s) for
     * {@code POST}, a method no HTTP parser accepts.
     */
    private static boolean sameIgnoringAsciiCase(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        for (int i = 0; i < a.length(); i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                int lower = x | 0x20;
                if (lower != (y | 0x20) || lower < 'a' || lower > 'z') {
                    return false;
                }
            }
        }
        return true;
    }

    /** The methods of RFC 9110 and RFC 5789, which clients always send in upper case. */
    private static final Set<String> STANDARD_METHODS =
            Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH");

    private static String parseMethod(String pattern, String token, String path) {
        StringBuilder upper = new StringBuilder(token.length());
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (!HttpToken.isTokenChar(c)) {
                throw invalid(
                        pattern,
                        "method '" + token + "' is not an HTTP method token"
                                + " (allowed: ASCII letters, digits and !#$%&'*+-.^_`|~)");
            }
            upper.append(c >= 'a' && c <= 'z' ? (char) (c - ('a' - 'A')) : c);
        }
        String standard = upper.toString();
        if (!standard.equals(token) && STANDARD_METHODS.contains(standard)) {
            throw invalid(
                    pattern,
                    "methods are case-sensitive (RFC 9110) and clients send '" + standard + "', never '" + token
                            + "'; did you mean " + standard + " " + path + "?");
        }
        return token;
    }

    private static int indexOfWhitespace(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c) || Character.isSpaceChar(c) || Character.isISOControl(c)) {
                return i;
            }
        }
        return -1;
    }

    private static IllegalArgumentException invalid(String pattern, String reason) {
        return new IllegalArgumentException("invalid path pattern '" + pattern + "': " + reason);
    }

    /** Splits and validates the path part once; not reused. */
    private static final class Compiler {
        private final String pattern;
        private final String method;
        private final String path;

        Compiler(String pattern, String method, String path) {
            this.pattern = pattern;
            this.method = method;
            this.path = path;
        }

        PathPattern compile() {
            rejectCharacter('?', "must not contain '?' or '#': the query and fragment are not part of request paths");
            rejectCharacter('#', "must not contain '?' or '#': the query and fragment are not part of request paths");
            rejectCharacter(';', "must not contain ';': matrix parameters are removed from request paths");
            if (path.equals("/")) {
                return new PathPattern(method, path, new int[0], new String[0]);
            }
            int count = 0;
            for (int i = 0; i < path.length(); i++) {
                if (path.charAt(i) == '/') {
                    count++;
                }
            }
            int[] kinds = new int[count];
            String[] literals = new String[count];
            Set<String> names = new HashSet<>();
            StringBuilder canonical = new StringBuilder(path.length() + 8);
            int start = 1;
            for (int s = 0; s < count; s++) {
                int end = path.indexOf('/', start);
                if (end < 0) {
                    end = path.length();
                }
                String segment = path.substring(start, end);
                canonical.append('/');
                if (segment.isEmpty()) {
                    throw invalid(
                            pattern,
                            "empty segment ('//' or a trailing '/') is not allowed:"
                                    + " request paths are normalized without them");
                } else if (segment.equals("**")) {
                    if (s != count - 1) {
                        throw invalid(pattern, "'**' is allowed only as the last segment");
                    }
                    kinds[s] = ANY_DEPTH;
                    canonical.append(segment);
                } else if (segment.equals("*")) {
                    kinds[s] = ONE_SEGMENT;
                    canonical.append(segment);
                } else if (segment.indexOf('{') >= 0 || segment.indexOf('}') >= 0) {
                    String name = variableName(segment);
                    if (!names.add(name)) {
                        throw invalid(pattern, "duplicate variable name '" + name + "'");
                    }
                    kinds[s] = ONE_SEGMENT;
                    canonical.append(segment);
                } else {
                    literals[s] = literal(segment);
                    kinds[s] = LITERAL;
                    canonical.append(literals[s]);
                }
                start = end + 1;
            }
            return new PathPattern(method, canonical.toString(), kinds, literals);
        }

        private void rejectCharacter(char c, String reason) {
            if (path.indexOf(c) >= 0) {
                throw invalid(pattern, reason);
            }
        }

        private String variableName(String segment) {
            if (segment.length() < 2
                    || segment.charAt(0) != '{'
                    || segment.charAt(segment.length() - 1) != '}'
                    || segment.indexOf('{', 1) >= 0
                    || segment.indexOf('}') != segment.length() - 1) {
                throw invalid(pattern, "a variable must be a whole segment '{name}', was '" + segment + "'");
            }
            String name = segment.substring(1, segment.length() - 1);
            if (name.isEmpty()) {
                throw invalid(pattern, "empty variable name '{}': write '{name}', or '*' for an unnamed segment");
            }
            boolean valid = isAsciiLetter(name.charAt(0));
            for (int i = 1; valid && i < name.length(); i++) {
                char c = name.charAt(i);
                valid = isAsciiLetter(c) || (c >= '0' && c <= '9') || c == '_' || c == '-';
            }
            if (!valid) {
                throw invalid(
                        pattern,
                        "variable name '" + name + "' must start with an ASCII letter and contain only"
                                + " letters, digits, '_' and '-' (regular expressions are not supported)");
            }
            return name;
        }

        private String literal(String segment) {
            if (segment.indexOf('*') >= 0) {
                throw invalid(
                        pattern,
                        "'*' must be a whole segment ('*' or '**'), was '" + segment
                                + "'; write %2A for a literal asterisk");
            }
            if (PathEncoding.invalidEscapeAt(segment, 0, segment.length()) >= 0) {
                throw invalid(
                        pattern,
                        "invalid percent-escape in segment '" + segment
                                + "': '%' must be followed by two hex digits; write %25 for a literal '%'");
            }
            StringBuilder out = new StringBuilder(segment.length());
            PathEncoding.appendCanonical(segment, 0, segment.length(), out);
            String literal = out.toString();
            if (literal.equals(".") || literal.equals("..")) {
                throw invalid(
                        pattern,
                        "dot-segment '" + segment + "' is not allowed: request paths are normalized without them");
            }
            return literal;
        }

        private static boolean isAsciiLetter(char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }
    }
}
