package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Counts prompt tokens the same simple way every time: {@code ceil(chars / 4)} per text, plus 4 per
 * message and 3 per request, a fixed 85 per image and a quarter of the JSON length of anything
 * else (tools, schemas). Deterministic, cheap, and close enough in size to real tokenizers.
 */
final class PromptCounter {

    static final int PER_MESSAGE = 4;
    static final int PER_REQUEST = 3;
    static final int PER_IMAGE = 85;

    private PromptCounter() {}

    static long text(String s) {
        return Math.ceilDiv(s.length(), 4);
    }

    /** A string, or an array of content parts ({@code text}, images, other). */
    static long content(JsonNode content) {
        if (content == null || content.isMissingNode() || content.isNull()) {
            return 0;
        }
        if (content.isTextual()) {
            return text(content.asText());
        }
        if (content.isArray()) {
            long sum = 0;
            for (JsonNode part : content) {
                sum += part(part);
            }
            return sum;
        }
        return text(Wire.json(content));
    }

    private static long part(JsonNode part) {
        if (part.isTextual()) {
            return text(part.asText());
        }
        if (part.hasNonNull("text")) {
            return text(part.get("text").asText());
        }
        String type = part.path("type").asText("");
        if (type.contains("image") || part.has("inlineData") || part.has("image_url")) {
            return PER_IMAGE;
        }
        return text(Wire.json(part));
    }

    /** OpenAI chat or Anthropic messages: each message's content plus overhead. */
    static long messages(JsonNode messages) {
        long sum = 0;
        for (JsonNode m : messages) {
            sum += PER_MESSAGE + content(m.get("content"));
        }
        return sum;
    }

    private static long extra(JsonNode body, String field) {
        JsonNode node = body.get(field);
        return node == null || node.isNull() ? 0 : text(Wire.json(node));
    }

    static long openAiChat(JsonNode body) {
        return PER_REQUEST + messages(body.path("messages")) + extra(body, "tools");
    }

    /** {@code prompt} (completions) or {@code input} (embeddings): a string, strings, or token arrays. */
    static long promptOrInput(JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return 0;
        }
        if (value.isTextual()) {
            return text(value.asText());
        }
        if (value.isArray()) {
            long sum = 0;
            for (JsonNode item : value) {
                sum += item.isNumber() ? 1 : promptOrInput(item);
            }
            return sum;
        }
        return text(Wire.json(value));
    }

    static long responses(JsonNode body) {
        long sum = PER_REQUEST + content(body.get("instructions"));
        JsonNode input = body.path("input");
        if (input.isTextual()) {
            return sum + PER_MESSAGE + text(input.asText());
        }
        for (JsonNode item : input) {
            sum += PER_MESSAGE + (item.has("content") ? content(item.get("content")) : content(item));
        }
        return sum + extra(body, "tools");
    }

    static long anthropic(JsonNode body) {
        return PER_REQUEST + content(body.get("system")) + messages(body.path("messages")) + extra(body, "tools");
    }

    static long gemini(JsonNode body) {
        long sum = PER_REQUEST;
        if (body.has("systemInstruction")) {
            sum += PER_MESSAGE + content(body.path("systemInstruction").path("parts"));
        }
        for (JsonNode c : body.path("contents")) {
            sum += PER_MESSAGE + content(c.path("parts"));
        }
        return sum + extra(body, "tools");
    }
}
