package dev.sluice.mock.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.buffer.Buffer;
import java.io.UncheckedIOException;
import java.math.BigDecimal;

/** JSON and SSE encoding shared by the flavours. */
final class Wire {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Wire() {}

    static ObjectNode obj() {
        return MAPPER.createObjectNode();
    }

    static ArrayNode arr() {
        return MAPPER.createArrayNode();
    }

    static String json(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Buffer buffer(JsonNode node) {
        return Buffer.buffer(json(node));
    }

    /** One SSE event with only a data line. */
    static Buffer sse(JsonNode data) {
        return Buffer.buffer("data: " + json(data) + "\n\n");
    }

    /** One SSE event with an event name. */
    static Buffer sse(String event, JsonNode data) {
        return Buffer.buffer("event: " + event + "\ndata: " + json(data) + "\n\n");
    }

    /** Seconds with up to three decimals and no trailing zeros: 1250 ms is {@code 1.25}. */
    static String seconds(long millis) {
        return BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString();
    }

    /** {@code ceil(millis / 1000)}. */
    static long ceilSeconds(long millis) {
        return Math.ceilDiv(millis, 1000L);
    }

    /** A number with thousands separators, as providers write limits in messages: 40,000. */
    static String grouped(long n) {
        return String.format(java.util.Locale.ROOT, "%,d", n);
    }
}
