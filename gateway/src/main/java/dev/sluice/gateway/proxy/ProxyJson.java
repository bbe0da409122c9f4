package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Optional;

/** The one Jackson mapper of the proxy. */
final class ProxyJson {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private ProxyJson() {}

    static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a parsed tree always serialises", e);
        }
    }

    /** The parsed body, or empty when it is not JSON. */
    static Optional<JsonNode> parse(byte[] body) {
        try {
            JsonNode n = MAPPER.readTree(body);
            return n == null || n.isMissingNode() ? Optional.empty() : Optional.of(n);
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
