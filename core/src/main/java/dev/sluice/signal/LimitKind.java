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
    UNKNOWN
}
