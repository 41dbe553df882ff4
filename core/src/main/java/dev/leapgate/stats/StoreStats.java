package dev.leapgate.stats;

/**
 * How a rule that shares its window through a store (Redis) is doing.
 *
 * @param available whether the store decided the rule's latest decision (false while the failure
 *     policy decides in its place)
 * @param decidedWithoutStore decisions the failure policy made because the store did not decide
 *     within the time budget, since the rule was made (a version changed by a reload, in the same
 *     mode, goes on from its previous version's)
 * @param outages times the store stopped deciding after it had, since the rule was made (likewise)
 */
public record StoreStats(boolean available, long decidedWithoutStore, long outages) {}
