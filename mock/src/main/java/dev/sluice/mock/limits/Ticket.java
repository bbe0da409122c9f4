package dev.sluice.mock.limits;

/**
 * An admitted request, handed back to {@link ProviderLimitModel#complete} when it ends.
 *
 * @param id unique within the model that issued it
 * @param tenant who sent the request
 * @param inputCharged input tokens charged to the input and total buckets
 * @param cacheReadTokens cache-read tokens the request declared
 * @param outputReserved output tokens reserved on arrival (0 in {@link OutputAccounting#ACTUAL_ONLY})
 * @param admittedAtNanos when it was admitted
 */
public record Ticket(
        long id, String tenant, long inputCharged, long cacheReadTokens, long outputReserved, long admittedAtNanos) {}
