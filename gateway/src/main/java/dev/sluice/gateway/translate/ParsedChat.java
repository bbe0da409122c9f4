package dev.sluice.gateway.translate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An OpenAI chat request after validation, in a provider-neutral shape that both target writers
 * read. System prompts are lifted out; the remaining turns already alternate (adjacent turns of one
 * role are merged) and empty ones are dropped.
 */
record ParsedChat(List<String> system, List<Turn> turns, List<ToolDef> tools, ToolChoice toolChoice,
        Optional<Boolean> parallelToolCalls, List<String> stop, OptionalLong maxTokens,
        Optional<JsonNode> temperature, Optional<JsonNode> topP, Optional<JsonNode> seed,
        Optional<JsonNode> presencePenalty, Optional<JsonNode> frequencyPenalty,
        Optional<ObjectNode> responseFormat, Optional<String> user, boolean stream) {

    enum Role { USER, ASSISTANT }

    /** One turn of the conversation. Tool results travel in user turns, as both targets want. */
    record Turn(Role role, List<Part> parts) {
    }

    /** One piece of a turn. {@code path} fields name the request field for error messages. */
    sealed interface Part {
    }

    record Text(String text) implements Part {
    }

    /** Inline bytes from a {@code data:} URL (or bare base64 with a known type). */
    record Inline(String mimeType, String base64, String path) implements Part {
    }

    /** A media reference by URL. */
    record Remote(String url, String path) implements Part {
    }

    record ToolCall(String id, String name, ObjectNode arguments) implements Part {
    }

    /**
     * Gemini's opaque {@code thoughtSignature} of a function call travels inside the OpenAI tool
     * call id, the only field clients send back verbatim: {@code <id>} + this separator +
     * {@code <signature>}. Gemini 3 models refuse function-call history without it.
     */
    static final String SIGNATURE_SEPARATOR = "~sig~";

    /** A tool call id without a folded-in thought signature (for providers that have no use for it). */
    static String withoutSignature(String id) {
        int at = id.indexOf(SIGNATURE_SEPARATOR);
        return at < 0 ? id : id.substring(0, at);
    }

    /** A tool's answer; {@code name} is the called function's name, empty when no earlier call matched. */
    record ToolResult(String toolCallId, String name, String content, String path) implements Part {
    }

    record ToolDef(String name, Optional<String> description, Optional<JsonNode> parameters) {
    }

    /** What the client said about tool use. */
    sealed interface ToolChoice {
    }

    /** No tool_choice given: the provider default. */
    record Unset() implements ToolChoice {
    }

    record Auto() implements ToolChoice {
    }

    record None() implements ToolChoice {
    }

    /** Some tool must be called ("required"). */
    record Required() implements ToolChoice {
    }

    /** This function must be called. */
    record Named(String name) implements ToolChoice {
    }
}
