package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.estimate.MessagePart;
import dev.sluice.estimate.PromptShape;
import dev.sluice.gateway.http.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Reads the parts of a request body that cost tokens (messages, system prompt, tools, images and
 * the output ceiling) into the estimator's provider-neutral {@link PromptShape}. Lenient: fields
 * of unexpected types are skipped, since the provider, not the estimate, judges validity.
 */
final class PromptShapes {

    private PromptShapes() {}

    /** The objects whose integer fields are checked for overflow: the body and the parameter blocks of each family. */
    private static final List<String> PARAMETER_BLOCKS = List.of("generationConfig", "stream_options", "thinking",
            "reasoning", "text");

    /**
     * @throws IllegalArgumentException when the request cannot be quoted, in particular when an
     *         integer parameter does not fit a 32-bit integer (as every provider reads them): such a
     *         {@code max_tokens} would otherwise be ignored and the profile's default reserved
     */
    static PromptShape of(Operation op, JsonNode body) {
        checkIntegers(body, "", false);
        for (String block : PARAMETER_BLOCKS) {
            if (body.path(block).isObject()) {
                checkIntegers(body.path(block), block + ".", true);
            }
        }
        Builder b = new Builder();
        switch (op) {
            case OPENAI_CHAT -> {
                for (JsonNode m : body.path("messages")) {
                    b.message(m.path("role").asText("user"), m.path("name").asText(null), m);
                }
                b.tools(body.path("tools"));
                b.tools(body.path("functions"));
                b.max(body, "max_completion_tokens", "max_tokens");
            }
            case OPENAI_COMPLETIONS -> {
                b.plain("user", body.path("prompt"));
                b.max(body, "max_tokens");
            }
            case OPENAI_EMBEDDINGS -> {
                b.plain("user", body.path("input"));
                b.max = OptionalInt.of(0);
            }
            case OPENAI_RESPONSES -> {
                if (body.path("instructions").isTextual()) {
                    b.add("system", null, body.path("instructions").asText());
                }
                JsonNode input = body.path("input");
                if (input.isArray()) {
                    for (JsonNode item : input) {
                        switch (item.path("type").asText("message")) {
                            case "function_call" -> b.add("assistant", null, item.path("name").asText("") + " "
                                    + item.path("arguments").asText(""));
                            case "function_call_output" -> b.add("tool", null, b.text(item.path("output")));
                            default -> b.message(item.path("role").asText("user"), null, item);
                        }
                    }
                } else {
                    b.plain("user", input);
                }
                b.tools(body.path("tools"));
                b.max(body, "max_output_tokens");
            }
            case ANTHROPIC_MESSAGES, ANTHROPIC_COUNT_TOKENS -> {
                JsonNode system = body.path("system");
                if (!system.isMissingNode()) {
                    b.add("system", null, b.text(system));
                }
                for (JsonNode m : body.path("messages")) {
                    b.message(m.path("role").asText("user"), null, m);
                }
                b.tools(body.path("tools"));
                b.max(body, "max_tokens");
            }
            case GEMINI_GENERATE, GEMINI_STREAM_GENERATE, GEMINI_COUNT_TOKENS -> {
                JsonNode system = body.path("systemInstruction");
                if (!system.isMissingNode()) {
                    b.add("system", null, b.text(system.path("parts")));
                }
                JsonNode contents = body.has("generateContentRequest")
                        ? body.path("generateContentRequest").path("contents") : body.path("contents");
                for (JsonNode c : contents) {
                    b.add(c.path("role").asText("user"), null, b.text(c.path("parts")));
                }
                for (JsonNode t : body.path("tools")) {
                    for (JsonNode f : t.path("functionDeclarations")) {
                        b.toolJson.add(f.toString());
                    }
                }
                b.max(body.path("generationConfig"), "maxOutputTokens");
            }
            case GEMINI_EMBED -> {
                b.add("user", null, b.text(body.path("content").path("parts")));
                b.max = OptionalInt.of(0);
            }
            case GEMINI_BATCH_EMBED -> {
                for (JsonNode r : body.path("requests")) {
                    b.add("user", null, b.text(r.path("content").path("parts")));
                }
                b.max = OptionalInt.of(0);
            }
            default -> { }
        }
        return new PromptShape(b.messages, b.toolJson, b.imagesLow, b.imagesHigh, b.max);
    }

