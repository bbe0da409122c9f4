package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Anthropic Messages response to OpenAI {@code chat.completion}.
 *
 * <p>Text blocks are concatenated into {@code content}; {@code tool_use} blocks become
 * {@code tool_calls} with the input serialised as a JSON string; thinking and server-tool blocks are
 * left out. {@code stop_reason} maps end_turn/stop_sequence to stop, max_tokens to length,
 * tool_use to tool_calls and refusal to content_filter. Usage: {@code prompt_tokens} is
 * input + cache creation + cache read, with the cache reads as
 * {@code prompt_tokens_details.cached_tokens}.
 */
public final class AnthropicResponses {

    private AnthropicResponses() {
    }

    /**
     * Translates a successful (2xx) Messages body.
     *
     * @throws UpstreamFormatException when the body is not an Anthropic message
     */
    public static ObjectNode toChat(JsonNode message, CompletionMeta meta) {
        Objects.requireNonNull(meta, "meta");
        if (message == null || !message.isObject() || !message.path("content").isArray()) {
            throw new UpstreamFormatException("anthropic response is not a message (expected: an object with a content array)");
        }
        StringBuilder text = new StringBuilder();
        List<ChatCompletions.Call> calls = new ArrayList<>();
        for (JsonNode block : message.path("content")) {
            switch (Json.stringOr(block, "type")) {
                case "text" -> text.append(Json.stringOr(block, "text"));
                case "tool_use" -> calls.add(new ChatCompletions.Call(Json.stringOr(block, "id"), Json.stringOr(block, "name"),
                        Json.write(block.path("input").isObject() ? block.path("input") : Json.object())));
                default -> {
                    // thinking, redacted_thinking and server tool blocks have no chat.completion field.
                }
            }
        }
        String finish = FinishReasons.fromAnthropic(Json.stringOr(message, "stop_reason"));
        return ChatCompletions.build(meta, text.toString(), calls, finish, ChatUsage.fromAnthropic(message.path("usage")));
    }
}
