package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * Helpers for OpenAI streaming usage: whether a client asked for it, asking for it on its behalf,
 * and recognising the extra usage chunk so it can be withheld from a client that did not ask.
 */
public final class OpenAiChunks {

    private OpenAiChunks() {
    }

    /** Whether a chat/completions request has {@code stream_options.include_usage: true}. */
    public static boolean requestsUsage(JsonNode request) {
        return request.path("stream_options").path("include_usage").asBoolean(false);
    }

    /**
     * A copy of a streaming request with {@code stream_options.include_usage} set to true, other
     * stream options kept, so the gateway always learns the usage.
     */
    public static ObjectNode withUsageRequested(ObjectNode request) {
        Objects.requireNonNull(request, "request");
        ObjectNode copy = request.deepCopy();
        JsonNode options = copy.path("stream_options");
        ObjectNode o = options.isObject() ? (ObjectNode) options : copy.putObject("stream_options");
        o.put("include_usage", true);
        return copy;
    }

    /** Whether a chunk is OpenAI's extra usage chunk: an empty {@code choices} array and a non-null {@code usage}. */
    public static boolean isUsageOnlyChunk(JsonNode chunk) {
        JsonNode choices = chunk.path("choices");
        return choices.isArray() && choices.isEmpty() && chunk.path("usage").isObject();
    }

    /** The same test on an event's data text; false for data that is not JSON (such as [DONE]). */
    public static boolean isUsageOnlyChunk(String data) {
        return Json.parse(data).map(OpenAiChunks::isUsageOnlyChunk).orElse(false);
    }
}
