package dev.sluice.sim.provider;

/**
 * One attempt as the provider receives it.
 *
 * @param tenant who sent it, for the provider's statistics
 * @param promptTokens the whole prompt, cache reads included, as the provider counts it
 * @param cacheReadTokens the part of the prompt read from cache, as the provider counts it
 * @param maxTokens the request's output cap
 * @param outputTokens what the model will produce if nothing fails (at most {@code maxTokens})
 * @param streaming whether the answer streams
 */
public record ProviderCall(String tenant, long promptTokens, long cacheReadTokens, long maxTokens, long outputTokens,
        boolean streaming) {}
