package dev.sluice.runtime.config;

import dev.sluice.signal.ProviderKind;
import java.util.Locale;
import java.util.Optional;

/** The wire dialect of a provider deployment. */
public enum DeploymentKind {
    OPENAI,
    AZURE_OPENAI,
    ANTHROPIC,
    GEMINI,
    OPENAI_COMPATIBLE;

    /** Computed once: every request's events ask for it (it was 1% of the gateway's allocation). */
    private final String wireName = name().toLowerCase(Locale.ROOT).replace('_', '-');

    /** The name in configuration: {@code azure-openai}. */
    public String wireName() {
        return wireName;
    }

    /** How the signal normaliser reads this dialect's answers. */
    public ProviderKind providerKind() {
        return switch (this) {
            case OPENAI -> ProviderKind.OPENAI;
            case AZURE_OPENAI -> ProviderKind.AZURE_OPENAI;
            case ANTHROPIC -> ProviderKind.ANTHROPIC;
            case GEMINI -> ProviderKind.GEMINI;
            case OPENAI_COMPATIBLE -> ProviderKind.OPENAI_COMPATIBLE;
        };
    }

    /**
     * Whether this provider counts a request it refuses as invalid (400, 404, 422) against its
     * request limits: OpenAI and Azure OpenAI say failed requests count; Anthropic, Gemini and
     * servers merely speaking OpenAI's format document no such rule, and the mock refuses a bad
     * request before its limits see it. Where it does not, Sluice gives the request back too.
     */
    public boolean countsInvalidRequests() {
        return this == OPENAI || this == AZURE_OPENAI;
    }

    /** Whether it speaks the OpenAI request and response formats. */
    public boolean openAiFamily() {
        return this == OPENAI || this == AZURE_OPENAI || this == OPENAI_COMPATIBLE;
    }

    public static Optional<DeploymentKind> byWireName(String name) {
        for (DeploymentKind k : values()) {
            if (k.wireName().equals(name)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
