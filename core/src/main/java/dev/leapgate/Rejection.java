package dev.leapgate;

import java.time.Duration;
import java.util.List;

/**
 * A request that was not admitted: which rule said no, why, and when a retry could succeed.
 *
 * <p>Rejections are made by Leapgate's limiters; subclassing this class elsewhere is not useful.
 * (It is an abstract class, not an interface, so that {@code decision instanceof Rejection} is a
 * constant-time check.)
 */
public abstract non-sealed class Rejection implements Decision {

    /** For Leapgate's limiters. */
    protected Rejection() {}

    @Override
    public final boolean admitted() {
        return false;
    }

    /**
     * The name of the rule that rejected the request; {@code "deny"} for an origin on the deny
     * list (whose {@link #quota()} is null), a name no rule may have.
     */
    public abstract String rule();

    /** Why, in a few words, for logs and response bodies: {@code "limit exceeded"}. */
    public abstract String reason();

    /**
     * Where the request stands against the rejecting rule; {@code null} for a rejection that no
     * quota describes: a denied origin, and a shared rule whose store could not decide (reason
     * {@code "shared store unavailable"}, {@code store-on-failure = closed}), whose {@link
     * #quotas()} are empty too. Computed when asked: see {@link #retryAfter()}.
     */
    public abstract Quota quota();

    /**
     * How long until a retry could succeed if nothing else were admitted meanwhile (under every
     * rule that applied, not only the rejecting one), without waiting: a retry to a borrowing rule
     * less than one bucket sooner (at most its longest wait) may be admitted by a loan of the next
     * bucket, which it then waits for; {@link
     * Duration#ZERO} when unknown ahead of time (a concurrency limit frees a slot whenever a request
     * completes), and when no retry of the same request can succeed: a denied origin never gets in,
     * nor does a request for more permits than the limit (reason {@code "request needs more permits
     * than the limit"}). One second for a shared rule whose store could not decide (reason {@code
     * "shared store unavailable"}): its store is asked again on the next request (longer if another
     * rule that applied knows a longer wait).
     *
     * <p>Computed when asked, from the rule's counters, so that rejecting costs no more than
     * admitting: as of the moment it is asked for a one-permit request over its limit on rules that
     * everyone shares (such rejections are one shared object), and as of the decision for any other
     * (a rule counted per origin, a request for several permits, another reason). Ask right away,
     * as the HTTP adapters do.
     */
    public abstract Duration retryAfter();

    @Override
    public List<Quota> quotas() {
        Quota quota = quota();
        return quota == null ? List.of() : List.of(quota);
    }

    @Override
    public String toString() {
        return "Rejection[rule=" + rule() + ", reason=" + reason() + "]";
    }
}
