package dev.leapgate.store;

/**
 * A shared store's answer to one decision.
 *
 * @param admitted whether the permits fit and were counted
 * @param bucket the bucket the permits were counted in (for a refund); when rejected, the newest
 *     bucket of the window
 * @param remaining permits left in the window after this decision
 * @param nowMicros the store's time of the decision, in microseconds since its time origin
 * @param retryMicros when rejected, microseconds from {@code nowMicros} until the permits would
 *     fit if nothing else were admitted meanwhile; 0 when admitted
 */
public record Verdict(boolean admitted, long bucket, long remaining, long nowMicros, long retryMicros) {}
