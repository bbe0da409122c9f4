package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Writes the downstream chat.completion.chunk events of one translated stream. */
final class ChatChunks {

    static final String DONE = "data: [DONE]\n\n";

    private final CompletionMeta meta;
    private final boolean includeUsage;

    ChatChunks(CompletionMeta meta, boolean includeUsage) {
        this.meta = meta;
        this.includeUsage = includeUsage;
    }

    /** The first chunk: role assistant and empty content, as OpenAI sends it. */
    String role() {
        ObjectNode chunk = chunk();
        delta(chunk).put("role", "assistant").put("content", "");
        return event(chunk);
    }

    String content(String text) {
        ObjectNode chunk = chunk();
        delta(chunk).put("content", text);
        return event(chunk);
    }

    /** The opening delta of a tool call: index, id, type, name and the first argument text. */
    String toolStart(int index, String id, String name, String arguments) {
        ObjectNode chunk = chunk();
        ObjectNode call = delta(chunk).putArray("tool_calls").addObject();
        call.put("index", index).put("id", id).put("type", "function");
        call.putObject("function").put("name", name).put("arguments", arguments);
        return event(chunk);
    }

    /** A later argument fragment of the tool call at {@code index}. */
    String toolArguments(int index, String fragment) {
        ObjectNode chunk = chunk();
        ObjectNode call = delta(chunk).putArray("tool_calls").addObject();
        call.put("index", index);
        call.putObject("function").put("arguments", fragment);
        return event(chunk);
    }

    String finish(String finishReason) {
        ObjectNode chunk = chunk();
        ((ObjectNode) chunk.path("choices").path(0)).put("finish_reason", finishReason);
        return event(chunk);
    }

    boolean includeUsage() {
        return includeUsage;
    }

    /** OpenAI's extra last chunk: no choices, whole-request usage. */
    String usage(ObjectNode usage) {
        ObjectNode chunk = head();
        chunk.putArray("choices");
        chunk.set("usage", usage);
        return event(chunk);
    }

    static String error(ObjectNode errorBody) {
        return event(errorBody);
    }

    private ObjectNode head() {
        ObjectNode chunk = Json.object();
        chunk.put("id", meta.id());
        chunk.put("object", "chat.completion.chunk");
        chunk.put("created", meta.created());
        chunk.put("model", meta.model());
        return chunk;
    }

    private ObjectNode chunk() {
        ObjectNode chunk = head();
        ObjectNode choice = chunk.putArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("delta");
        choice.putNull("logprobs");
        choice.putNull("finish_reason");
        if (includeUsage) {
            // With include_usage OpenAI sends "usage": null on every chunk but the last.
            chunk.putNull("usage");
        }
        return chunk;
    }

    private static ObjectNode delta(ObjectNode chunk) {
        return (ObjectNode) chunk.path("choices").path(0).path("delta");
    }

    private static String event(ObjectNode node) {
        return "data: " + Json.write(node) + "\n\n";
    }
}
