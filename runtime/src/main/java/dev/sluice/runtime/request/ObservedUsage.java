package dev.sluice.runtime.request;

import dev.sluice.estimate.ActualTokens;

/**
 * Token usage of one request as the provider reported it (or as estimated when it did not),
 * normalised across providers.
 *
 * <p>Input is split the same way for every provider: {@code inputTokens} are the prompt tokens
 * <em>not</em> read from the prompt cache (cache writes included), {@code cacheReadTokens} the ones
 * that were. So Anthropic maps directly ({@code input_tokens + cache_creation_input_tokens} and
 * {@code cache_read_input_tokens}), while OpenAI {@code prompt_tokens} and Gemini
 * {@code promptTokenCount}, which include cached tokens, have the cached part subtracted. The whole
 * prompt is {@link #promptTokens()}.
 *
 * @param inputTokens        prompt tokens not served from the cache, cache writes included
 * @param outputTokens       generated tokens, reasoning/thinking tokens included
 * @param cacheReadTokens    prompt tokens served from the cache
 * @param cacheWriteTokens   the part of {@code inputTokens} written to the cache (0 when unknown)
 * @param reportedByProvider true when every count came from the provider's final usage; false
 *                           when any part is missing or estimated (a stream that broke early)
 */
public record ObservedUsage(long inputTokens, long outputTokens, long cacheReadTokens, long cacheWriteTokens,
        boolean reportedByProvider) {

    /** Validates that counts are non-negative and cache writes are part of the input. */
    public ObservedUsage {
        nonNegative("inputTokens", inputTokens);
        nonNegative("outputTokens", outputTokens);
        nonNegative("cacheReadTokens", cacheReadTokens);
        nonNegative("cacheWriteTokens", cacheWriteTokens);
        if (cacheWriteTokens > inputTokens) {
            throw new IllegalArgumentException("cacheWriteTokens: " + cacheWriteTokens
                    + " (expected: <= inputTokens " + inputTokens + ")");
        }
    }

    /** The whole prompt: {@code inputTokens + cacheReadTokens}. */
    public long promptTokens() {
        return inputTokens + cacheReadTokens;
    }

    /** Prompt plus output. */
    public long totalTokens() {
        return promptTokens() + outputTokens;
    }

    /** The same counts in the form the token estimator learns from. */
    public ActualTokens toActualTokens() {
        return new ActualTokens(promptTokens(), outputTokens, cacheReadTokens);
    }

    private static void nonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
        }
    }
}
