package dev.sluice.governor;

import dev.sluice.limits.Dimension;

/**
 * What a request actually took, as the provider reported it.
 *
 * @param inputTokens input tokens that count against input limits
 * @param outputTokens output tokens produced (for a broken stream: what was produced)
 */
public record Usage(long inputTokens, long outputTokens) {

    public Usage {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("tokens: " + inputTokens + "/" + outputTokens + " (expected: >= 0)");
        }
    }

    long[] amounts() {
        long[] a = new long[Dimension.COUNT];
        a[Dimension.REQUESTS.ordinal()] = 1;
        a[Dimension.INPUT_TOKENS.ordinal()] = inputTokens;
        a[Dimension.OUTPUT_TOKENS.ordinal()] = outputTokens;
        a[Dimension.TOTAL_TOKENS.ordinal()] = inputTokens + outputTokens;
        a[Dimension.DAILY_REQUESTS.ordinal()] = 1;
        a[Dimension.DAILY_TOKENS.ordinal()] = inputTokens + outputTokens;
        return a;
    }
}
