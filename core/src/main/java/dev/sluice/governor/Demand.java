package dev.sluice.governor;

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

    /** The amount vector the store takes. */
    long[] amounts() {
        return Amounts.of(inputTokens, outputTokens, 1, streaming ? 1 : 0);
    }
}
