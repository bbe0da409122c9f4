package dev.sluice.mock.http;

/** Which provider's wire format a {@link MockProviderServer} speaks. */
public enum Flavour {
    /**
     * OpenAI and compatible servers: {@code /v1/chat/completions}, {@code /v1/completions},
     * {@code /v1/embeddings}, {@code /v1/responses}, {@code GET /v1/models}; {@code x-ratelimit-*}
     * headers with Go-duration resets.
     */
    OPENAI,
    /**
     * Azure OpenAI: {@code /openai/deployments/{d}/chat/completions?api-version=...} (and completions,
     * embeddings), {@code /openai/responses}; integer resets, {@code retry-after-ms} on 429, string
     * error codes.
     */
    AZURE_OPENAI,
    /** Anthropic Messages: {@code /v1/messages}, {@code /v1/messages/count_tokens}; {@code anthropic-ratelimit-*}. */
    ANTHROPIC,
    /**
     * Gemini API: {@code /v1beta/models/{m}:generateContent}, {@code :streamGenerateContent},
     * {@code :countTokens}, and the OpenAI-compatible {@code /v1beta/openai/chat/completions}; no
     * rate-limit headers, {@code RetryInfo} in the 429 body.
     */
    GEMINI
}
