package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * Gemini {@code streamGenerateContent?alt=sse} to chat.completion.chunk events. Gemini sends no
 * end marker, so the finish and usage chunks go out when the upstream ends ({@link #finish()})
 * after a chunk with a {@code finishReason}; each function call arrives whole and becomes one
 * tool-call delta.
 */
final class GeminiChatStream extends BaseChatStream {

    private final CompletionMeta meta;
    private final ChatChunks chunks;
    private boolean started;
    private int toolCalls;
    private String finishReason = "";
    private JsonNode usageMetadata = Json.object();

    GeminiChatStream(CompletionMeta meta, boolean includeUsage) {
        super(WireFormat.GEMINI);
        this.meta = meta;
        this.chunks = new ChatChunks(meta, includeUsage);
    }

    @Override
    void onEvent(SseEvent event, JsonNode data, List<String> out) {
        if (data.path("error").isObject()) {
            abort(out, ProviderErrors.fromNode(WireFormat.GEMINI, data)
                    .orElseGet(() -> ProviderErrors.error("upstream stream error", "UNKNOWN")));
            return;
        }
        if (!started) {
            started = true;
            out.add(chunks.role());
        }
        JsonNode candidate = data.path("candidates").path(0);
        for (JsonNode part : candidate.path("content").path("parts")) {
            if (part.has("functionCall")) {
                ChatCompletions.Call call = GeminiResponses.call(part, meta, toolCalls);
                out.add(chunks.toolStart(toolCalls++, call.id(), call.name(), call.arguments()));
            } else if (part.path("text").isTextual() && !part.path("thought").asBoolean(false)
                    && !part.path("text").textValue().isEmpty()) {
                out.add(chunks.content(part.path("text").textValue()));
            }
        }
        Json.string(candidate, "finishReason").ifPresent(r -> finishReason = FinishReasons.fromGemini(r, toolCalls > 0));
        if (candidate.isMissingNode() && data.path("promptFeedback").has("blockReason")) {
            finishReason = "content_filter";
        }
        if (data.path("usageMetadata").isObject()) {
            usageMetadata = data.path("usageMetadata");
        }
    }

    @Override
    void onEnd(List<String> out) {
        if (finishReason.isEmpty()) {
            abort(out, ProviderErrors.error("upstream stream ended before the answer was complete", "upstream_error"));
            return;
        }
        out.add(chunks.finish(finishReason));
        if (chunks.includeUsage()) {
            out.add(chunks.usage(usageMetadata.isEmpty() ? ChatUsage.fromObserved(usage().usage())
                    : ChatUsage.fromGemini(usageMetadata)));
        }
        complete(out);
    }
}
