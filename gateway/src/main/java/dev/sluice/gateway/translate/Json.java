package dev.sluice.gateway.translate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Optional;

/** Shared Jackson plumbing: one mapper, tolerant readers that never return null. */
final class Json {

    static final ObjectMapper MAPPER = JsonMapper.builder().build();

    private Json() {
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    static ArrayNode array() {
        return MAPPER.createArrayNode();
    }

    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            // A tree built in memory always serialises; this cannot happen.
            throw new IllegalStateException("cannot serialise JSON tree", e);
        }
    }

    static Optional<JsonNode> parse(String text) {
        try {
            JsonNode node = MAPPER.readTree(text);
            return node == null || node.isMissingNode() ? Optional.empty() : Optional.of(node);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static Optional<JsonNode> parse(byte[] bytes) {
        try {
            JsonNode node = MAPPER.readTree(bytes);
            return node == null || node.isMissingNode() ? Optional.empty() : Optional.of(node);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The string value of {@code parent.field}, or empty when absent or not a string. */
    static Optional<String> string(JsonNode parent, String field) {
        JsonNode n = parent.path(field);
        return n.isTextual() ? Optional.of(n.textValue()) : Optional.empty();
    }

    /** The string value of {@code parent.field}, or {@code ""}. */
    static String stringOr(JsonNode parent, String field) {
        JsonNode n = parent.path(field);
        return n.isTextual() ? n.textValue() : "";
    }

    /** A token count: {@code parent.field} as a long, 0 when absent, not integral or negative. */
    static long count(JsonNode parent, String field) {
        JsonNode n = parent.path(field);
        if (!n.isNumber()) {
            return 0;
        }
        long v = n.asLong();
        return Math.max(0, v);
    }

    /** Whether {@code parent.field} is present with a numeric value (so it should overwrite). */
    static boolean hasCount(JsonNode parent, String field) {
        return parent.path(field).isNumber();
    }

    /** A short description of a node for error messages: never echoes long content. */
    static String describe(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "missing";
        }
        if (node.isNull()) {
            return "null";
        }
        if (node.isTextual()) {
            String s = node.textValue();
            return "\"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"";
        }
        if (node.isNumber() || node.isBoolean()) {
            return node.asText();
        }
        return node.isArray() ? "an array" : "an object";
    }
}
