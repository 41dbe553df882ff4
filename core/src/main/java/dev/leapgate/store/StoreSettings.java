package dev.leapgate.store;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where the shared windows are and how to use them: the {@code store*} settings.
 *
 * @param uri where the store is, e.g. {@code redis://127.0.0.1:6379}; its scheme chooses the
 *     provider
 * @param keyPrefix the prefix of every key the store writes
 * @param timeout the most one decision may wait for the store; then the failure policy decides
 * @param onFailure what a shared rule does while the store cannot decide
 * @param instances the instances sharing the store, for {@link FailurePolicy#LOCAL_SHARE}; 0 to
 *     count the instances seen in the store
 */
public record StoreSettings(URI uri, String keyPrefix, Duration timeout, FailurePolicy onFailure, int instances) {

    public static final String DEFAULT_KEY_PREFIX = "leapgate";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(50);
    /** The longest {@code timeout}: a request must never hang on the limiter. */
    public static final Duration MAX_TIMEOUT = Duration.ofSeconds(10);

    /**
     * What a key prefix is made of: what Redis keys are safely made of, without the hash-tag
     * braces (a prefix {@code {app}} would put every key in one Redis Cluster slot).
     */
    public static final Pattern KEY_PREFIX = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

    public StoreSettings {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(onFailure, "onFailure");
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException(
                    "timeout must be positive and at most " + MAX_TIMEOUT + ", was " + timeout);
        }
        if (!KEY_PREFIX.matcher(keyPrefix).matches()) {
            throw new IllegalArgumentException(
                    "keyPrefix must be 1 to 64 letters, digits, '_', '.', ':' or '-', was '" + keyPrefix + "'");
        }
        if (instances < 0) {
            throw new IllegalArgumentException("instances must not be negative, was " + instances);
        }
    }

    /**
     * The URI as logs and messages show it: without a password. Read from the authority as written,
     * since {@link URI#getRawUserInfo()} is null for an authority of several hosts ({@code
     * redis-sentinel://:password@host1:26379,host2:26379}, {@code redis-cluster://...}). IPv6 hosts
     * in brackets as written: the configuration percent-encodes the brackets of several such hosts,
     * which {@link URI} cannot read otherwise.
     */
    public String shownUri() {
        String shown = withoutPassword(uri.toString());
        String authority = uri.getRawAuthority();
        if (authority == null || !authority.contains("%5B")) {
            return shown;
        }
        String hosts = authority.substring(authority.lastIndexOf('@') + 1);
        return shown.replace(hosts, hosts.replace("%5B", "[").replace("%5D", "]"));
    }

    /**
     * The settings, the URI as {@link #shownUri()} shows it: a record's own text showed its password
     * to whatever logs the settings, or the configuration that holds them.
     */
    @Override
    public String toString() {
        return "StoreSettings[uri=" + shownUri() + ", keyPrefix=" + keyPrefix + ", timeout=" + timeout + ", onFailure="
                + onFailure + ", instances=" + instances + "]";
    }

    /**
     * {@code text}, a store URI as written (also one that does not parse), with the password in its
     * user information replaced by {@code ***}: everything between {@code ://} (or the start, if
     * the scheme is missing) and the last {@code @}, but for a user name before a {@code :}.
     */
    public static String withoutPassword(String text) {
        int scheme = text.indexOf("://");
        int from = scheme < 0 ? 0 : scheme + 3; // without a scheme, the user information comes first
        int at = text.lastIndexOf('@');
        if (at < from) {
            return text;
        }
        String userInfo = text.substring(from, at);
        int colon = userInfo.indexOf(':');
        String shown = colon < 0 ? "***" : userInfo.substring(0, colon) + ":***"; // user:password, or a password
        return text.substring(0, from) + shown + text.substring(at);
    }

    /** {@code uri} with the defaults: prefix {@code leapgate}, 50 ms, local share, instances counted. */
    public static StoreSettings of(URI uri) {
        return new StoreSettings(uri, DEFAULT_KEY_PREFIX, DEFAULT_TIMEOUT, FailurePolicy.LOCAL_SHARE, 0);
    }
}
