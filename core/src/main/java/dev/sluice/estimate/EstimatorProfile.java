package dev.sluice.estimate;

import java.util.Objects;

/**
 * What the estimator needs to know about one model profile. Learned corrections are kept per
 * {@code profileId}.
 *
 * @param profileId                          the model profile's id, non-blank
 * @param tokenizer                          how prompts for this profile are counted
 * @param cacheReadCountsAgainstInputLimit   {@code false} where the provider leaves cache reads
 *                                           out of its input-token limit (most current Anthropic
 *                                           models); {@code true} where cached tokens are part of
 *                                           the counted prompt (OpenAI, Gemini, older Anthropic)
 * @param defaultMaxOutputTokens             stands in for {@code max_tokens} when a request gives
 *                                           none: the output reservation never exceeds it
 * @param outputReservation                  what output a request reserves: the route's learned p95,
 *                                           or its whole {@code max_tokens} where the provider
 *                                           charges that on arrival
 */
public record EstimatorProfile(String profileId, Tokenizer tokenizer, boolean cacheReadCountsAgainstInputLimit,
        long defaultMaxOutputTokens, OutputReservation outputReservation) {

    /** Output ceiling for requests without {@code max_tokens}, when the profile sets none. */
    public static final long DEFAULT_MAX_OUTPUT_TOKENS = 4096;

    /** Validates the fields. */
    public EstimatorProfile {
        Objects.requireNonNull(profileId, "profileId");
        if (profileId.isBlank()) {
            throw new IllegalArgumentException("profileId: \"" + profileId + "\" (expected: non-blank)");
        }
        Objects.requireNonNull(tokenizer, "tokenizer");
        Objects.requireNonNull(outputReservation, "outputReservation");
        if (defaultMaxOutputTokens < 1) {
            throw new IllegalArgumentException(
                    "defaultMaxOutputTokens: " + defaultMaxOutputTokens + " (expected: >= 1)");
        }
    }

    /** A profile that reserves the learned output. */
    public EstimatorProfile(String profileId, Tokenizer tokenizer, boolean cacheReadCountsAgainstInputLimit,
            long defaultMaxOutputTokens) {
        this(profileId, tokenizer, cacheReadCountsAgainstInputLimit, defaultMaxOutputTokens, OutputReservation.LEARNED);
    }

    /** A profile whose output ceiling is {@link #DEFAULT_MAX_OUTPUT_TOKENS}, reserving the learned output. */
    public static EstimatorProfile of(String profileId, Tokenizer tokenizer, boolean cacheReadCountsAgainstInputLimit) {
        return new EstimatorProfile(profileId, tokenizer, cacheReadCountsAgainstInputLimit, DEFAULT_MAX_OUTPUT_TOKENS);
    }

    /** The same profile with another output reservation. */
    public EstimatorProfile withOutputReservation(OutputReservation reservation) {
        return new EstimatorProfile(profileId, tokenizer, cacheReadCountsAgainstInputLimit, defaultMaxOutputTokens,
                reservation);
    }
}
