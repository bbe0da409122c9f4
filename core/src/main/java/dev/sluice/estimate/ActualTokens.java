package dev.sluice.estimate;

/**
 * What the provider reported once a request settled, normalised so every provider means the same.
 *
 * @param inputTokens     the whole prompt, cache reads and cache writes included. OpenAI
 *                        {@code prompt_tokens} and Gemini {@code promptTokenCount} already are;
 *                        for Anthropic pass {@code input_tokens + cache_creation_input_tokens +
 *                        cache_read_input_tokens}
 * @param outputTokens    generated tokens, reasoning tokens included
 * @param cacheReadTokens the part of {@code inputTokens} served from the prompt cache (OpenAI
 *                        {@code cached_tokens}, Anthropic {@code cache_read_input_tokens}, Gemini
 *                        {@code cachedContentTokenCount})
 */
public record ActualTokens(long inputTokens, long outputTokens, long cacheReadTokens) {

    /** Validates that counts are non-negative and cache reads are part of the input. */
    public ActualTokens {
        if (inputTokens < 0) {
            throw new IllegalArgumentException("inputTokens: " + inputTokens + " (expected: >= 0)");
        }
        if (outputTokens < 0) {
            throw new IllegalArgumentException("outputTokens: " + outputTokens + " (expected: >= 0)");
        }
        if (cacheReadTokens < 0 || cacheReadTokens > inputTokens) {
            throw new IllegalArgumentException("cacheReadTokens: " + cacheReadTokens
                    + " (expected: >= 0 and <= inputTokens " + inputTokens + ")");
        }
    }
}
