package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One provider request, read: what the limit model and the response writers need.
 *
 * @param route the endpoint
 * @param model the model (or deployment) it names
 * @param body the parsed request body
 * @param stream whether the answer is streamed
 * @param includeUsage OpenAI {@code stream_options.include_usage}
 * @param sse Gemini {@code alt=sse}; other flavours always stream SSE
 * @param promptTokens prompt tokens by the mock's count, cache reads included
 * @param cacheReadTokens prompt tokens read from the cache ({@code x-mock-cache-read-tokens}), at most promptTokens
 * @param maxTokens the output cap
 * @param reserve output tokens the limit model may reserve ({@code max_tokens x best_of})
 * @param tenant who sent it
 * @param requestId the provider request id sent back
 * @param createdEpochSeconds wall time of arrival
 */
record Call(
        Route route,
        String model,
        JsonNode body,
        boolean stream,
        boolean includeUsage,
        boolean sse,
        long promptTokens,
        long cacheReadTokens,
        long maxTokens,
        long reserve,
        String tenant,
        String requestId,
        long createdEpochSeconds) {

    /** Prompt tokens not read from the cache. */
    long uncachedPromptTokens() {
        return promptTokens - cacheReadTokens;
    }
}
