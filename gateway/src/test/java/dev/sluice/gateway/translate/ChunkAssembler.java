package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rebuilds the chat.completion message a client SDK would assemble from streamed chunks, the way
 * the OpenAI SDKs accumulate them: content concatenated, tool calls merged by index.
 */
final class ChunkAssembler {

    private ChunkAssembler() {
    }

    /** {"content", "tool_calls", "finish_reason", "usage"} from downstream events ending in [DONE]. */
    static ObjectNode assemble(List<String> events) {
        StringBuilder content = new StringBuilder();
        Map<Integer, ObjectNode> calls = new TreeMap<>();
        ObjectNode out = Fixtures.MAPPER.createObjectNode();
        List<JsonNode> trees = Fixtures.events(events);
        if (!trees.getLast().isTextual()) {
            throw new AssertionError("stream does not end with [DONE]: " + events);
        }
        for (JsonNode chunk : trees.subList(0, trees.size() - 1)) {
            if (chunk.has("error")) {
                throw new AssertionError("error event: " + chunk);
            }
            if (chunk.path("usage").isObject()) {
                out.set("usage", chunk.path("usage"));
            }
            for (JsonNode choice : chunk.path("choices")) {
                JsonNode delta = choice.path("delta");
                if (delta.path("content").isTextual()) {
                    content.append(delta.path("content").textValue());
                }
                for (JsonNode call : delta.path("tool_calls")) {
                    ObjectNode acc = calls.computeIfAbsent(call.path("index").asInt(), i -> {
                        ObjectNode c = Fixtures.MAPPER.createObjectNode();
                        c.putObject("function").put("arguments", "");
                        return c;
                    });
                    if (call.has("id")) {
                        acc.put("id", call.path("id").textValue());
                        acc.put("type", call.path("type").textValue());
                        ((ObjectNode) acc.path("function")).put("name", call.path("function").path("name").textValue());
                    }
                    ObjectNode fn = (ObjectNode) acc.path("function");
                    fn.put("arguments", fn.path("arguments").textValue() + call.path("function").path("arguments").asText(""));
                }
                if (choice.path("finish_reason").isTextual()) {
                    out.put("finish_reason", choice.path("finish_reason").textValue());
                }
            }
        }
        if (content.isEmpty() && !calls.isEmpty()) {
            out.putNull("content");
        } else {
            out.put("content", content.toString());
        }
        if (!calls.isEmpty()) {
            ArrayNode list = out.putArray("tool_calls");
            calls.values().forEach(list::add);
        }
        return out;
    }

    /** The same four fields from a non-streaming chat.completion. */
    static ObjectNode view(JsonNode completion) {
        ObjectNode out = Fixtures.MAPPER.createObjectNode();
        JsonNode choice = completion.path("choices").path(0);
        out.set("content", choice.path("message").path("content"));
        if (choice.path("message").has("tool_calls")) {
            ArrayNode list = out.putArray("tool_calls");
            for (JsonNode call : choice.path("message").path("tool_calls")) {
                ObjectNode c = call.deepCopy();
                list.add(c);
            }
        }
        out.put("finish_reason", choice.path("finish_reason").textValue());
        out.set("usage", completion.path("usage"));
        return out;
    }
}
