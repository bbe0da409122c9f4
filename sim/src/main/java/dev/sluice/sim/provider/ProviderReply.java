package dev.sluice.sim.provider;

import dev.sluice.signal.ProviderSignal;
import java.util.OptionalLong;

/**
 * How an attempt ended at the provider, with the signal the gateway would read from it.
 *
 * @param outcome what happened
 * @param inputTokens input tokens the provider reports (0 unless the request was admitted)
 * @param cacheReadTokens part of {@code inputTokens} read from cache
 * @param outputTokens output tokens produced (for a broken stream: what arrived)
 * @param retryAfterMillis the wait hint an official SDK reads from the answer's headers
 * @param retryAfterHeader the raw {@code retry-after} header, if sent
 * @param signal the signal the gateway's normaliser reads from the answer
 */
public record ProviderReply(Outcome outcome, long inputTokens, long cacheReadTokens, long outputTokens,
        OptionalLong retryAfterMillis, java.util.Optional<String> retryAfterHeader, ProviderSignal signal) {

    /** The kinds of answer. */
    public enum Outcome {
        /** 2xx with usage. */
        SUCCESS,
        /** 429 for a rate limit; waiting helps. */
        RATE_LIMITED,
        /** 429 that waiting cannot cure (request larger than the limit). */
        TOO_LARGE,
        /** 500. */
        SERVER_ERROR,
        /** 529/503. */
        OVERLOADED,
        /** Connection broken after part of the answer. */
        RESET;

        /** Whether an SDK would retry it. */
        public boolean retryable() {
            return this != SUCCESS && this != TOO_LARGE;
        }
    }
}
