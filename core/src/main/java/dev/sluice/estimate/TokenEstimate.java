package dev.sluice.estimate;

import java.util.Objects;

/**
 * A preflight quote for one request. Pass it back unchanged to
 * {@link TokenEstimator#learn(EstimatorProfile, String, TokenEstimate, ActualTokens)} when the
 * request settles.
 *
 * @param inputTokens             what to charge against input-token limits: {@code promptTokens},
 *                                minus {@code expectedCacheReadTokens} when the profile says cache
 *                                reads do not count against the input limit
 * @param outputTokens            output tokens to reserve
 * @param expectedCacheReadTokens the part of the prompt expected to be read from the provider's
 *                                cache, whether or not it was subtracted from {@code inputTokens}
 * @param promptTokens            the whole prompt: {@code baseTokens} times the learned ratio,
 *                                rounded up
 * @param baseTokens              the uncorrected count, from the tokenizer or the heuristic,
 *                                overheads included; what the learned ratio is measured against
 * @param method                  how {@code baseTokens} was counted
 */
public record TokenEstimate(long inputTokens, long outputTokens, long expectedCacheReadTokens,
        long promptTokens, long baseTokens, Tokenizer method) {

    /** Validates that counts are non-negative and consistent with each other. */
    public TokenEstimate {
        Objects.requireNonNull(method, "method");
        requireNonNegative("outputTokens", outputTokens);
        requireNonNegative("baseTokens", baseTokens);
        requireNonNegative("promptTokens", promptTokens);
        if (expectedCacheReadTokens < 0 || expectedCacheReadTokens > promptTokens) {
            throw new IllegalArgumentException("expectedCacheReadTokens: " + expectedCacheReadTokens
                    + " (expected: >= 0 and <= promptTokens " + promptTokens + ")");
        }
        if (inputTokens < promptTokens - expectedCacheReadTokens || inputTokens > promptTokens) {
            throw new IllegalArgumentException("inputTokens: " + inputTokens + " (expected: >= "
                    + (promptTokens - expectedCacheReadTokens) + " and <= " + promptTokens + ")");
        }
    }

    private static void requireNonNegative(String field, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: >= 0)");
        }
    }
}
