package dev.sluice.mock.limits;

/** How a provider charges output tokens against its output-token and total-token limits. */
public enum OutputAccounting {
    /**
     * {@code max_tokens} is reserved when the request arrives and replaced by the real count when it
     * completes (OpenAI, Azure, Anthropic before 2026).
     */
    RESERVE_MAX_TOKENS_THEN_CORRECT,
    /** Only tokens actually produced are counted, at completion; {@code max_tokens} plays no part. */
    ACTUAL_ONLY
}
