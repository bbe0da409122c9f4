package dev.sluice.gateway.proxy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.util.Optional;

/** The one Jackson mapper of the proxy. */
final class ProxyJson {

    static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * Reads one JSON value and nothing after it: a body with trailing content is not JSON, and a
     * request body may be forwarded byte for byte ({@link VerbatimBody}).
     */
    private static final ObjectReader WHOLE_VALUE = MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

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
            JsonNode n = WHOLE_VALUE.readTree(body);
            return n == null || n.isMissingNode() ? Optional.empty() : Optional.of(n);
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
