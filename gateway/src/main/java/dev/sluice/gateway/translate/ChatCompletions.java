package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** Assembles a translated {@code chat.completion} body. */
final class ChatCompletions {

    /** One tool call of the answer, arguments already a JSON string. */
    record Call(String id, String name, String arguments) {
    }

    private ChatCompletions() {
    }

    /**
     * @param text   the answer text; {@code content} is null only when there is no text but there are tool calls
     */
    static ObjectNode build(CompletionMeta meta, String text, List<Call> calls, String finishReason, ObjectNode usage) {
        ObjectNode out = Json.object();
        out.put("id", meta.id());
        out.put("object", "chat.completion");
        out.put("created", meta.created());
        out.put("model", meta.model());
        ObjectNode choice = out.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        if (text.isEmpty() && !calls.isEmpty()) {
            message.putNull("content");
        } else {
            message.put("content", text);
        }
        message.putNull("refusal");
        if (!calls.isEmpty()) {
            ArrayNode toolCalls = message.putArray("tool_calls");
            for (Call c : calls) {
                ObjectNode call = toolCalls.addObject();
                call.put("id", c.id());
                call.put("type", "function");
                call.putObject("function").put("name", c.name()).put("arguments", c.arguments());
            }
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        out.set("usage", usage);
        return out;
    }
}
