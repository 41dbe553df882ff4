package dev.leapgate.redis;

import io.lettuce.core.RedisURI;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringTokenizer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The store's URI ({@code store}), checked as Lettuce will read it before Lettuce reads it: Lettuce
 * ignores without a word, or reads otherwise than written, much that a user may mistype (an
 * unknown parameter, a database it cannot read, a timeout it reads in part, hosts it takes whole
 * for one name), and the store would then run against another Redis, another database or with no
 * limit on its connecting. Each check fails with what was written and what to write instead.
 */
final class RedisUris {

    private RedisUris() {}

    /**
     * Checks {@code uri}, whose scheme is {@code scheme}: its hosts, its database and its query
     * parameters.
     *
     * @throws IllegalArgumentException naming what Lettuce would not read as written
     */
    static void check(URI uri, String scheme) {
        checkHosts(uri, scheme);
        checkDatabase(uri, scheme);
        checkParameters(uri, scheme);
    }

    /** {@code text} as Lettuce reads it, or an error saying why it cannot. */
    static RedisURI redisUri(String text) {
        try {
            return RedisURI.create(text);
        } catch (RuntimeException e) {
            if (String.valueOf(e.getMessage()).contains("sentinelMasterId")) {
                throw new IllegalArgumentException(
                        "names no master: add ?sentinelMasterId=<the master's name>, e.g."
                                + " redis-sentinel://host1:26379,host2:26379/?sentinelMasterId=mymaster",
                        e);
            }
            throw new IllegalArgumentException("not a Redis URI: " + e.getMessage(), e);
        }
    }

    /**
     * Checks the database, the URI's path: a number ({@code /abc} failed with Lettuce's "For input
     * string"), and none for a Redis Cluster, which has database 0 alone (it was dropped unsaid).
     */
    private static void checkDatabase(URI uri, String scheme) {
        String path = uri.getRawPath();
        if (path == null || path.isEmpty() || path.equals("/")) {
            return;
        }
        if (scheme.endsWith("-cluster")) {
            throw new IllegalArgumentException(
                    "a Redis Cluster has database 0 alone; remove '" + path + "' (a key prefix keeps stores apart)");
        }
        if (!path.matches("/[0-9]{1,9}")) {
            throw new IllegalArgumentException(
                    "the database (the path) must be a number from 0, was '" + path + "' (redis://host:6379/1)");
        }
    }

    /** The query parameters Lettuce reads, as it matches them: in any case, but for {@code db}. */
    private static final List<String> PARAMETERS = List.of(
            "database", "sentinelMasterId", "verifyPeer", "clientName", "libraryName", "libraryVersion", "timeout");

    /** The values of {@code verifyPeer}, which Lettuce reads in any case ({@code SslVerifyMode}). */
    private static final List<String> VERIFY_MODES = List.of("NONE", "CA", "FULL");

    /**
     * A {@code timeout} as Lettuce reads it in full: a whole number and a unit ({@code ns}, {@code
     * us}, {@code ms}, {@code s}, {@code m}, {@code h}, {@code d}; it lower-cases the parameter).
     * It reads the digits before anything else and drops the rest unsaid: {@code abc} and {@code
     * ""} are its default (60 s), {@code 5} and {@code 5sec} 5 ms (an unknown unit is ms), {@code
     * -5s} zero.
     */
    private static final Pattern TIMEOUT = Pattern.compile("(?i)([0-9]{1,9})(ns|us|ms|s|m|h|d)");

    /**
     * The bounds of {@code timeout}. It is not a decision's wait ({@code store-timeout} is; commands
     * expire on the store's own limit): Lettuce gives it to connecting, each connection's handshake
     * (AUTH, HELLO, SELECT, CLIENT SETNAME, after every reconnection too), a Sentinel's answer naming
     * the master and a Redis Cluster's topology. Under a second a handshake to a busy or distant
     * Redis may time out (zero times every handshake out), and the
     * store would never connect: every shared decision would be its failure policy's, with {@code
     * open} no limit at all; over Lettuce's default, 60 s, a connection stuck half open holds the
     * store longer.
     */
    static final Duration MIN_URI_TIMEOUT = Duration.ofSeconds(1);

    static final Duration MAX_URI_TIMEOUT = Duration.ofSeconds(60);

    /**
     * The characters Redis takes in a client name and in the library's name and version ({@code
     * CLIENT SETNAME}, {@code CLIENT SETINFO}: printable ASCII, no space); it refuses the others, and
     * the handshake that sends them fails or goes on without them.
     */
    private static final Pattern CLIENT_INFO = Pattern.compile("[!-~]+");

