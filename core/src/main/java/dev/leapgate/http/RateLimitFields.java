package dev.leapgate.http;

import dev.leapgate.Quota;
import java.time.Duration;
import java.util.List;

/**
 * The values of the rate-limit response header fields, as both adapters send them.
 *
 * <ul>
 *   <li>{@code Retry-After} (RFC 9110): whole seconds, rounded up, at least 1.
 *   <li>{@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers-11):
 *       Structured Field lists with one item per rule that applied, the policy name a quoted
 *       string: {@code RateLimit-Policy: "per-ip";q=100;w=10} and {@code RateLimit:
 *       "per-ip";r=0;t=7}. {@code q} is the quota, {@code w} the window in seconds (rounded up),
 *       {@code r} what remains, {@code t} seconds until the quota is whole again (rounded up). An
 *       in-flight limit is {@code "slots";q=20;qu="concurrent-requests"} with no window, and no
 *       {@code t}. A paced or warm-up rule's {@code r} is how many more requests its schedule would
 *       admit now (within {@code max-queue}; 0 when the next would be rejected), and its {@code t}
 *       the seconds until its schedule is free.
 * </ul>
 *
 * Seconds are at most {@link #MAX_SECONDS}. Core computes every retry and reset within a window
 * or a queue (at most 24 h) and a bucket; the bound only keeps a wrong computation from being sent
 * as what no client reads (a 64-bit count of seconds, or a negative one where the nanoseconds
 * overflowed on rounding up), and stays absurd enough (68 years) to be noticed, not mistaken for
 * a plausible wait.
 *
 * Rule names are restricted to letters, digits, {@code -} and {@code _} (a {@link Quota} refuses
 * any other name, one made by hand too), so they never need escaping inside a quoted string.
 *
 * <p>An application may send these fields itself on a response that Leapgate admitted (quotas of
 * its own, an upstream's that it passes on): then each field goes out as one line, the
 * application's items first and Leapgate's after them ({@link #combine}), whichever adapter runs
 * it. A rejection carries Leapgate's fields alone: the application never ran.
 */
public final class RateLimitFields {

    public static final String RETRY_AFTER = "Retry-After";
    public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    public static final String RATE_LIMIT = "RateLimit";
    /** Sent as {@code no-store} with every rejection: see {@link HttpGate#rejection}. */
    public static final String CACHE_CONTROL = "Cache-Control";

    /**
     * The most seconds any field says: 2<sup>31</sup> - 1, which a 32-bit delta-seconds parser
     * holds (RFC 9111 has a cache read any larger delta-seconds as 2<sup>31</sup>).
     */
    static final long MAX_SECONDS = Integer.MAX_VALUE;

    private RateLimitFields() {}

    /**
     * The one value of a field ({@code RateLimit-Policy} or {@code RateLimit}) on an admitted
     * response that the application set the field on too: the application's items, then
     * Leapgate's, as one list. Both fields are lists of named policies, and the draft lets a
     * server list several; neither set replaces the other. One line rather than two: the draft
     * lets a list be split over several field lines (sections 3 and 4), but many clients read the
     * first line alone.
     *
     * <p>{@code application} is the application's value, its field lines joined with commas; null
     * or blank for none (then Leapgate's value alone). Its items are the application's business:
     * they are passed on as written (without the blanks around them), not parsed. A value that
     * already holds Leapgate's (the application read the field, with Leapgate's items in it, and
     * added to it) is returned as it is, so that Leapgate's items are not listed twice.
     *
     * @param application the application's value of the field, or null
     * @param leapgate Leapgate's value of the field for this response
     */
    public static String combine(String application, String leapgate) {
        String own = application == null ? "" : withoutEmptyEnds(application);
        if (own.isEmpty()) {
            return leapgate;
        }
        if (leapgate.isEmpty() || holdsItems(application, leapgate)) {
            return application;
        }
        return own + ", " + leapgate;
    }

    /**
     * {@code value} without the blanks and commas at its ends: an application's value that ends in
     * a comma ({@code "daily";r=9,}) would otherwise hold an empty member once Leapgate's items
     * follow, which a strict parser refuses, and drops the whole field, Leapgate's items with it.
     */
    private static String withoutEmptyEnds(String value) {
        int from = 0;
        int to = value.length();
        while (from < to && (value.charAt(from) == ',' || value.charAt(from) == ' ' || value.charAt(from) == '\t')) {
            from++;
        }
        while (to > from
                && (value.charAt(to - 1) == ',' || value.charAt(to - 1) == ' ' || value.charAt(to - 1) == '\t')) {
            to--;
        }
        return value.substring(from, to);
    }