    /**
     * Every number of {@code object}, and of the objects inside it when {@code nested} (a parameter
     * block's own blocks, such as {@code generationConfig.thinkingConfig}), must fit a 32-bit
     * integer: an integer beyond it, or a number written as {@code 3e9}, is refused rather than
     * read as absent.
     */
    private static void checkIntegers(JsonNode object, String prefix, boolean nested) {
        for (var e : object.properties()) {
            JsonNode v = e.getValue();
            if (v.isNumber() && !fitsInt(v)) {
                throw new IllegalArgumentException(prefix + e.getKey() + " is " + v.asText()
                        + ", outside the 32-bit integers (-2147483648 to 2147483647) providers accept");
            }
            if (nested && v.isObject()) {
                checkIntegers(v, prefix + e.getKey() + ".", true);
            }
        }
    }

    private static boolean fitsInt(JsonNode v) {
        if (v.isIntegralNumber()) {
            return v.canConvertToInt();
        }
        double d = v.doubleValue();
        return d >= Integer.MIN_VALUE && d <= Integer.MAX_VALUE;
    }

    private static final class Builder {
        final List<MessagePart> messages = new ArrayList<>();
        final List<String> toolJson = new ArrayList<>();
        int imagesLow;
        int imagesHigh;
        OptionalInt max = OptionalInt.empty();

        void add(String role, String name, String text) {
            messages.add(new MessagePart(role, Optional.ofNullable(name), text));
        }

        /** A chat message of any family: its content plus tool calls and tool results. */
        void message(String role, String name, JsonNode m) {
            StringBuilder sb = new StringBuilder(text(m.path("content")));
            for (JsonNode call : m.path("tool_calls")) {
                sb.append(call.path("function").path("name").asText("")).append(' ')
                        .append(call.path("function").path("arguments").asText(""));
            }
            if (m.path("function_call").isObject()) {
                sb.append(m.path("function_call").path("arguments").asText(""));
            }
            add(role, name, sb.toString());
        }

        /** A prompt that is a string, a list of strings, or token arrays. */
        void plain(String role, JsonNode prompt) {
            if (prompt.isTextual()) {
                add(role, null, prompt.asText());
            } else if (prompt.isArray()) {
                StringBuilder tokens = new StringBuilder();
                for (JsonNode p : prompt) {
                    if (p.isTextual()) {
                        add(role, null, p.asText());
                    } else if (p.isNumber()) {
                        // A pre-tokenised prompt: one short word per token keeps the count close.
                        tokens.append(" a");
                    } else if (p.isArray()) {
                        tokens.append(" a".repeat(p.size()));
                    } else if (p.isObject()) {
                        message(p.path("role").asText(role), null, p);
                    }
                }
                if (!tokens.isEmpty()) {
                    add(role, null, tokens.toString());
                }
            }
        }

        void tools(JsonNode tools) {
            for (JsonNode t : tools) {
                toolJson.add(t.toString());
            }
        }

        void max(JsonNode body, String... fields) {
            for (String f : fields) {
                JsonNode v = body.path(f);
                // A whole number written as 1e3 or 1000.0 is the same cap to a JSON reader: reserve it, not the default.
                if (v.isNumber() && fitsInt(v) && v.doubleValue() == Math.rint(v.doubleValue())) {
                    max = OptionalInt.of(Math.max(0, (int) v.doubleValue()));
                    return;
                }
            }
        }

        /** All text in a content node: a string, or parts with text, tool input, results, and images. */
        String text(JsonNode content) {
            if (content.isTextual()) {
                return content.asText();
            }
            StringBuilder sb = new StringBuilder();
            if (content.isArray()) {
                for (JsonNode part : content) {
                    collect(part, sb);
                }
            } else if (content.isObject()) {
                collect(content, sb);
            }
            return sb.toString();
        }

        private void collect(JsonNode part, StringBuilder sb) {
            if (part.isTextual()) {
                sb.append(part.asText());
                return;
            }
            if (part.path("text").isTextual()) {
                sb.append(part.path("text").asText());
            }
            String type = part.path("type").asText("");
            if (type.equals("image_url") || type.equals("input_image")) {
                String detail = part.path("image_url").path("detail").asText(part.path("detail").asText("auto"));
                if (detail.equals("low")) {
                    imagesLow++;
                } else {
                    imagesHigh++;
                }
            } else if (type.equals("image") || part.has("inlineData") || part.has("fileData")) {
                imagesHigh++;
            }
            if (part.has("input") && type.equals("tool_use")) {
                sb.append(part.path("input").toString());
            }
            if (part.has("functionCall")) {
                sb.append(part.path("functionCall").toString());
            }
            if (part.has("functionResponse")) {
                sb.append(part.path("functionResponse").toString());
            }
            if (type.equals("tool_result")) {
                sb.append(text(part.path("content")));
            }
        }
    }
}
