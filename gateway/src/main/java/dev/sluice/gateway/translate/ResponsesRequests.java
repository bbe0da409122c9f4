package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/**
 * OpenAI Responses API request ({@code POST /v1/responses}) to the equivalent chat/completions
 * request, which {@link AnthropicRequests} and {@link GeminiRequests} then translate on. Used only
 * for profiles whose provider has no Responses API; OpenAI-family profiles get the request as sent.
 *
 * <ul>
 *   <li>{@code instructions} becomes the first system message; {@code input} a string or a list
 *       of items: messages (roles user, assistant, system, developer; parts {@code input_text},
 *       {@code output_text}, {@code refusal}, {@code input_image}, {@code input_file}),
 *       {@code function_call} items (assistant tool calls, consecutive ones in one message) and
 *       {@code function_call_output} items (tool results). Reasoning items are dropped: they are
 *       another provider's.
 *   <li>{@code tools} of type {@code function}, {@code tool_choice}, {@code parallel_tool_calls},
 *       {@code max_output_tokens}, {@code temperature}, {@code top_p}, {@code text.format}
 *       (json_schema, json_object), {@code user} and {@code stream} keep their meaning.
 *   <li>Refused with a 400 naming the field: {@code previous_response_id} and
 *       {@code item_reference} items (Sluice keeps no conversation state: send the whole input),
 *       built-in tools (web search, file search, computer use ...), which only OpenAI runs.
 *   <li>{@code store}, {@code metadata}, {@code include}, {@code reasoning}, {@code truncation},
 *       {@code service_tier} and {@code stream_options} have no counterpart and are dropped.
 * </ul>
 */
public final class ResponsesRequests {

    private static final Set<String> MESSAGE_ROLES = Set.of("user", "assistant", "system", "developer");

    private ResponsesRequests() {
    }

    /**
     * The chat/completions body that asks what {@code request} asks.
     *
     * @throws TranslationException when the request is malformed or needs what only OpenAI keeps or runs
     */
    public static ObjectNode toChat(JsonNode request) {
        if (request == null || !request.isObject()) {
            throw new TranslationException("", "body is " + Json.describe(request) + " (expected: a JSON object)");
        }
        JsonNode previous = request.path("previous_response_id");
        if (!previous.isMissingNode() && !previous.isNull()) {
            throw new TranslationException("previous_response_id", "Sluice keeps no conversation state for profiles "
                    + "served by this provider (expected: no previous_response_id; send the whole conversation in input)");
        }
        JsonNode conversation = request.path("conversation");
        if (!conversation.isMissingNode() && !conversation.isNull()) {
            throw new TranslationException("conversation", "Sluice keeps no conversations for profiles served by this "
                    + "provider (expected: the whole conversation in input)");
        }
        ObjectNode chat = Json.object();
        copy(request, "model", chat, "model");
        ArrayNode messages = chat.putArray("messages");
        JsonNode instructions = request.path("instructions");
        if (instructions.isTextual() && !instructions.textValue().isEmpty()) {
            messages.addObject().put("role", "system").put("content", instructions.textValue());
        } else if (!instructions.isMissingNode() && !instructions.isNull() && !instructions.isTextual()) {
            throw new TranslationException("instructions", Json.describe(instructions) + " (expected: a string)");
        }
        input(request.path("input"), messages);
        tools(request, chat);
        copy(request, "max_output_tokens", chat, "max_completion_tokens");
        copy(request, "temperature", chat, "temperature");
        copy(request, "top_p", chat, "top_p");
        copy(request, "parallel_tool_calls", chat, "parallel_tool_calls");
        copy(request, "user", chat, "user");
        format(request.path("text").path("format"), chat);
        if (request.path("stream").asBoolean(false)) {
            chat.put("stream", true);
            chat.putObject("stream_options").put("include_usage", true);
        }
        return chat;
    }

    private static void input(JsonNode input, ArrayNode messages) {
        if (input.isTextual()) {
            messages.addObject().put("role", "user").put("content", input.textValue());
            return;
        }
        if (!input.isArray()) {
            throw new TranslationException("input", Json.describe(input) + " (expected: a string or an array of items)");
        }
        for (int i = 0; i < input.size(); i++) {
            JsonNode item = input.get(i);
            String path = "input[" + i + "]";
            if (!item.isObject()) {
                throw new TranslationException(path, Json.describe(item) + " (expected: an object)");
            }
            String type = Json.string(item, "type").orElse("message");
            switch (type) {
                case "message" -> message(item, path, messages);
                case "function_call" -> functionCall(item, path, messages);
                case "function_call_output" -> {
                    ObjectNode tool = messages.addObject().put("role", "tool");
                    tool.put("tool_call_id", required(item, "call_id", path));
                    tool.put("content", outputText(item.path("output"), path + ".output"));
                }
                case "reasoning" -> {
                    // Another provider's reasoning: nothing this one can read.
                }
                case "item_reference" -> throw new TranslationException(path + ".type", "\"item_reference\": Sluice keeps"
                        + " no stored items for profiles served by this provider (expected: the item itself)");
                default -> throw new TranslationException(path + ".type", Json.describe(item.path("type"))
                        + " (expected: message, function_call, function_call_output or reasoning)");
            }
        }
    }

