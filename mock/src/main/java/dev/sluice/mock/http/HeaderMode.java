package dev.sluice.mock.http;

/** Which rate-limit headers a response carries (Gemini never carries provider ones). */
public enum HeaderMode {
    /** Limit, remaining and reset for every configured dimension. */
    FULL,
    /** None at all. */
    NONE,
    /** Token headers say {@code -1} and reset {@code 0}, as Azure's Responses API was seen to. */
    UNKNOWN_TOKENS,
    /** Limit and remaining only, no reset headers. */
    LIMIT_AND_REMAINING_ONLY
}
