package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Anthropic Messages SSE to chat.completion.chunk events. Tool-use blocks are numbered in order of
 * appearance, because OpenAI indexes tool calls, not content blocks.
 */
final class AnthropicChatStream extends BaseChatStream {

    private final ChatChunks chunks;
    private final Map<Integer, Integer> toolIndexByBlock = new HashMap<>();
    private boolean started;
    private String stopReason = "";
    private final ObjectNode usage = Json.object();

    AnthropicChatStream(CompletionMeta meta, boolean includeUsage) {
        super(WireFormat.ANTHROPIC);
        this.chunks = new ChatChunks(meta, includeUsage);
    }

    @Override
    void onEvent(SseEvent event, JsonNode data, List<String> out) {
        String type = Json.string(data, "type").orElse(event.event());
        switch (type) {
            case "message_start" -> {
                start(out);
                merge(data.path("message").path("usage"));
            }
            case "content_block_start" -> {
                start(out);
                JsonNode block = data.path("content_block");
                switch (Json.stringOr(block, "type")) {
                    case "text" -> text(Json.stringOr(block, "text"), out);
                    case "tool_use" -> {
                        int index = toolIndexByBlock.size();
                        toolIndexByBlock.put(data.path("index").asInt(), index);
                        out.add(chunks.toolStart(index, Json.stringOr(block, "id"), Json.stringOr(block, "name"), ""));
                    }
                    default -> {
                        // thinking and server-tool blocks have no chat.completion.chunk field.
                    }
                }
            }
            case "content_block_delta" -> {
                start(out);
                JsonNode delta = data.path("delta");
                switch (Json.stringOr(delta, "type")) {
                    case "text_delta" -> text(Json.stringOr(delta, "text"), out);
                    case "input_json_delta" -> {
                        Integer index = toolIndexByBlock.get(data.path("index").asInt());
                        String fragment = Json.stringOr(delta, "partial_json");
                        if (index != null && !fragment.isEmpty()) {
                            out.add(chunks.toolArguments(index, fragment));
                        }
                    }
                    default -> {
                        // thinking_delta, signature_delta, citations_delta
                    }
                }
            }
            case "message_delta" -> {
                Json.string(data.path("delta"), "stop_reason").ifPresent(r -> stopReason = r);
                merge(data.path("usage"));
            }
            case "message_stop" -> close(out);
            case "error" -> abort(out, ProviderErrors.fromNode(WireFormat.ANTHROPIC, data)
                    .orElseGet(() -> ProviderErrors.error("upstream stream error", "api_error")));
            default -> {
                // ping, content_block_stop and event types added later
            }
        }
    }

    @Override
    void onEnd(List<String> out) {
        if (!stopReason.isEmpty()) {
            // message_delta carries the stop reason: the answer is whole even without message_stop.
            close(out);
        } else {
            abort(out, ProviderErrors.error("upstream stream ended before the answer was complete", "upstream_error"));
        }
    }

    private void start(List<String> out) {
        if (!started) {
            started = true;
            out.add(chunks.role());
        }
    }

    private void text(String text, List<String> out) {
        if (!text.isEmpty()) {
            out.add(chunks.content(text));
        }
    }

    /** Later usage fields overwrite earlier ones: message_delta counts are cumulative. */
    private void merge(JsonNode fields) {
        if (fields.isObject()) {
            fields.properties().forEach(e -> {
                if (e.getValue().isNumber()) {
                    usage.set(e.getKey(), e.getValue());
                }
            });
        }
    }

    private void close(List<String> out) {
        start(out);
        out.add(chunks.finish(FinishReasons.fromAnthropic(stopReason)));
        if (chunks.includeUsage()) {
            out.add(chunks.usage(usage.isEmpty() ? ChatUsage.fromObserved(usage().usage()) : ChatUsage.fromAnthropic(usage)));
        }
        complete(out);
    }
}
