package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.mock.http.Route.Endpoint;
import java.util.Locale;
import java.util.Optional;

/**
 * The tool call the mock answers with, decided from the request alone so that the same request
 * always gets the same call: when a request offers function tools, tool choice does not forbid
 * them, and its conversation does not already end with a tool result, the mock calls the tool
 * the choice names (else the first one) with arguments made from its JSON Schema: every property,
 * a string {@code "sluice"} (or the first enum value), integer 1, number 1.5, boolean true, an
 * empty array or object. A conversation that ends with a tool result is answered with text, so a
 * client's tool loop ends after one round trip.
 *
 * @param name the tool called
 * @param arguments the call's arguments
 */
record ToolUse(String name, ObjectNode arguments) {

    /** The arguments as sent: compact JSON. */
    String argumentsJson() {
        return Wire.json(arguments);
    }

    /** Output tokens the call counts as: its arguments' characters / 4, rounded up, at least 1. */
    long tokens() {
        return Math.max(1, Math.ceilDiv(argumentsJson().length(), 4));
    }

    /** The arguments' text of tokens {@code [from, from + count)}, four characters a token; the last piece ends the text. */
    String fragment(long from, long count) {
        String json = argumentsJson();
        int start = (int) Math.min(json.length(), from * 4);
        int end = from + count >= tokens() ? json.length() : (int) Math.min(json.length(), (from + count) * 4);
        return json.substring(start, end);
    }

    /** The call {@code body} gets on {@code endpoint}, if any. */
    static Optional<ToolUse> of(Endpoint endpoint, JsonNode body) {
        return switch (endpoint) {
            case CHAT, GEMINI_COMPAT_CHAT -> chat(body);
            case RESPONSES -> responses(body);
            case MESSAGES -> anthropic(body);
            case GENERATE, STREAM_GENERATE -> gemini(body);
            default -> Optional.empty();
        };
    }

    private static Optional<ToolUse> chat(JsonNode body) {
        JsonNode last = body.path("messages").path(body.path("messages").size() - 1);
        if ("tool".equals(last.path("role").asText()) || "function".equals(last.path("role").asText())) {
            return Optional.empty();
        }
        JsonNode choice = body.path("tool_choice");
        if ("none".equals(choice.asText())) {
            return Optional.empty();
        }
        String named = choice.path("function").path("name").asText("");
        for (JsonNode tool : body.path("tools")) {
            JsonNode fn = tool.path("function");
            if ("function".equals(tool.path("type").asText("function")) && fn.path("name").isTextual()
                    && (named.isEmpty() || named.equals(fn.path("name").asText()))) {
                return Optional.of(new ToolUse(fn.path("name").asText(), arguments(fn.path("parameters"))));
            }
        }
        return Optional.empty();
    }

    private static Optional<ToolUse> responses(JsonNode body) {
        JsonNode input = body.path("input");
        if (input.isArray() && "function_call_output".equals(input.path(input.size() - 1).path("type").asText())) {
            return Optional.empty();
        }
        JsonNode choice = body.path("tool_choice");
        if ("none".equals(choice.asText())) {
            return Optional.empty();
        }
        String named = choice.path("name").asText("");
        for (JsonNode tool : body.path("tools")) {
            if ("function".equals(tool.path("type").asText()) && tool.path("name").isTextual()
                    && (named.isEmpty() || named.equals(tool.path("name").asText()))) {
                return Optional.of(new ToolUse(tool.path("name").asText(), arguments(tool.path("parameters"))));
            }
        }
        return Optional.empty();
    }

    private static Optional<ToolUse> anthropic(JsonNode body) {
        JsonNode last = body.path("messages").path(body.path("messages").size() - 1);
        for (JsonNode block : last.path("content")) {
            if ("tool_result".equals(block.path("type").asText())) {
                return Optional.empty();
            }
        }
        JsonNode choice = body.path("tool_choice");
        if ("none".equals(choice.path("type").asText())) {
            return Optional.empty();
        }
        String named = "tool".equals(choice.path("type").asText()) ? choice.path("name").asText("") : "";
        for (JsonNode tool : body.path("tools")) {
            if (tool.path("name").isTextual() && tool.has("input_schema")
                    && (named.isEmpty() || named.equals(tool.path("name").asText()))) {
                return Optional.of(new ToolUse(tool.path("name").asText(), arguments(tool.path("input_schema"))));
            }
        }
        return Optional.empty();
    }

    private static Optional<ToolUse> gemini(JsonNode body) {
        JsonNode contents = body.path("contents");
        for (JsonNode part : contents.path(contents.size() - 1).path("parts")) {
            if (part.has("functionResponse")) {
                return Optional.empty();
            }
        }
        JsonNode config = body.path("toolConfig").path("functionCallingConfig");
        if ("NONE".equals(config.path("mode").asText())) {
            return Optional.empty();
        }
        String named = config.path("allowedFunctionNames").path(0).asText("");
        for (JsonNode tool : body.path("tools")) {
            for (JsonNode fn : tool.path("functionDeclarations")) {
                if (fn.path("name").isTextual() && (named.isEmpty() || named.equals(fn.path("name").asText()))) {
                    JsonNode schema = fn.has("parametersJsonSchema") ? fn.path("parametersJsonSchema") : fn.path("parameters");
                    return Optional.of(new ToolUse(fn.path("name").asText(), arguments(schema)));
                }
            }
        }
        return Optional.empty();
    }

    /** Arguments for an object schema: every property given a value of its type. */
    static ObjectNode arguments(JsonNode schema) {
        ObjectNode out = Wire.obj();
        schema.path("properties").properties().forEach(e -> out.set(e.getKey(), value(e.getValue())));
        return out;
    }

    private static JsonNode value(JsonNode schema) {
        if (schema.path("enum").isArray() && !schema.path("enum").isEmpty()) {
            return schema.path("enum").get(0);
        }
        JsonNode type = schema.path("type");
        String t = (type.isArray() ? type.path(0) : type).asText("string").toLowerCase(Locale.ROOT);
        return switch (t) {
            case "integer" -> Wire.MAPPER.getNodeFactory().numberNode(1);
            case "number" -> Wire.MAPPER.getNodeFactory().numberNode(1.5);
            case "boolean" -> Wire.MAPPER.getNodeFactory().booleanNode(true);
            case "array" -> Wire.arr();
            case "object" -> arguments(schema);
            default -> Wire.MAPPER.getNodeFactory().textNode("sluice");
        };
    }
}
