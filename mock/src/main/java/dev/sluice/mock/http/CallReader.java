package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.mock.http.Route.Endpoint;
import io.vertx.core.MultiMap;

/** Reads a provider request body into a {@link Call}: model, streaming, prompt size, output cap. */
final class CallReader {

    /** A request the provider would refuse with 400; the message is safe to send back. */
    static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message, null, false, false);
        }
    }

    /** OpenAI's legacy completions stop at 16 tokens unless told otherwise. */
    static final long COMPLETIONS_DEFAULT_MAX_TOKENS = 16;

    private CallReader() {}

    static Call read(Flavour flavour, Route route, JsonNode body, MultiMap params, MultiMap headers, MockConfig config,
            String tenant, String requestId, long epochSeconds) {
        Endpoint e = route.endpoint();
        String model = route.pathModel().orElseGet(() -> body.path("model").asText(defaultModel(flavour)));
        boolean stream = e == Endpoint.STREAM_GENERATE || body.path("stream").asBoolean(false);
        boolean includeUsage = body.path("stream_options").path("include_usage").asBoolean(false);
        boolean sse = "sse".equals(params.get("alt"));
        long prompt = promptTokens(e, body);
        long cacheRead = Math.min(prompt, headerLong(headers, MockProviderServer.HEADER_CACHE_READ_TOKENS, 0));
        long maxTokens = maxTokens(e, body, config.defaultMaxTokens());
        long reserve = maxTokens;
        if (e == Endpoint.COMPLETIONS && body.has("best_of")) {
            reserve = Math.multiplyExact(maxTokens, Math.max(1, positive(body, "best_of")));
        }
        return new Call(route, model, body, stream, includeUsage, sse, prompt, cacheRead, maxTokens, reserve, tenant,
                requestId, epochSeconds);
    }

    private static String defaultModel(Flavour flavour) {
        return switch (flavour) {
            case OPENAI, AZURE_OPENAI -> "gpt-4o-mini";
            case ANTHROPIC -> "claude-sonnet-4-5";
            case GEMINI -> "gemini-2.5-flash";
        };
    }

    static long promptTokens(Endpoint e, JsonNode body) {
        return switch (e) {
            case CHAT, GEMINI_COMPAT_CHAT -> PromptCounter.openAiChat(body);
            case COMPLETIONS -> PromptCounter.promptOrInput(body.get("prompt"));
            case EMBEDDINGS -> PromptCounter.promptOrInput(body.get("input"));
            case RESPONSES -> PromptCounter.responses(body);
            case MESSAGES, COUNT_TOKENS -> PromptCounter.anthropic(body);
            case GENERATE, STREAM_GENERATE, GEMINI_COUNT_TOKENS -> PromptCounter.gemini(body);
            case EMBED_CONTENT -> PromptCounter.gemini(Wire.obj().set("contents", Wire.arr().add(body.path("content"))));
            case BATCH_EMBED_CONTENTS -> {
                long sum = 0;
                for (JsonNode r : body.path("requests")) {
                    sum += PromptCounter.gemini(Wire.obj().set("contents", Wire.arr().add(r.path("content"))));
                }
                yield sum;
            }
            case MODELS -> 0;
        };
    }

    private static long maxTokens(Endpoint e, JsonNode body, long fallback) {
        return switch (e) {
            case CHAT, GEMINI_COMPAT_CHAT -> body.has("max_completion_tokens") ? positive(body, "max_completion_tokens")
                    : body.has("max_tokens") ? positive(body, "max_tokens") : fallback;
            case COMPLETIONS -> body.has("max_tokens") ? positive(body, "max_tokens") : COMPLETIONS_DEFAULT_MAX_TOKENS;
            case RESPONSES -> body.has("max_output_tokens") ? positive(body, "max_output_tokens") : fallback;
            case MESSAGES -> {
                if (!body.has("max_tokens")) {
                    throw new BadRequest("max_tokens: Field required");
                }
                yield positive(body, "max_tokens");
            }
            case GENERATE, STREAM_GENERATE -> {
                JsonNode config = body.path("generationConfig");
                yield config.has("maxOutputTokens") ? positive(config, "maxOutputTokens") : fallback;
            }
            case EMBEDDINGS, MODELS, COUNT_TOKENS, GEMINI_COUNT_TOKENS, EMBED_CONTENT, BATCH_EMBED_CONTENTS -> 0;
        };
    }

    private static long positive(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || !v.isIntegralNumber() || v.asLong() < 1) {
            throw new BadRequest(field + ": " + v + " (expected: an integer >= 1)");
        }
        return v.asLong();
    }

    /** A non-negative integer header, or the default when absent. */
    static long headerLong(MultiMap headers, String name, long absent) {
        String v = headers.get(name);
        if (v == null) {
            return absent;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n < 0) {
                throw new BadRequest(name + ": " + v + " (expected: >= 0)");
            }
            return n;
        } catch (NumberFormatException ex) {
            throw new BadRequest(name + ": " + v + " (expected: an integer)");
        }
    }
}
