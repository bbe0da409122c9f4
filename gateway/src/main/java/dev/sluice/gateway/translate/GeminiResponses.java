package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Gemini {@code generateContent} response to OpenAI {@code chat.completion}.
 *
 * <p>Reads {@code candidates[0]}: text parts are concatenated (thought parts are left out),
 * {@code functionCall} parts become {@code tool_calls}, using the call's {@code id} when Gemini
 * sends one and {@link CompletionMeta}-derived ids otherwise; a part's {@code thoughtSignature} is
 * appended to the id so that {@link GeminiRequests} can return it with the call. STOP maps to stop (tool_calls when
 * functions were called), MAX_TOKENS to length, SAFETY and the other blocking reasons to
 * content_filter; a prompt blocked before any candidate gives an empty content_filter answer. Usage
 * counts thoughts in {@code completion_tokens} and {@code completion_tokens_details.reasoning_tokens},
 * cached content in {@code prompt_tokens_details.cached_tokens}.
 */
public final class GeminiResponses {

    private GeminiResponses() {
    }

    /**
     * Translates a successful (2xx) generateContent body.
     *
     * @throws UpstreamFormatException when the body is not a Gemini response
     */
    public static ObjectNode toChat(JsonNode response, CompletionMeta meta) {
        Objects.requireNonNull(meta, "meta");
        if (response == null || !response.isObject()
                || !(response.path("candidates").isArray() || response.has("promptFeedback"))) {
            throw new UpstreamFormatException("gemini response is not a GenerateContentResponse (expected: candidates)");
        }
        JsonNode candidate = response.path("candidates").path(0);
        StringBuilder text = new StringBuilder();
        List<ChatCompletions.Call> calls = new ArrayList<>();
        for (JsonNode part : candidate.path("content").path("parts")) {
            if (part.has("functionCall")) {
                calls.add(call(part, meta, calls.size()));
            } else if (part.path("text").isTextual() && !part.path("thought").asBoolean(false)) {
                text.append(part.path("text").textValue());
            }
        }
        String finish = candidate.isMissingNode()
                ? "content_filter"
                : FinishReasons.fromGemini(Json.stringOr(candidate, "finishReason"), !calls.isEmpty());
        return ChatCompletions.build(meta, text.toString(), calls, finish, ChatUsage.fromGemini(response.path("usageMetadata")));
    }

    /** The tool call of a {@code functionCall} part, its thought signature (if any) folded into the id. */
    static ChatCompletions.Call call(JsonNode part, CompletionMeta meta, int index) {
        JsonNode functionCall = part.path("functionCall");
        String id = Json.string(functionCall, "id").filter(s -> !s.isEmpty()).orElseGet(() -> meta.toolCallId(index));
        String signature = Json.stringOr(part, "thoughtSignature");
        if (!signature.isEmpty()) {
            id = id + ParsedChat.SIGNATURE_SEPARATOR + signature;
        }
        JsonNode args = functionCall.path("args");
        return new ChatCompletions.Call(id, Json.stringOr(functionCall, "name"), Json.write(args.isObject() ? args : Json.object()));
    }
}
