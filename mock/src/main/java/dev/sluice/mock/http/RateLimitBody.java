package dev.sluice.mock.http;

/** Which 429 body a rate-limited request gets. */
public enum RateLimitBody {
    /** The flavour's usual body (OpenAI "Rate limit reached ...", Gemini with {@code RetryInfo}, ...). */
    STANDARD,
    /**
     * The flavour's other body: Azure "Rate limit is exceeded. Try again in N seconds.", Gemini
     * Vertex-style without details or {@code RetryInfo}; the same as STANDARD for OpenAI and Anthropic.
     */
    ALTERNATE,
    /** RFC 9457 problem+json with the IETF {@code quota-exceeded} type and {@code violated-policies}. */
    PROBLEM_JSON
}
