package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.gateway.translate.ParsedChat.Inline;
import dev.sluice.gateway.translate.ParsedChat.Part;
import dev.sluice.gateway.translate.ParsedChat.Remote;
import dev.sluice.gateway.translate.ParsedChat.Role;
import dev.sluice.gateway.translate.ParsedChat.Text;
import dev.sluice.gateway.translate.ParsedChat.ToolCall;
import dev.sluice.gateway.translate.ParsedChat.ToolChoice;
import dev.sluice.gateway.translate.ParsedChat.ToolDef;
import dev.sluice.gateway.translate.ParsedChat.ToolResult;
import dev.sluice.gateway.translate.ParsedChat.Turn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Validates an OpenAI chat/completions request body and reads it into a {@link ParsedChat}. */
final class ChatParser {

    private ChatParser() {
    }

    static ParsedChat parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new TranslationException("", "body is " + Json.describe(body) + " (expected: a JSON object)");
        }
        JsonNode n = body.path("n");
        if (!n.isMissingNode() && !n.isNull() && !(n.isIntegralNumber() && n.asLong() == 1)) {
            throw new TranslationException("n", Json.describe(n) + " (expected: 1, the only choice count this provider supports)");
        }
        List<String> system = new ArrayList<>();
        List<Turn> turns = readMessages(body.path("messages"), system);
        List<ToolDef> tools = readTools(body);
        return new ParsedChat(system, turns, tools, readToolChoice(body, tools), readParallel(body),
                readStop(body.path("stop")), readMaxTokens(body), number(body, "temperature"), number(body, "top_p"),
                integral(body, "seed"), number(body, "presence_penalty"), number(body, "frequency_penalty"),
                readResponseFormat(body.path("response_format")), Json.string(body, "user"), readStream(body));
    }

    private static List<Turn> readMessages(JsonNode messages, List<String> system) {
        if (!messages.isArray() || messages.isEmpty()) {
            throw new TranslationException("messages", Json.describe(messages) + " (expected: a non-empty array)");
        }
        Map<String, String> toolNames = new HashMap<>();
        List<Turn> turns = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode msg = messages.get(i);
            String path = "messages[" + i + "]";
            if (!msg.isObject()) {
                throw new TranslationException(path, Json.describe(msg) + " (expected: an object)");
            }
            JsonNode role = msg.path("role");
            String r = role.isTextual() ? role.textValue() : "";
            switch (r) {
                case "system", "developer" -> system.addAll(texts(msg.path("content"), path + ".content", false));
                case "user" -> append(turns, Role.USER, userParts(msg.path("content"), path + ".content"));
                case "assistant" -> append(turns, Role.ASSISTANT, assistantParts(msg, path, toolNames));
                case "tool" -> append(turns, Role.USER, List.of(toolResult(msg, path, toolNames)));
                default -> throw new TranslationException(path + ".role",
                        Json.describe(role) + " (expected: system, developer, user, assistant or tool)");
            }
        }
        if (turns.isEmpty()) {
            throw new TranslationException("messages", "no user or assistant content (expected: at least one non-empty"
                    + " user, assistant or tool message)");
        }
        return turns;
    }

    /** Adds parts as a turn, merging with the previous turn of the same role; empty turns vanish. */
    private static void append(List<Turn> turns, Role role, List<Part> parts) {
        if (parts.isEmpty()) {
            return;
        }
        if (!turns.isEmpty() && turns.getLast().role() == role) {
            turns.getLast().parts().addAll(parts);
        } else {
            turns.add(new Turn(role, new ArrayList<>(parts)));
        }
    }

    /** Text-only content (system, tool, assistant): a string or an array of text (or refusal) parts. */
    private static List<String> texts(JsonNode content, String path, boolean nullable) {
        List<String> out = new ArrayList<>();
        if (content.isTextual()) {
            if (!content.textValue().isEmpty()) {
                out.add(content.textValue());
            }
            return out;
        }
        if ((content.isNull() || content.isMissingNode()) && nullable) {
            return out;
        }
        if (!content.isArray()) {
            throw new TranslationException(path, Json.describe(content) + " (expected: a string or an array of text parts)");
        }
        for (int j = 0; j < content.size(); j++) {
            JsonNode part = content.get(j);
            String type = Json.stringOr(part, "type");
            String field = switch (type) {
                case "text" -> "text";
                case "refusal" -> "refusal";
                default -> throw new TranslationException(path + "[" + j + "].type",
                        Json.describe(part.path("type")) + " (expected: text)");
            };
            String text = requiredString(part, field, path + "[" + j + "]." + field);
            if (!text.isEmpty()) {
                out.add(text);
            }
        }
        return out;
    }

    private static List<Part> userParts(JsonNode content, String path) {
        List<Part> out = new ArrayList<>();
        if (content.isTextual()) {
            if (!content.textValue().isEmpty()) {
                out.add(new Text(content.textValue()));
            }
            return out;
        }
        if (!content.isArray()) {
            throw new TranslationException(path, Json.describe(content) + " (expected: a string or an array of content parts)");
        }
        for (int j = 0; j < content.size(); j++) {
            JsonNode part = content.get(j);
            String p = path + "[" + j + "]";
            switch (Json.stringOr(part, "type")) {
                case "text" -> {
                    String text = requiredString(part, "text", p + ".text");
                    if (!text.isEmpty()) {
                        out.add(new Text(text));
                    }
                }
                case "image_url" -> out.add(image(part.path("image_url"), p + ".image_url"));
                case "file" -> out.add(file(part.path("file"), p + ".file"));
                case "input_audio" -> {
                    JsonNode audio = part.path("input_audio");
                    String data = requiredString(audio, "data", p + ".input_audio.data");
                    String format = requiredString(audio, "format", p + ".input_audio.format");
                    out.add(new Inline("audio/" + format.toLowerCase(Locale.ROOT), data, p + ".input_audio"));
                }
                default -> throw new TranslationException(p + ".type",
                        Json.describe(part.path("type")) + " (expected: text, image_url, file or input_audio)");
            }
        }
        return out;
    }

    private static Part image(JsonNode imageUrl, String path) {
        // Some clients send the URL string directly instead of {"url": ...}.
        String url = imageUrl.isTextual() ? imageUrl.textValue() : requiredString(imageUrl, "url", path + ".url");
        String urlPath = imageUrl.isTextual() ? path : path + ".url";
        if (url.regionMatches(true, 0, "data:", 0, 5)) {
            return dataUrl(url, urlPath);
        }
        if (url.regionMatches(true, 0, "https://", 0, 8) || url.regionMatches(true, 0, "http://", 0, 7)) {
            return new Remote(url, urlPath);
        }
        throw new TranslationException(urlPath, Json.describe(imageUrl.isTextual() ? imageUrl : imageUrl.path("url"))
                + " (expected: a data: URL or an http(s) URL)");
    }

    private static Part file(JsonNode file, String path) {
        if (file.has("file_id") && !file.has("file_data")) {
            throw new TranslationException(path + ".file_id", "uploaded files cannot be forwarded (expected: file_data)");
        }
        String data = requiredString(file, "file_data", path + ".file_data");
        if (data.regionMatches(true, 0, "data:", 0, 5)) {
            return dataUrl(data, path + ".file_data");
        }
        String name = Json.stringOr(file, "filename").toLowerCase(Locale.ROOT);
        if (name.endsWith(".pdf")) {
            return new Inline("application/pdf", data, path + ".file_data");
        }
        throw new TranslationException(path + ".file_data",
                "raw data without a known type (expected: a data: URL or a .pdf filename)");
    }

    /** {@code data:<mime>[;param]*;base64,<data>}; only base64 payloads are accepted. */
    private static Inline dataUrl(String url, String path) {
        int comma = url.indexOf(',');
        String header = comma < 0 ? "" : url.substring(5, comma);
        int semi = header.indexOf(';');
        String mime = (semi < 0 ? header : header.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
        if (comma < 0 || mime.isEmpty() || !header.toLowerCase(Locale.ROOT).endsWith(";base64")) {
            throw new TranslationException(path, "a data: URL without a media type or base64 payload "
                    + "(expected: data:<media type>;base64,<data>)");
        }
        return new Inline(mime, url.substring(comma + 1), path);
    }

    private static List<Part> assistantParts(JsonNode msg, String path, Map<String, String> toolNames) {
        if (msg.has("function_call") && !msg.path("function_call").isNull()) {
            throw new TranslationException(path + ".function_call", "legacy function calls are not translated (expected: tool_calls)");
        }
        List<Part> out = new ArrayList<>();
        for (String text : texts(msg.path("content"), path + ".content", true)) {
            out.add(new Text(text));
        }
        JsonNode calls = msg.path("tool_calls");
        if (calls.isNull() || calls.isMissingNode()) {
            return out;
        }
        if (!calls.isArray()) {
            throw new TranslationException(path + ".tool_calls", Json.describe(calls) + " (expected: an array)");
        }
        for (int j = 0; j < calls.size(); j++) {
            JsonNode call = calls.get(j);
            String p = path + ".tool_calls[" + j + "]";
            String type = Json.string(call, "type").orElse("function");
            if (!type.equals("function")) {
                throw new TranslationException(p + ".type", Json.describe(call.path("type")) + " (expected: function)");
            }
            String id = requiredString(call, "id", p + ".id");
            String name = requiredString(call.path("function"), "name", p + ".function.name");
            ObjectNode args = arguments(call.path("function").path("arguments"), p + ".function.arguments");
            toolNames.put(id, name);
            out.add(new ToolCall(id, name, args));
        }
        return out;
    }

    private static ObjectNode arguments(JsonNode arguments, String path) {
        if (arguments.isObject()) {
            return (ObjectNode) arguments;
        }
        if (arguments.isMissingNode() || arguments.isNull()
                || (arguments.isTextual() && arguments.textValue().isBlank())) {
            return Json.object();
        }
        if (arguments.isTextual()) {
            Optional<JsonNode> parsed = Json.parse(arguments.textValue());
            if (parsed.isPresent() && parsed.get().isObject()) {
                return (ObjectNode) parsed.get();
            }
        }
        throw new TranslationException(path, Json.describe(arguments) + " (expected: a JSON object encoded as a string)");
    }

    private static ToolResult toolResult(JsonNode msg, String path, Map<String, String> toolNames) {
        String id = requiredString(msg, "tool_call_id", path + ".tool_call_id");
        String content = String.join("", texts(msg.path("content"), path + ".content", true));
        return new ToolResult(id, toolNames.getOrDefault(id, ""), content, path + ".tool_call_id");
    }

    private static List<ToolDef> readTools(JsonNode body) {
        List<ToolDef> out = new ArrayList<>();
        JsonNode tools = body.path("tools");
        boolean legacy = tools.isMissingNode() || tools.isNull();
        String field = legacy ? "functions" : "tools";
        JsonNode list = legacy ? body.path("functions") : tools;
        if (list.isMissingNode() || list.isNull()) {
            return out;
        }
        if (!list.isArray()) {
            throw new TranslationException(field, Json.describe(list) + " (expected: an array)");
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode tool = list.get(i);
            String p = field + "[" + i + "]";
            JsonNode fn = tool;
            if (!legacy) {
                String type = Json.stringOr(tool, "type");
                if (!type.equals("function")) {
                    throw new TranslationException(p + ".type", Json.describe(tool.path("type")) + " (expected: function)");
                }
                fn = tool.path("function");
                p += ".function";
            }
            String name = requiredString(fn, "name", p + ".name");
            if (name.isEmpty()) {
                throw new TranslationException(p + ".name", "\"\" (expected: a non-empty function name)");
            }
            JsonNode params = fn.path("parameters");
            if (!params.isMissingNode() && !params.isNull() && !params.isObject()) {
                throw new TranslationException(p + ".parameters", Json.describe(params) + " (expected: a JSON Schema object)");
            }
            out.add(new ToolDef(name, Json.string(fn, "description"),
                    params.isObject() ? Optional.of(params) : Optional.empty()));
        }
        return out;
    }

    private static ToolChoice readToolChoice(JsonNode body, List<ToolDef> tools) {
        boolean legacy = !body.has("tool_choice") && body.has("function_call");
        String field = legacy ? "function_call" : "tool_choice";
        JsonNode choice = body.path(field);
        if (choice.isMissingNode() || choice.isNull()) {
            return new ParsedChat.Unset();
        }
        if (choice.isTextual()) {
            return switch (choice.textValue()) {
                case "auto" -> new ParsedChat.Auto();
                case "none" -> new ParsedChat.None();
                case "required" -> new ParsedChat.Required();
                default -> throw new TranslationException(field, Json.describe(choice) + " (expected: auto, none, required or a named function)");
            };
        }
        String namePath = legacy ? field + ".name" : field + ".function.name";
        JsonNode holder = legacy ? choice : choice.path("function");
        String name = requiredString(holder, "name", namePath);
        if (tools.stream().noneMatch(t -> t.name().equals(name))) {
            throw new TranslationException(namePath, Json.describe(holder.path("name")) + " (expected: the name of a declared tool)");
        }
        return new ParsedChat.Named(name);
    }

    private static Optional<Boolean> readParallel(JsonNode body) {
        JsonNode p = body.path("parallel_tool_calls");
        if (p.isMissingNode() || p.isNull()) {
            return Optional.empty();
        }
        if (!p.isBoolean()) {
            throw new TranslationException("parallel_tool_calls", Json.describe(p) + " (expected: true or false)");
        }
        return Optional.of(p.booleanValue());
    }

    private static List<String> readStop(JsonNode stop) {
        List<String> out = new ArrayList<>();
        if (stop.isMissingNode() || stop.isNull()) {
            return out;
        }
        if (stop.isTextual()) {
            out.add(stop.textValue());
            return out;
        }
        if (!stop.isArray()) {
            throw new TranslationException("stop", Json.describe(stop) + " (expected: a string or an array of strings)");
        }
        for (int i = 0; i < stop.size(); i++) {
            if (!stop.get(i).isTextual()) {
                throw new TranslationException("stop[" + i + "]", Json.describe(stop.get(i)) + " (expected: a string)");
            }
            out.add(stop.get(i).textValue());
        }
        return out;
    }

    private static OptionalLong readMaxTokens(JsonNode body) {
        // max_completion_tokens supersedes max_tokens in the OpenAI API.
        for (String field : List.of("max_completion_tokens", "max_tokens")) {
            JsonNode v = body.path(field);
            if (v.isMissingNode() || v.isNull()) {
                continue;
            }
            if (!v.canConvertToExactIntegral() || !v.canConvertToLong() || v.asLong() < 1) {
                throw new TranslationException(field, Json.describe(v) + " (expected: an integer >= 1)");
            }
            return OptionalLong.of(v.asLong());
        }
        return OptionalLong.empty();
    }

    private static Optional<JsonNode> number(JsonNode body, String field) {
        JsonNode v = body.path(field);
        if (v.isMissingNode() || v.isNull()) {
            return Optional.empty();
        }
        if (!v.isNumber()) {
            throw new TranslationException(field, Json.describe(v) + " (expected: a number)");
        }
        return Optional.of(v);
    }

    private static Optional<JsonNode> integral(JsonNode body, String field) {
        Optional<JsonNode> v = number(body, field);
        if (v.isPresent() && !v.get().canConvertToExactIntegral()) {
            throw new TranslationException(field, Json.describe(v.get()) + " (expected: an integer)");
        }
        return v;
    }

    private static Optional<ObjectNode> readResponseFormat(JsonNode format) {
        if (format.isMissingNode() || format.isNull()) {
            return Optional.empty();
        }
        String type = Json.stringOr(format, "type");
        if (!format.isObject() || !(type.equals("text") || type.equals("json_object") || type.equals("json_schema"))) {
            throw new TranslationException("response_format.type", Json.describe(format.path("type"))
                    + " (expected: text, json_object or json_schema)");
        }
        return Optional.of((ObjectNode) format);
    }

    private static boolean readStream(JsonNode body) {
        JsonNode s = body.path("stream");
        if (s.isMissingNode() || s.isNull()) {
            return false;
        }
        if (!s.isBoolean()) {
            throw new TranslationException("stream", Json.describe(s) + " (expected: true or false)");
        }
        return s.booleanValue();
    }

    private static String requiredString(JsonNode parent, String field, String path) {
        JsonNode v = parent.path(field);
        if (!v.isTextual()) {
            throw new TranslationException(path, Json.describe(v) + " (expected: a string)");
        }
        return v.textValue();
    }
}
