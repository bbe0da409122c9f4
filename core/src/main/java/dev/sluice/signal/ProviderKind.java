package dev.sluice.signal;

/**
 * Which provider dialect a response speaks. It selects the vendor header families the normaliser
 * reads; error bodies, {@code Retry-After} and the IETF RateLimit fields are read for every kind.
 */
public enum ProviderKind {
    /** api.openai.com: {@code x-ratelimit-*} headers with Go-duration resets. */
    OPENAI,
    /** Azure OpenAI: {@code x-ratelimit-*} headers with integer-second resets, {@code retry-after-ms}. */
    AZURE_OPENAI,
    /** Anthropic Messages API: {@code anthropic-ratelimit-*} headers with RFC 3339 resets. */
    ANTHROPIC,
    /** Gemini API and Vertex AI: no limit headers; {@code RetryInfo} and {@code QuotaFailure} in the body. */
    GEMINI,
    /** Any other server speaking the OpenAI wire format: every known header family is read. */
    OPENAI_COMPATIBLE
}
