package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.gateway.translate.ParsedChat.Inline;
import dev.sluice.gateway.translate.ParsedChat.Part;
import dev.sluice.gateway.translate.ParsedChat.Remote;
import dev.sluice.gateway.translate.ParsedChat.Role;
import dev.sluice.gateway.translate.ParsedChat.Text;
import dev.sluice.gateway.translate.ParsedChat.ToolCall;
import dev.sluice.gateway.translate.ParsedChat.ToolDef;
import dev.sluice.gateway.translate.ParsedChat.ToolResult;
import dev.sluice.gateway.translate.ParsedChat.Turn;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * OpenAI chat/completions request to Gemini {@code generateContent} request.
 *
 * <p>System and developer messages become {@code systemInstruction}; assistant turns use role
 * {@code model}; tool messages become {@code functionResponse} parts in a user turn, named after the
 * assistant tool call whose id they answer. Tool schemas go to {@code parametersJsonSchema}, which
 * takes full JSON Schema (the older {@code parameters} field only takes an OpenAPI subset). Media
 * must be inline ({@code data:} URLs). A function call's {@code thoughtSignature}, which
 * {@link GeminiResponses} folds into the tool call id, is restored on the way back. The model and streaming mode live in the URL: see
 * {@link #path(String, boolean)}. {@code user} has no Gemini counterpart and is dropped.
 */
public final class GeminiRequests {

    private static final Pattern MODEL = Pattern.compile("(?:(?:models|tunedModels)/)?[A-Za-z0-9._-]+");

    private GeminiRequests() {
    }

    /**
     * Translates a chat request.
     *
     * @param chatRequest the client's OpenAI chat/completions body
     * @return a new Gemini GenerateContentRequest body
     * @throws TranslationException when the request is malformed or uses something Gemini cannot take
     */
    public static ObjectNode fromChat(JsonNode chatRequest) {
        ParsedChat chat = ChatParser.parse(chatRequest);
        ObjectNode out = Json.object();
        ArrayNode contents = out.putArray("contents");
        for (Turn turn : chat.turns()) {
            ObjectNode content = contents.addObject();
            content.put("role", turn.role() == Role.USER ? "user" : "model");
            ArrayNode parts = content.putArray("parts");
            for (Part part : turn.parts()) {
                parts.add(part(part));
            }
        }
        if (!chat.system().isEmpty()) {
            ArrayNode parts = out.putObject("systemInstruction").putArray("parts");
            chat.system().forEach(s -> parts.addObject().put("text", s));
        }
        if (!chat.tools().isEmpty()) {
            ArrayNode declarations = out.putArray("tools").addObject().putArray("functionDeclarations");
            for (ToolDef def : chat.tools()) {
                ObjectNode d = declarations.addObject().put("name", def.name());
                def.description().ifPresent(desc -> d.put("description", desc));
                def.parameters().ifPresent(p -> d.set("parametersJsonSchema", p.deepCopy()));
            }
            functionCallingConfig(chat).ifPresent(c -> out.putObject("toolConfig").set("functionCallingConfig", c));
        }
        ObjectNode config = generationConfig(chat);
        if (!config.isEmpty()) {
            out.set("generationConfig", config);
        }
        return out;
    }

    /**
     * The request path for a model: {@code /v1beta/models/{model}:generateContent}, or
     * {@code :streamGenerateContent?alt=sse} when streaming (SSE is what the stream converter reads).
     *
     * @param model a model name such as {@code gemini-2.5-flash}, optionally prefixed with
     *              {@code models/} or {@code tunedModels/}
     * @param stream whether to stream
     */
    public static String path(String model, boolean stream) {
        Objects.requireNonNull(model, "model");
        if (!MODEL.matcher(model).matches()) {
            throw new IllegalArgumentException("model: \"" + model + "\" (expected: letters, digits, '.', '_' or '-',"
                    + " optionally after models/ or tunedModels/)");
        }
        String resource = model.contains("/") ? model : "models/" + model;
        return "/v1beta/" + resource + (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
    }

    private static ObjectNode part(Part part) {
        ObjectNode p = Json.object();
        switch (part) {
            case Text t -> p.put("text", t.text());
            case Inline i -> p.putObject("inlineData").put("mimeType", i.mimeType()).put("data", i.base64());
            case Remote r -> throw new TranslationException(r.path(),
                    "a remote URL (expected: a data: URL; gemini profiles take inline media only)");
            case ToolCall c -> {
                p.putObject("functionCall").put("name", c.name()).set("args", c.arguments());
                int at = c.id().indexOf(ParsedChat.SIGNATURE_SEPARATOR);
                if (at >= 0) {
                    p.put("thoughtSignature", c.id().substring(at + ParsedChat.SIGNATURE_SEPARATOR.length()));
                }
            }
            case ToolResult r -> {
                if (r.name().isEmpty()) {
                    throw new TranslationException(r.path(), "\"" + r.toolCallId()
                            + "\" (expected: the id of an earlier assistant tool call)");
                }
                p.putObject("functionResponse").put("name", r.name()).set("response", response(r.content()));
            }
        }
        return p;
    }

    /** Gemini wants an object: a JSON object result is passed as is, anything else as {"output": text}. */
    private static ObjectNode response(String content) {
        Optional<JsonNode> parsed = content.isBlank() ? Optional.empty() : Json.parse(content);
        if (parsed.isPresent() && parsed.get().isObject()) {
            return (ObjectNode) parsed.get();
        }
        return Json.object().put("output", content);
    }

    private static Optional<ObjectNode> functionCallingConfig(ParsedChat chat) {
        ObjectNode c = Json.object();
        switch (chat.toolChoice()) {
            case ParsedChat.Unset u -> {
                return Optional.empty();
            }
            case ParsedChat.Auto a -> c.put("mode", "AUTO");
            case ParsedChat.None n -> c.put("mode", "NONE");
            case ParsedChat.Required r -> c.put("mode", "ANY");
            case ParsedChat.Named n -> {
                c.put("mode", "ANY");
                c.putArray("allowedFunctionNames").add(n.name());
            }
        }
        return Optional.of(c);
    }

    private static ObjectNode generationConfig(ParsedChat chat) {
        ObjectNode g = Json.object();
        if (!chat.stop().isEmpty()) {
            ArrayNode stop = g.putArray("stopSequences");
            chat.stop().forEach(stop::add);
        }
        chat.maxTokens().ifPresent(m -> g.put("maxOutputTokens", m));
        chat.temperature().ifPresent(t -> g.set("temperature", t));
        chat.topP().ifPresent(t -> g.set("topP", t));
        chat.seed().ifPresent(s -> g.set("seed", s));
        chat.presencePenalty().ifPresent(p -> g.set("presencePenalty", p));
        chat.frequencyPenalty().ifPresent(p -> g.set("frequencyPenalty", p));
        chat.responseFormat().ifPresent(f -> {
            String type = Json.stringOr(f, "type");
            if (!type.equals("text")) {
                g.put("responseMimeType", "application/json");
            }
            JsonNode schema = f.path("json_schema").path("schema");
            if (type.equals("json_schema") && schema.isObject()) {
                g.set("responseJsonSchema", schema.deepCopy());
            }
        });
        return g;
    }
}
