package dev.sluice.gateway.translate;

/** The body and stream format a provider speaks. Azure OpenAI and OpenAI-compatible servers speak {@link #OPENAI}. */
public enum WireFormat {
    /** OpenAI chat/completions, completions, embeddings and responses bodies. */
    OPENAI,
    /** Anthropic Messages. */
    ANTHROPIC,
    /** Gemini generateContent / streamGenerateContent. */
    GEMINI
}
