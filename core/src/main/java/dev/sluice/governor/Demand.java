package dev.sluice.governor;

import dev.sluice.limits.Dimension;

/**
 * What a request is expected to take, from preflight estimation.
 *
 * @param inputTokens estimated input tokens that count against input limits (cache reads the
 *     provider does not count are already left out)
 * @param outputTokens estimated output tokens
 * @param streaming whether the request holds a stream slot
 */
public record Demand(long inputTokens, long outputTokens, boolean streaming) {

    public Demand {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("tokens: " + inputTokens + "/" + outputTokens + " (expected: >= 0)");
        }
    }

    /** The amount vector, indexed by {@link Dimension#ordinal()}. */
    long[] amounts() {
        long[] a = new long[Dimension.COUNT];
        a[Dimension.REQUESTS.ordinal()] = 1;
        a[Dimension.INPUT_TOKENS.ordinal()] = inputTokens;
        a[Dimension.OUTPUT_TOKENS.ordinal()] = outputTokens;
        a[Dimension.TOTAL_TOKENS.ordinal()] = inputTokens + outputTokens;
        a[Dimension.CONCURRENT_REQUESTS.ordinal()] = 1;
        a[Dimension.CONCURRENT_STREAMS.ordinal()] = streaming ? 1 : 0;
        a[Dimension.DAILY_REQUESTS.ordinal()] = 1;
        a[Dimension.DAILY_TOKENS.ordinal()] = inputTokens + outputTokens;
        return a;
    }
}
