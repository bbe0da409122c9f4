package dev.sluice.signal;

/** The dimension a provider limit counts. */
public enum LimitKind {
    /** Requests per window (RPM, RPS). */
    REQUESTS,
    /** Input (prompt) tokens per window. */
    INPUT_TOKENS,
    /** Output (completion) tokens per window. */
    OUTPUT_TOKENS,
    /** Tokens per window where input and output are counted together, or the tightest token limit. */
    TOKENS,
    /** Requests in flight at once. */
    CONCURRENCY,
    /** A quota over a day or longer; waiting seconds does not help. */
    DAILY_QUOTA,
    /** Money: credit, billing or spend caps; only a human can lift it. */
    SPEND_QUOTA,
    /** The response named a limit but not what it counts. */
    UNKNOWN;

    /** The limiter name in errors, events and metrics: {@code input_tpm}, or {@code none} when unknown. */
    public String limiterName() {
        return switch (this) {
            case REQUESTS -> "rpm";
            case INPUT_TOKENS -> "input_tpm";
            case OUTPUT_TOKENS -> "output_tpm";
            case TOKENS -> "tpm";
            case CONCURRENCY -> "concurrency";
            case DAILY_QUOTA -> "daily_tokens";
            case SPEND_QUOTA -> "spend";
            case UNKNOWN -> "none";
        };
    }
}