    /**
     * Whether {@code application} holds {@code leapgate} as whole list members: where it starts
     * and ends an item, not inside one that only begins like it ({@code "login";q=5;w=600} is
     * another policy than {@code "login";q=5;w=60}).
     */
    private static boolean holdsItems(String application, String leapgate) {
        for (int at = application.indexOf(leapgate); at >= 0; at = application.indexOf(leapgate, at + 1)) {
            int end = at + leapgate.length();
            int before = at - 1;
            while (before >= 0 && (application.charAt(before) == ' ' || application.charAt(before) == '\t')) {
                before--;
            }
            int after = end;
            while (after < application.length()
                    && (application.charAt(after) == ' ' || application.charAt(after) == '\t')) {
                after++;
            }
            if ((before < 0 || application.charAt(before) == ',')
                    && (after == application.length() || application.charAt(after) == ',')) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whole seconds, rounded up, at least 1 (at most {@link #MAX_SECONDS}): a client that waits
     * that long may succeed.
     */
    public static long retryAfterSeconds(Duration retryAfter) {
        return Math.max(1, ceilSeconds(retryAfter));
    }

    /** The {@code RateLimit-Policy} value for these quotas; empty for none. */
    public static String policy(List<Quota> quotas) {
        if (quotas.size() == 1) { // the common case (a rejection by one rule), as one concatenation
            Quota quota = quotas.get(0);
            return policyItem(quota.rule(), quota.limit(), quota.window());
        }
        StringBuilder value = new StringBuilder();
        for (Quota quota : quotas) {
            if (value.length() > 0) {
                value.append(", ");
            }
            value.append(policyItem(quota.rule(), quota.limit(), quota.window()));
        }
        return value.toString();
    }

    /** One rule's item of {@code RateLimit-Policy}; {@code window} null for an in-flight limit. */
    static String policyItem(String rule, long limit, Duration window) {
        return window == null
                ? '"' + rule + "\";q=" + limit + ";qu=\"concurrent-requests\""
                : '"' + rule + "\";q=" + limit + ";w=" + Math.max(1, ceilSeconds(window.toNanos()));
    }

    /** The {@code RateLimit} value for these quotas; empty for none. */
    public static String rateLimit(List<Quota> quotas) {
        if (quotas.size() == 1) { // as one concatenation, as policy
            Quota quota = quotas.get(0);
            return rateLimit(
                    rateLimitPrefix(quota.rule()),
                    quota.remaining(),
                    quota.isInFlight() ? -1 : quota.reset().toNanos());
        }
        StringBuilder value = new StringBuilder();
        for (Quota quota : quotas) {
            if (value.length() > 0) {
                value.append(", ");
            }
            appendRateLimit(
                    value,
                    quota.rule(),
                    quota.remaining(),
                    quota.isInFlight() ? -1 : quota.reset().toNanos());
        }
        return value.toString();
    }

    /** What precedes the remaining count in a rule's item of {@code RateLimit}: {@code "name";r=}. */
    static String rateLimitPrefix(String rule) {
        return '"' + rule + "\";r=";
    }

    /**
     * The {@code RateLimit} value of one rule, from its {@link #rateLimitPrefix}, as one
     * concatenation (a single string, no builder); {@code resetNanos} negative for an in-flight limit.
     */
    static String rateLimit(String prefix, long remaining, long resetNanos) {
        return resetNanos < 0 ? prefix + remaining : prefix + remaining + ";t=" + ceilSeconds(resetNanos);
    }

    /** The {@code RateLimit} value of two rules, in this order, as one concatenation. */
    static String rateLimit(
            String prefix1, long remaining1, long resetNanos1, String prefix2, long remaining2, long resetNanos2) {
        if (resetNanos1 >= 0 && resetNanos2 >= 0) {
            return prefix1 + remaining1 + ";t=" + ceilSeconds(resetNanos1) + ", " + prefix2 + remaining2 + ";t="
                    + ceilSeconds(resetNanos2);
        }
        if (resetNanos1 >= 0) {
            return prefix1 + remaining1 + ";t=" + ceilSeconds(resetNanos1) + ", " + prefix2 + remaining2;
        }
        if (resetNanos2 >= 0) {
            return prefix1 + remaining1 + ", " + prefix2 + remaining2 + ";t=" + ceilSeconds(resetNanos2);
        }
        return prefix1 + remaining1 + ", " + prefix2 + remaining2;
    }

    /** Appends one rule's item of {@code RateLimit}; {@code resetNanos} negative for an in-flight limit. */
    static StringBuilder appendRateLimit(StringBuilder value, String rule, long remaining, long resetNanos) {
        value.append('"').append(rule).append("\";r=").append(remaining);
        if (resetNanos >= 0) {
            value.append(";t=").append(ceilSeconds(resetNanos));
        }
        return value;
    }

    private static long ceilSeconds(Duration d) {
        long seconds = d.getSeconds();
        return seconds >= MAX_SECONDS ? MAX_SECONDS : d.getNano() > 0 ? seconds + 1 : seconds;
    }

    /** Whole seconds, rounded up, of non-negative nanoseconds: at most {@link #MAX_SECONDS}, never overflowing. */
    private static long ceilSeconds(long nanos) {
        return nanos >= MAX_SECONDS * 1_000_000_000L ? MAX_SECONDS : (nanos + 999_999_999L) / 1_000_000_000L;
    }
}