    private static void message(JsonNode item, String path, ArrayNode messages) {
        String role = Json.stringOr(item, "role");
        if (!MESSAGE_ROLES.contains(role)) {
            throw new TranslationException(path + ".role", Json.describe(item.path("role"))
                    + " (expected: user, assistant, system or developer)");
        }
        JsonNode content = item.path("content");
        ObjectNode m = messages.addObject().put("role", role);
        if (content.isTextual()) {
            m.put("content", content.textValue());
            return;
        }
        if (!content.isArray()) {
            throw new TranslationException(path + ".content", Json.describe(content)
                    + " (expected: a string or an array of content parts)");
        }
        ArrayNode parts = m.putArray("content");
        for (int j = 0; j < content.size(); j++) {
            JsonNode part = content.get(j);
            String p = path + ".content[" + j + "]";
            switch (Json.stringOr(part, "type")) {
                case "input_text", "output_text", "text" -> parts.addObject().put("type", "text").put("text",
                        required(part, "text", p));
                case "refusal" -> parts.addObject().put("type", "text").put("text", required(part, "refusal", p));
                case "input_image" -> {
                    JsonNode url = part.path("image_url");
                    if (!url.isTextual()) {
                        throw new TranslationException(p + ".image_url", Json.describe(url)
                                + " (expected: a data: or http(s) URL; uploaded file ids cannot be forwarded)");
                    }
                    ObjectNode image = parts.addObject().put("type", "image_url").putObject("image_url")
                            .put("url", url.textValue());
                    Json.string(part, "detail").ifPresent(d -> image.put("detail", d));
                }
                case "input_file" -> {
                    ObjectNode file = parts.addObject().put("type", "file").putObject("file");
                    file.put("file_data", required(part, "file_data", p));
                    Json.string(part, "filename").ifPresent(f -> file.put("filename", f));
                }
                default -> throw new TranslationException(p + ".type", Json.describe(part.path("type"))
                        + " (expected: input_text, output_text, refusal, input_image or input_file)");
            }
        }
    }

    /** An assistant tool call, joined to the assistant message just before it when there is one. */
    private static void functionCall(JsonNode item, String path, ArrayNode messages) {
        ObjectNode last = messages.isEmpty() ? null : (ObjectNode) messages.get(messages.size() - 1);
        ObjectNode assistant = last != null && "assistant".equals(Json.stringOr(last, "role")) ? last
                : messages.addObject().put("role", "assistant").putNull("content");
        JsonNode calls = assistant.path("tool_calls");
        ArrayNode list = calls.isArray() ? (ArrayNode) calls : assistant.putArray("tool_calls");
        ObjectNode call = list.addObject();
        call.put("id", required(item, "call_id", path)).put("type", "function");
        JsonNode arguments = item.path("arguments");
        call.putObject("function").put("name", required(item, "name", path))
                .put("arguments", arguments.isTextual() ? arguments.textValue() : "{}");
    }

    /** A tool result: a string, or parts whose text is joined. */
    private static String outputText(JsonNode output, String path) {
        if (output.isTextual()) {
            return output.textValue();
        }
        if (output.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode part : output) {
                sb.append(Json.stringOr(part, "text"));
            }
            return sb.toString();
        }
        throw new TranslationException(path, Json.describe(output) + " (expected: a string or an array of text parts)");
    }

    private static void tools(JsonNode request, ObjectNode chat) {
        JsonNode tools = request.path("tools");
        if (tools.isArray() && !tools.isEmpty()) {
            ArrayNode out = chat.putArray("tools");
            for (int i = 0; i < tools.size(); i++) {
                JsonNode tool = tools.get(i);
                String type = Json.stringOr(tool, "type");
                if (!type.equals("function")) {
                    throw new TranslationException("tools[" + i + "].type", Json.describe(tool.path("type"))
                            + " (expected: function; built-in tools run only on OpenAI profiles)");
                }
                ObjectNode fn = out.addObject().put("type", "function").putObject("function");
                fn.put("name", required(tool, "name", "tools[" + i + "]"));
                Json.string(tool, "description").ifPresent(d -> fn.put("description", d));
                if (tool.path("parameters").isObject()) {
                    fn.set("parameters", tool.path("parameters"));
                }
            }
        } else if (!tools.isMissingNode() && !tools.isNull() && !tools.isArray()) {
            throw new TranslationException("tools", Json.describe(tools) + " (expected: an array)");
        }
        JsonNode choice = request.path("tool_choice");
        if (choice.isTextual()) {
            chat.put("tool_choice", choice.textValue());
        } else if (choice.isObject()) {
            if (!"function".equals(Json.stringOr(choice, "type"))) {
                throw new TranslationException("tool_choice.type", Json.describe(choice.path("type"))
                        + " (expected: function)");
            }
            chat.putObject("tool_choice").put("type", "function").putObject("function")
                    .put("name", required(choice, "name", "tool_choice"));
        }
    }

    private static void format(JsonNode format, ObjectNode chat) {
        switch (Json.stringOr(format, "type")) {
            case "json_schema" -> {
                ObjectNode schema = chat.putObject("response_format").put("type", "json_schema").putObject("json_schema");
                schema.put("name", Json.string(format, "name").orElse("response"));
                if (format.path("schema").isObject()) {
                    schema.set("schema", format.path("schema"));
                }
                if (format.path("strict").isBoolean()) {
                    schema.put("strict", format.path("strict").booleanValue());
                }
            }
            case "json_object" -> chat.putObject("response_format").put("type", "json_object");
            default -> {
                // text, or none: the default.
            }
        }
    }

    private static String required(JsonNode node, String field, String path) {
        JsonNode v = node.path(field);
        if (!v.isTextual()) {
            throw new TranslationException(path + "." + field, Json.describe(v) + " (expected: a string)");
        }
        return v.textValue();
    }

    private static void copy(JsonNode from, String field, ObjectNode to, String as) {
        JsonNode v = from.path(field);
        if (!v.isMissingNode() && !v.isNull()) {
            to.set(as, v);
        }
    }
}
