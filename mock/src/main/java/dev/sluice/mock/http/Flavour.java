package dev.sluice.mock.http;

import dev.sluice.mock.limits.ProviderFamily;
import dev.sluice.mock.limits.RetryAfterMeaning;
import dev.sluice.mock.limits.WindowKind;
import java.util.EnumSet;

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

    ;

    /**
     * What the provider documents (shared/provider-semantics.md), so that no drawn member of the
     * {@link ProviderFamily} contradicts it: Anthropic enforces token buckets and sends
     * {@code retry-after} on every rate-limit 429 (one without it is the spend cap); Azure sends
     * {@code retry-after-ms} on 429s; Gemini sends no rate-limit headers, with or without
     * {@code RetryInfo} (Vertex), and resets on window boundaries; OpenAI documents quantised windows
     * and no Retry-After at all.
     */
    public ProviderFamily.Facts facts() {
        return switch (this) {
            case OPENAI -> ProviderFamily.Facts.ANY;
            case AZURE_OPENAI -> new ProviderFamily.Facts(EnumSet.allOf(WindowKind.class),
                    EnumSet.of(RetryAfterMeaning.NEXT_WINDOW, RetryAfterMeaning.FULL_REFILL), true);
            case ANTHROPIC -> new ProviderFamily.Facts(EnumSet.of(WindowKind.TOKEN_BUCKET),
                    EnumSet.of(RetryAfterMeaning.NEXT_WINDOW, RetryAfterMeaning.FULL_REFILL), true);
            case GEMINI -> new ProviderFamily.Facts(EnumSet.of(WindowKind.FIXED, WindowKind.SLIDING),
                    EnumSet.allOf(RetryAfterMeaning.class), false);
        };
    }
}
