package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.Optional;

/**
 * Provider error bodies to the OpenAI error shape {@code {"error":{"message","type","param","code"}}},
 * for translated routes. The provider's own error kind is kept as both {@code type} and
 * {@code code} (Anthropic {@code error.type}, Gemini {@code error.status}); OpenAI SDKs choose
 * their exception class from the HTTP status, not from these fields.
 */
public final class ProviderErrors {

    private ProviderErrors() {
    }

    /**
     * Translates an error body.
     *
     * @param format the provider's format
     * @param body   the raw error body, possibly empty or not JSON
     * @param status the HTTP status the provider answered with (used only in the fallback message)
     */
    public static ObjectNode toOpenAi(WireFormat format, byte[] body, int status) {
        Objects.requireNonNull(format, "format");
        Optional<ObjectNode> translated = Json.parse(body).flatMap(node -> fromNode(format, node));
        return translated.orElseGet(() -> error("upstream returned HTTP " + status + " without a readable error body",
                "upstream_error"));
    }

    /** The same for an already parsed body (such as the data of an SSE error event); empty if it is no error. */
    static Optional<ObjectNode> fromNode(WireFormat format, JsonNode node) {
        // Gemini's OpenAI-compatible endpoint has been seen wrapping errors in an array.
        JsonNode body = node.isArray() ? node.path(0) : node;
        JsonNode error = body.path("error");
        if (!error.isObject()) {
            return Optional.empty();
        }
        return switch (format) {
            case OPENAI -> {
                ObjectNode out = Json.object();
                out.set("error", error.deepCopy());
                yield Optional.of(out);
            }
            case ANTHROPIC -> Optional.of(error(message(error), Json.string(error, "type").orElse("api_error")));
            case GEMINI -> Optional.of(error(message(error), Json.string(error, "status").orElse("UNKNOWN")));
        };
    }

    /** An OpenAI-style error body. */
    static ObjectNode error(String message, String type) {
        ObjectNode out = Json.object();
        ObjectNode e = out.putObject("error");
        e.put("message", message);
        e.put("type", type);
        e.putNull("param");
        e.put("code", type);
        return out;
    }

    private static String message(JsonNode error) {
        return Json.string(error, "message").orElse("upstream error without a message");
    }
}
