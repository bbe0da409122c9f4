package dev.sluice.gateway.metrics;

import java.time.Duration;

/**
 * The OpenTelemetry GenAI semantic conventions as Sluice's metrics and spans use them: attribute names, the mapping
 * of Sluice's operations and provider kinds to the conventions' values, and the recommended bucket
 * boundaries. Metric and span attributes share these names.
 */
public final class GenAiNames {

    static final String OPERATION_NAME = "gen_ai.operation.name";
    static final String PROVIDER_NAME = "gen_ai.provider.name";
    static final String REQUEST_MODEL = "gen_ai.request.model";
    static final String TOKEN_TYPE = "gen_ai.token.type";
    static final String ERROR_TYPE = "error.type";

    /** The conventions' boundaries for {@code gen_ai.client.token.usage}: powers of four. */
    static final double[] TOKEN_BUCKETS = {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
        16777216, 67108864};

    /** The conventions' boundaries for {@code gen_ai.client.operation.duration} (seconds, doubling from 10 ms). */
    static final Duration[] DURATION_BUCKETS = doubling(10, 14);

    private GenAiNames() {}

    /**
     * {@code gen_ai.operation.name} for a request event's operation: {@code chat},
     * {@code text_completion}, {@code embeddings} or {@code generate_content}; any other (token
     * counts, catalogues) keeps Sluice's own name, which is one of a fixed list.
     */
    public static String operationName(String operation) {
        return switch (operation) {
            case "openai.chat", "openai.responses", "anthropic.messages" -> "chat";
            case "openai.completions" -> "text_completion";
            case "openai.embeddings", "gemini.embed", "gemini.batch_embed" -> "embeddings";
            case "gemini.generate", "gemini.stream_generate" -> "generate_content";
            default -> operation;
        };
    }

    /** {@code gen_ai.provider.name} for a deployment kind's wire name. */
    public static String providerName(String provider) {
        return switch (provider) {
            case "azure-openai" -> "azure.ai.openai";
            case "gemini" -> "gcp.gemini";
            default -> provider; // openai, anthropic; openai-compatible stays as it is
        };
    }

    private static Duration[] doubling(long firstMillis, int count) {
        Duration[] out = new Duration[count];
        for (int i = 0; i < count; i++) {
            out[i] = Duration.ofMillis(firstMillis << i);
        }
        return out;
    }
}