    /**
     * Checks the URI's query parameters as Lettuce reads them: the query decoded, split at each
     * {@code &} and {@code ;}, each {@code name=value}. Lettuce ignores without a word a name it does
     * not know ({@code ?databse=3}), one without a value ({@code ?clientName=}), a database it cannot
     * read ({@code ?database=x}, the store then used database 0, with whatever else keeps its keys
     * there), a {@code timeout} it cannot read, or reads a part of it ({@code abc}: 60 s; {@code 5}: 5
     * ms; {@code -5s}: none), and {@code verifyPeer} on a URI without TLS (nothing to verify); of a
     * parameter named twice ({@code /0?database=3}) it uses one and ignores the other, and it ignores
     * {@code sentinelMasterId} on a URI that names no Sentinel (it connects to the host as a Redis). A
     * {@code verifyPeer} it cannot read failed with its "No enum constant
     * io.lettuce.core.SslVerifyMode.FALSE".
     */
    private static void checkParameters(URI uri, String scheme) {
        String query = uri.getQuery();
        if (query == null) {
            return;
        }
        String path = uri.getRawPath();
        // The parameters named so far, by the name Lettuce knows them by, as written; the database by
        // the path too (checkDatabase checked it).
        Map<String, String> named = new HashMap<>();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            named.put("database", "the path '" + path + "'");
        }
        StringTokenizer parameters = new StringTokenizer(query, "&;");
        while (parameters.hasMoreTokens()) {
            String parameter = parameters.nextToken();
            int equals = parameter.indexOf('=');
            String name = equals < 0 ? parameter : parameter.substring(0, equals);
            String value = equals < 0 ? "" : parameter.substring(equals + 1);
            boolean isDatabase = name.equals("db") || name.equalsIgnoreCase("database");
            String known = isDatabase
                    ? "database"
                    : PARAMETERS.stream()
                            .filter(name::equalsIgnoreCase)
                            .findFirst()
                            .orElse(null);
            if (known == null) {
                throw new IllegalArgumentException("unknown parameter '" + name + "'; the store's URI takes "
                        + "database (or db), sentinelMasterId, verifyPeer, clientName, libraryName, libraryVersion"
                        + " and timeout");
            }
            if (isDatabase && scheme.endsWith("-cluster")) {
                throw new IllegalArgumentException("a Redis Cluster has database 0 alone; remove '" + parameter
                        + "' (a key prefix keeps stores apart)");
            }
            if (isDatabase && !value.matches("[0-9]{1,9}")) {
                throw new IllegalArgumentException("the database (parameter " + name
                        + ") must be a number from 0, was '" + value + "' (redis://host:6379/1)");
            }
            String before = named.putIfAbsent(known, "'" + parameter + "'");
            if (before != null) {
                throw new IllegalArgumentException((isDatabase ? "the database" : "the parameter " + known)
                        + " is named twice, by " + before + " and by '" + parameter + "'; name it once"
                        + (isDatabase ? " (redis://host:6379/1)" : " (Lettuce would use one and ignore the other)"));
            }
            if (known.equals("verifyPeer") && VERIFY_MODES.stream().noneMatch(value::equalsIgnoreCase)) {
                throw new IllegalArgumentException("the parameter verifyPeer must be NONE, CA or FULL (in any case),"
                        + " was '" + value + "' (rediss://host:6379?verifyPeer=CA)");
            }
            if (known.equals("verifyPeer") && !scheme.startsWith("rediss")) {
                throw new IllegalArgumentException("'" + parameter + "' checks a TLS certificate, and a " + scheme
                        + ":// URI has no TLS (Lettuce ignores it); for TLS write "
                        + scheme.replaceFirst("redis", "rediss")
                        + "://..., else remove it");
            }
            if (known.equals("sentinelMasterId") && !scheme.endsWith("-sentinel")) {
                throw new IllegalArgumentException("'" + parameter + "' belongs to redis-sentinel:// and"
                        + " rediss-sentinel:// URIs, and a " + scheme + ":// URI ignores it (Lettuce connects to the"
                        + (scheme.endsWith("-cluster") ? " hosts" : " host") + " it names); for a Sentinel write"
                        + " redis-sentinel://host:port?sentinelMasterId=<the master's name>, else remove it");
            }
            if (known.equals("timeout")) {
                checkUriTimeout(value);
            }
            if ((known.equals("clientName") || known.startsWith("library"))
                    && !CLIENT_INFO.matcher(value).matches()) {
                throw new IllegalArgumentException("the parameter " + known + " must be printable ASCII without"
                        + " spaces (what Redis takes), was '" + value + "'"
                        + (value.isEmpty() ? " (Lettuce ignores" + " an empty one)" : ""));
            }
            if (value.isEmpty()) { // sentinelMasterId= (a Sentinel URI's master is checked by Lettuce)
                throw new IllegalArgumentException("the parameter " + known + " has no value (Lettuce ignores it)");
            }
        }
    }

    /** Checks the URI's {@code timeout}: what Lettuce reads it as, within the bounds of {@link #MIN_URI_TIMEOUT}. */
    private static void checkUriTimeout(String value) {
        Matcher m = TIMEOUT.matcher(value);
        String why = "the parameter timeout must be a whole number and a unit (ms, s, m), from "
                + MIN_URI_TIMEOUT.toSeconds() + "s to " + MAX_URI_TIMEOUT.toSeconds() + "s, was '" + value + "'";
        if (!m.matches()) {
            throw new IllegalArgumentException(why + " (Lettuce would read "
                    + (value.matches("[0-9]+") ? "a number alone as milliseconds" : "it otherwise or not at all")
                    + "); it bounds connecting to Redis, not a decision's wait, which is store-timeout");
        }
        long amount = Long.parseLong(m.group(1));
        Duration timeout = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "ns" -> Duration.ofNanos(amount);
            case "us" -> Duration.ofNanos(amount * 1000);
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
        if (timeout.compareTo(MIN_URI_TIMEOUT) < 0 || timeout.compareTo(MAX_URI_TIMEOUT) > 0) {
            throw new IllegalArgumentException(why + "; it bounds connecting to Redis (each connection's handshake,"
                    + " a Sentinel's answer, a Redis Cluster's topology), not a decision's wait, which is"
                    + " store-timeout");
        }
    }

    /**
     * Checks that each host of the URI is {@code host[:port]}: Lettuce takes an authority that is
     * not (a port with a typo, several hosts after {@code redis://}) whole for a host name, and would
     * never connect.
     */
    private static void checkHosts(URI uri, String scheme) {
        String authority = uri.getRawAuthority();
        // A '#', '/' or '?' in a password written unescaped ends the authority within the user
        // information, and what is left of it would be shown as a host: show none of it.
        String text = uri.toString();
        boolean cutShort =
                (authority == null || authority.indexOf('@') < 0) && text.lastIndexOf('@') > text.indexOf("://");
        authority = authority == null ? "" : withBrackets(authority.substring(authority.lastIndexOf('@') + 1));
        boolean several = scheme.endsWith("-cluster") || scheme.endsWith("-sentinel");
        for (String host : several ? authority.split(",", -1) : new String[] {authority}) {
            URI one;
            try {
                one = new URI("redis://" + host.strip());
            } catch (URISyntaxException e) {
                one = null;
            }
            boolean bad = one == null
                    || one.getHost() == null
                    || one.getRawUserInfo() != null
                    || !one.getRawPath().isEmpty();
            if (cutShort && (bad || one.getPort() == 0 || one.getPort() > 65535)) {
                throw new IllegalArgumentException("the host part ends before the '@': a password's"
                        + " reserved characters ('#', '/', '?') must be percent-encoded (%23, %2F, %3F)");
            }
            if (bad) {
                throw new IllegalArgumentException("'" + host + "' is not host[:port]"
                        + (host.contains(",") ? "; several hosts need redis-sentinel:// or redis-cluster://" : ""));
            }
            if (one.getPort() == 0 || one.getPort() > 65535) {
                throw new IllegalArgumentException("'" + host + "': the port must be 1 to 65535");
            }
        }
    }

    /**
     * The seed nodes of {@code redis-cluster://[user:password@]host:port[,host:port...][?parameters]},
     * each with the parameters ({@code verifyPeer}, {@code clientName}, ...).
     */
    static List<RedisURI> seeds(URI uri, String scheme) {
        String authority = uri.getRawAuthority();
        String userInfo = "";
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            userInfo = authority.substring(0, at + 1);
            authority = authority.substring(at + 1);
        }
        String query = uri.getRawQuery();
        List<RedisURI> seeds = new ArrayList<>();
        for (String host : withBrackets(authority).split(",")) {
            seeds.add(redisUri(scheme + "://" + userInfo + host.strip() + (query == null ? "" : "?" + query)));
        }
        return seeds;
    }

    /**
     * {@code hosts} with the brackets of IPv6 literals as written: the configuration percent-encodes
     * them in an authority of several hosts ({@code %5B::1%5D:7000,%5B::1%5D:7001}), which {@link URI}
     * cannot read otherwise. Lettuce decodes a Sentinel URI's hosts itself.
     */
    private static String withBrackets(String hosts) {
        return hosts.replaceAll("(?i)%5B", "[").replaceAll("(?i)%5D", "]");
    }
}
