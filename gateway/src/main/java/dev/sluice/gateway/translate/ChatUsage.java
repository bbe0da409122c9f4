package dev.sluice.gateway.translate;

import dev.sluice.runtime.request.ObservedUsage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Builds the OpenAI {@code usage} object of a translated completion. */
final class ChatUsage {

    private ChatUsage() {
    }

    /** Anthropic: the prompt is input + cache writes + cache reads; cache reads are the cached part. */
    static ObjectNode fromAnthropic(JsonNode usage) {
        long written = Json.count(usage, "cache_creation_input_tokens");
        long read = Json.count(usage, "cache_read_input_tokens");
        long prompt = Json.count(usage, "input_tokens") + written + read;
        ObjectNode u = base(prompt, Json.count(usage, "output_tokens"), read);
        if (written > 0) {
            ((ObjectNode) u.path("prompt_tokens_details")).put("cache_write_tokens", written);
        }
        return u;
    }

    /** Gemini: thoughts are output (and reported as reasoning), tool-use prompt tokens are prompt. */
    static ObjectNode fromGemini(JsonNode meta) {
        long prompt = Json.count(meta, "promptTokenCount") + Json.count(meta, "toolUsePromptTokenCount");
        long thoughts = Json.count(meta, "thoughtsTokenCount");
        long completion = Json.count(meta, "candidatesTokenCount") + thoughts;
        ObjectNode u = base(prompt, completion, Math.min(prompt, Json.count(meta, "cachedContentTokenCount")));
        u.putObject("completion_tokens_details").put("reasoning_tokens", thoughts);
        return u;
    }

    /** From normalised counts, when the provider's own object is unavailable. */
    static ObjectNode fromObserved(ObservedUsage usage) {
        return base(usage.promptTokens(), usage.outputTokens(), usage.cacheReadTokens());
    }

    private static ObjectNode base(long prompt, long completion, long cached) {
        ObjectNode u = Json.object();
        u.put("prompt_tokens", prompt);
        u.put("completion_tokens", completion);
        u.put("total_tokens", prompt + completion);
        u.putObject("prompt_tokens_details").put("cached_tokens", cached);
        return u;
    }
}
