package dev.leapgate;

/**
 * The answer to a request to enter: either an {@link Entry} (admitted; close it when the work is
 * done) or a {@link Rejection} (with the limit, what remains and when to retry). Limiters return
 * a decision rather than throw, so that rejecting is as cheap as admitting.
 *
 * <pre>{@code
 * Decision decision = limiter.tryEnter();
 * if (decision instanceof Entry entry) {
 *     try (entry) {
 *         return handle(request);
 *     } catch (RuntimeException e) {
 *         entry.fail(e);
 *         throw e;
 *     }
 * }
 * Rejection rejection = (Rejection) decision;
 * return tooManyRequests(rejection.retryAfter());
 * }</pre>
 */
public sealed interface Decision permits Entry, Rejection {

    /** Whether the request was admitted; if so this decision is an {@link Entry}. */
    boolean admitted();

    /** The limit that governs this request: the one that rejected it, or the tightest one. */
    long limit();

    /** Permits left under {@link #limit()} at the time of the decision. */
    long remaining();
}
