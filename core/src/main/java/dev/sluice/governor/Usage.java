package dev.sluice.governor;

import dev.sluice.limits.Dimension;

/**
 * What a request actually took, as the provider reported it.
 *
 * @param inputTokens input tokens that count against input limits
 * @param outputTokens output tokens produced (for a broken stream: what was produced)
 * @param costMicros what it cost at the deployment's prices, in micro-dollars (cache reads at their
 *     own price); settles the {@code daily_cost} and {@code monthly_cost} caps as the tokens settle the token limits
 * @param requestCounted whether the request itself counts ({@code rpm}, {@code daily_requests}): true
 *     for everything the provider counted; false gives the request back too, for a refusal the
 *     provider does not count against its limits
 */
public record Usage(long inputTokens, long outputTokens, long costMicros, boolean requestCounted) {

    /** Nothing at all, not even the request: what a request the provider did not count is charged. */
    public static final Usage UNCOUNTED = new Usage(0, 0, 0, false);

    public Usage {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("tokens: " + inputTokens + "/" + outputTokens + " (expected: >= 0)");
        }
        if (costMicros < 0) {
            throw new IllegalArgumentException("costMicros: " + costMicros + " (expected: >= 0)");
        }
    }

    /** Usage of a request that counted, costing {@code costMicros}. */
    public Usage(long inputTokens, long outputTokens, long costMicros) {
        this(inputTokens, outputTokens, costMicros, true);
    }

    /** Usage without a price: nothing against a money cap. */
    public Usage(long inputTokens, long outputTokens) {
        this(inputTokens, outputTokens, 0);
    }

    long[] amounts() {
        long[] a = Amounts.of(inputTokens, outputTokens, 0, 0, costMicros);
        if (!requestCounted) {
            a[Dimension.REQUESTS.ordinal()] = 0;
            a[Dimension.DAILY_REQUESTS.ordinal()] = 0;
        }
        return a;
    }
}
