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
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * OpenAI chat/completions request to Anthropic Messages request ({@code POST /v1/messages}).
 *
 * <p>System and developer messages become {@code system} text blocks; tool messages become
 * {@code tool_result} blocks in a user turn (placed first, as Anthropic requires); adjacent turns of
 * one role are merged so roles alternate. Gemini thought signatures folded into tool call ids are
 * removed, since Anthropic ids allow only letters, digits, '_' and '-'. {@code temperature} is passed through unchanged, so values
 * above Anthropic's maximum of 1 are refused by the provider, not silently changed. Fields with no
 * Anthropic counterpart ({@code seed}, penalties, {@code response_format}, {@code logprobs}) are
 * dropped.
 */
public final class AnthropicRequests {

    private static final Set<String> IMAGE_TYPES = Set.of("image/jpeg", "image/png", "image/gif", "image/webp");

    private AnthropicRequests() {
    }

    /**
     * Translates a chat request.
     *
     * @param chatRequest      the client's OpenAI chat/completions body
     * @param model            the provider model name from the profile
     * @param defaultMaxTokens the profile's output cap, used when the client gave no
     *                         {@code max_completion_tokens}/{@code max_tokens} (Anthropic requires one)
     * @return a new Anthropic Messages body
     * @throws TranslationException when the request is malformed or uses something Anthropic cannot take
     */
    public static ObjectNode fromChat(JsonNode chatRequest, String model, long defaultMaxTokens) {
        Objects.requireNonNull(model, "model");
        if (model.isBlank()) {
            throw new IllegalArgumentException("model: \"" + model + "\" (expected: non-blank)");
        }
        if (defaultMaxTokens < 1) {
            throw new IllegalArgumentException("defaultMaxTokens: " + defaultMaxTokens + " (expected: > 0)");
        }
        ParsedChat chat = ChatParser.parse(chatRequest);
        ObjectNode out = Json.object();
        out.put("model", model);
        out.put("max_tokens", chat.maxTokens().orElse(defaultMaxTokens));
        if (!chat.system().isEmpty()) {
            ArrayNode system = out.putArray("system");
            for (String text : chat.system()) {
                system.addObject().put("type", "text").put("text", text);
            }
        }
        ArrayNode messages = out.putArray("messages");
        for (Turn turn : chat.turns()) {
            ObjectNode message = messages.addObject();
            message.put("role", turn.role() == Role.USER ? "user" : "assistant");
            ArrayNode content = message.putArray("content");
            for (Part part : ordered(turn)) {
                content.add(block(part));
            }
        }
        if (!chat.stop().isEmpty()) {
            ArrayNode stop = out.putArray("stop_sequences");
            chat.stop().forEach(stop::add);
        }
        chat.temperature().ifPresent(t -> out.set("temperature", t));
        chat.topP().ifPresent(p -> out.set("top_p", p));
        if (chat.stream()) {
            out.put("stream", true);
        }
        if (!chat.tools().isEmpty()) {
            ArrayNode tools = out.putArray("tools");
            for (ToolDef def : chat.tools()) {
                ObjectNode tool = tools.addObject().put("name", def.name());
                def.description().ifPresent(d -> tool.put("description", d));
                JsonNode schema = def.parameters().isPresent() ? def.parameters().get().deepCopy() : emptySchema();
                tool.set("input_schema", schema);
            }
            toolChoice(chat).ifPresent(c -> out.set("tool_choice", c));
        }
        chat.user().ifPresent(u -> out.putObject("metadata").put("user_id", u));
        return out;
    }

    /** Tool results must open a user turn; everything else keeps its order. */
    private static List<Part> ordered(Turn turn) {
        if (turn.role() != Role.USER) {
            return turn.parts();
        }
        List<Part> results = new ArrayList<>();
        List<Part> rest = new ArrayList<>();
        for (Part p : turn.parts()) {
            (p instanceof ToolResult ? results : rest).add(p);
        }
        results.addAll(rest);
        return results;
    }

    private static ObjectNode block(Part part) {
        ObjectNode b = Json.object();
        switch (part) {
            case Text t -> b.put("type", "text").put("text", t.text());
            case Inline i -> {
                if (IMAGE_TYPES.contains(i.mimeType())) {
                    b.put("type", "image");
                } else if (i.mimeType().equals("application/pdf")) {
                    b.put("type", "document");
                } else {
                    throw new TranslationException(i.path(), "media type " + i.mimeType()
                            + " (expected: image/jpeg, image/png, image/gif, image/webp or application/pdf)");
                }
                b.putObject("source").put("type", "base64").put("media_type", i.mimeType()).put("data", i.base64());
            }
            case Remote r -> {
                b.put("type", "image");
                b.putObject("source").put("type", "url").put("url", r.url());
            }
            case ToolCall c -> b.put("type", "tool_use").put("id", ParsedChat.withoutSignature(c.id())).put("name", c.name())
                    .set("input", c.arguments());
            case ToolResult r -> b.put("type", "tool_result").put("tool_use_id", ParsedChat.withoutSignature(r.toolCallId()))
                    .put("content", r.content());
        }
        return b;
    }

    private static Optional<ObjectNode> toolChoice(ParsedChat chat) {
        ObjectNode c = Json.object();
        switch (chat.toolChoice()) {
            case ParsedChat.Unset u -> {
                if (chat.parallelToolCalls().orElse(true)) {
                    return Optional.empty();
                }
                c.put("type", "auto");
            }
            case ParsedChat.Auto a -> c.put("type", "auto");
            case ParsedChat.None n -> {
                // disable_parallel_tool_use is not allowed with "none".
                return Optional.of(c.put("type", "none"));
            }
            case ParsedChat.Required r -> c.put("type", "any");
            case ParsedChat.Named n -> c.put("type", "tool").put("name", n.name());
        }
        if (!chat.parallelToolCalls().orElse(true)) {
            c.put("disable_parallel_tool_use", true);
        }
        return Optional.of(c);
    }

    private static ObjectNode emptySchema() {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties");
        return schema;
    }
}
