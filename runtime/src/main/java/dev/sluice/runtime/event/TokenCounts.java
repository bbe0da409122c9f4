package dev.sluice.runtime.event;

/**
 * Tokens per dimension, as estimated before a request left or as the provider reported them.
 *
 * @param input prompt tokens not read from the provider's cache
 * @param output generated tokens
 * @param cacheRead prompt tokens read from the cache (0 in an estimate that expects none)
 * @param costMicros what they cost (or were reserved as costing) at the price table, in
 *     micro-dollars; 0 for a model without a price
 */
public record TokenCounts(long input, long output, long cacheRead, long costMicros) {

    /** Nothing: a request that was never quoted, or an attempt that produced nothing. */
    public static final TokenCounts NONE = new TokenCounts(0, 0, 0, 0);

    public TokenCounts {
        if (input < 0 || output < 0 || cacheRead < 0 || costMicros < 0) {
            throw new IllegalArgumentException("token counts: " + input + "/" + output + "/" + cacheRead
                    + "/" + costMicros + " (expected: >= 0)");
        }
    }

    /** Counts without a cost. */
    public TokenCounts(long input, long output, long cacheRead) {
        this(input, output, cacheRead, 0);
    }
}
