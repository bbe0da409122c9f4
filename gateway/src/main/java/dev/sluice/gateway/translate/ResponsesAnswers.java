package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A translated {@code chat.completion} as an OpenAI Responses API {@code response} object: the
 * answer text becomes one {@code message} item with an {@code output_text} part, each tool call a
 * {@code function_call} item (its {@code call_id} the chat tool call id); {@code finish_reason}
 * length becomes status {@code incomplete} with reason {@code max_output_tokens}, content_filter
 * reason {@code content_filter}; usage becomes {@code input_tokens}, {@code output_tokens} and
 * their details. Ids follow the completion's: {@code resp_<x>}, {@code msg_<x>}, {@code fc_<x>_<i>}.
 */
public final class ResponsesAnswers {

    private ResponsesAnswers() {
    }

    /** The Responses answer for a translated chat completion. */
    public static ObjectNode fromChat(JsonNode completion) {
        Objects.requireNonNull(completion, "completion");
        String base = base(Json.stringOr(completion, "id"));
        JsonNode choice = completion.path("choices").path(0);
        JsonNode message = choice.path("message");
        ArrayNode output = Json.array();
        JsonNode content = message.path("content");
        if (content.isTextual() && !content.textValue().isEmpty()) {
            output.add(messageItem(base, content.textValue(), "completed"));
        }
        int i = 0;
        for (JsonNode call : message.path("tool_calls")) {
            output.add(functionCallItem(base, i++, Json.stringOr(call, "id"), Json.stringOr(call.path("function"), "name"),
                    Json.stringOr(call.path("function"), "arguments"), "completed"));
        }
        return response(base, completion.path("created").asLong(), Json.stringOr(completion, "model"),
                Json.stringOr(choice, "finish_reason"), output, usage(completion.path("usage")));
    }

    /** What follows the prefix of a chat completion id ({@code chatcmpl-}), the root of every translated id. */
    static String base(String chatId) {
        int dash = chatId.indexOf('-');
        return dash >= 0 ? chatId.substring(dash + 1) : chatId;
    }

    /**
     * A {@code response} object.
     *
     * @param finishReason the chat finish reason; empty while the response is in progress
     * @param usage the Responses usage, or null while in progress
     */
    static ObjectNode response(String base, long created, String model, String finishReason, ArrayNode output,
            ObjectNode usage) {
        ObjectNode r = Json.object();
        r.put("id", "resp_" + base);
        r.put("object", "response");
        r.put("created_at", created);
        String status = switch (finishReason) {
            case "" -> "in_progress";
            case "length", "content_filter" -> "incomplete";
            default -> "completed";
        };
        r.put("status", status);
        r.putNull("error");
        if (status.equals("incomplete")) {
            r.putObject("incomplete_details").put("reason",
                    finishReason.equals("length") ? "max_output_tokens" : "content_filter");
        } else {
            r.putNull("incomplete_details");
        }
        r.put("model", model);
        r.set("output", output);
        r.put("parallel_tool_calls", true);
        r.put("tool_choice", "auto");
        r.putArray("tools");
        r.putObject("text").putObject("format").put("type", "text");
        r.put("store", false);
        r.putObject("metadata");
        if (usage == null) {
            r.putNull("usage");
        } else {
            r.set("usage", usage);
        }
        return r;
    }

    static ObjectNode messageItem(String base, String text, String status) {
        ObjectNode item = Json.object().put("type", "message").put("id", "msg_" + base).put("status", status)
                .put("role", "assistant");
        ArrayNode content = item.putArray("content");
        if (status.equals("completed")) {
            content.add(outputText(text));
        }
        return item;
    }

    static ObjectNode outputText(String text) {
        ObjectNode part = Json.object().put("type", "output_text").put("text", text);
        part.putArray("annotations");
        part.putArray("logprobs");
        return part;
    }

    static ObjectNode functionCallItem(String base, int index, String callId, String name, String arguments,
            String status) {
        return Json.object().put("type", "function_call").put("id", "fc_" + base + "_" + index).put("call_id", callId)
                .put("name", name).put("arguments", arguments).put("status", status);
    }

    /** Chat usage to Responses usage: prompt is input, completion is output; cached and reasoning details kept. */
    static ObjectNode usage(JsonNode chat) {
        long input = Json.count(chat, "prompt_tokens");
        long output = Json.count(chat, "completion_tokens");
        ObjectNode u = Json.object();
        u.put("input_tokens", input);
        u.putObject("input_tokens_details").put("cached_tokens", Json.count(chat.path("prompt_tokens_details"), "cached_tokens"));
        u.put("output_tokens", output);
        u.putObject("output_tokens_details").put("reasoning_tokens",
                Json.count(chat.path("completion_tokens_details"), "reasoning_tokens"));
        u.put("total_tokens", input + output);
        return u;
    }
}
