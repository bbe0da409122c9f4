package dev.sluice.governor;

/**
 * What a request actually took, as the provider reported it.
 *
 * @param inputTokens input tokens that count against input limits
 * @param outputTokens output tokens produced (for a broken stream: what was produced)
 * @param costMicros what it cost at the deployment's prices, in micro-dollars (cache reads at their
 *     own price); settles the {@code daily_cost} and {@code monthly_cost} caps as the tokens settle the token limits
 */
public record Usage(long inputTokens, long outputTokens, long costMicros) {

    public Usage {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("tokens: " + inputTokens + "/" + outputTokens + " (expected: >= 0)");
        }
        if (costMicros < 0) {
            throw new IllegalArgumentException("costMicros: " + costMicros + " (expected: >= 0)");
        }
    }

    /** Usage without a price: nothing against a money cap. */
    public Usage(long inputTokens, long outputTokens) {
        this(inputTokens, outputTokens, 0);
    }

    long[] amounts() {
        return Amounts.of(inputTokens, outputTokens, 0, 0, costMicros);
    }
}
