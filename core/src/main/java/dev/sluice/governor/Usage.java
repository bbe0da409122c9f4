package dev.sluice.governor;

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
        return Amounts.of(inputTokens, outputTokens, 0, 0);
    }
}
