package dev.sluice.gateway.http;

/** The endpoints the gateway serves, each in one API family. */
public enum Operation {
    OPENAI_CHAT(ApiFamily.OPENAI, "chat/completions"),
    OPENAI_COMPLETIONS(ApiFamily.OPENAI, "completions"),
    OPENAI_EMBEDDINGS(ApiFamily.OPENAI, "embeddings"),
    OPENAI_RESPONSES(ApiFamily.OPENAI, "responses"),
    OPENAI_MODELS(ApiFamily.OPENAI, "models"),
    OPENAI_MODEL(ApiFamily.OPENAI, "models/{model}"),
    ANTHROPIC_MESSAGES(ApiFamily.ANTHROPIC, "messages"),
    ANTHROPIC_COUNT_TOKENS(ApiFamily.ANTHROPIC, "messages/count_tokens"),
    ANTHROPIC_MODELS(ApiFamily.ANTHROPIC, "models"),
    ANTHROPIC_MODEL(ApiFamily.ANTHROPIC, "models/{model}"),
    GEMINI_GENERATE(ApiFamily.GEMINI, "generateContent"),
    GEMINI_STREAM_GENERATE(ApiFamily.GEMINI, "streamGenerateContent"),
    GEMINI_COUNT_TOKENS(ApiFamily.GEMINI, "countTokens"),
    GEMINI_EMBED(ApiFamily.GEMINI, "embedContent"),
    GEMINI_BATCH_EMBED(ApiFamily.GEMINI, "batchEmbedContents"),
    GEMINI_MODELS(ApiFamily.GEMINI, "models"),
    GEMINI_MODEL(ApiFamily.GEMINI, "models/{model}"),
    HEALTH(ApiFamily.OPENAI, "healthz"),
    READY(ApiFamily.OPENAI, "readyz");

    private final ApiFamily family;
    private final String suffix;
    private final String eventName;

    Operation(ApiFamily family, String suffix) {
        this.family = family;
        this.suffix = suffix;
        String n = name().toLowerCase(java.util.Locale.ROOT);
        int cut = n.indexOf('_');
        this.eventName = cut < 0 ? n : n.substring(0, cut) + "." + n.substring(cut + 1);
    }

    /** Its name in request events and the ledger: {@code openai.chat}, {@code anthropic.count_tokens}. */
    public String eventName() {
        return eventName;
    }

    /** Which SDK family calls it, and so which error shape it answers with. */
    public ApiFamily family() {
        return family;
    }

    /** The part of the path after the API version (OpenAI, Anthropic) or after {@code model:} (Gemini). */
    public String suffix() {
        return suffix;
    }

    /** Whether it asks a model for work and so passes admission. */
    public boolean metered() {
        return !catalogue() && !open() && this != ANTHROPIC_COUNT_TOKENS && this != GEMINI_COUNT_TOKENS;
    }

    /** Whether it lists or describes the caller's model profiles, answered by the gateway from its configuration. */
    public boolean catalogue() {
        return switch (this) {
            case OPENAI_MODELS, OPENAI_MODEL, ANTHROPIC_MODELS, ANTHROPIC_MODEL, GEMINI_MODELS, GEMINI_MODEL -> true;
            default -> false;
        };
    }

    /** Whether it embeds text rather than generating it: only embedding profiles serve it (Gemini's routes). */
    public boolean embedding() {
        return this == GEMINI_EMBED || this == GEMINI_BATCH_EMBED;
    }

    /** Whether it is answered by the gateway itself, with no key (health and readiness). */
    public boolean open() {
        return this == HEALTH || this == READY;
    }
}
