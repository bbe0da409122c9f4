package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.mock.http.StreamPlan.Chunk;
import java.util.ArrayList;
import java.util.List;

/**
 * Anthropic Messages bodies and streams. Usage counts cache reads apart from {@code input_tokens}
 * (the total prompt is input + cache creation + cache read).
 */
final class AnthropicWire {

    private AnthropicWire() {}

    static String messageId(Call c) {
        return "msg_" + c.requestId().substring(4);
    }

    static String stopReason(Generation g) {
        return g.callsTool() ? "tool_use" : g.hitMaxTokens() ? "max_tokens" : "end_turn";
    }

    static ObjectNode usage(Call c, long outputTokens) {
        ObjectNode u = deltaUsage(c, outputTokens);
        u.put("service_tier", "standard");
        return u;
    }

    /** The usage of a {@code message_delta}: counts only, no service tier. */
    private static ObjectNode deltaUsage(Call c, long outputTokens) {
        ObjectNode u = Wire.obj();
        u.put("input_tokens", c.uncachedPromptTokens());
        u.put("cache_creation_input_tokens", 0);
        u.put("cache_read_input_tokens", c.cacheReadTokens());
        u.put("output_tokens", outputTokens);
        return u;
    }

    private static ObjectNode message(Call c, Generation g, boolean started) {
        ObjectNode o = Wire.obj();
        o.put("id", messageId(c));
        o.put("type", "message");
        o.put("role", "assistant");
        o.put("model", c.model());
        var content = o.putArray("content");
        if (!started) {
            if (g.callsTool()) {
                ToolUse t = g.tool().orElseThrow();
                content.addObject().put("type", "tool_use").put("id", g.toolCallId("toolu_")).put("name", t.name())
                        .set("input", t.arguments());
            } else {
                content.addObject().put("type", "text").put("text", g.fullText());
            }
            o.put("stop_reason", stopReason(g));
        } else {
            o.putNull("stop_reason");
        }
        o.putNull("stop_sequence");
        // message_start carries the input side and a token or so of output, as the API does.
        o.set("usage", usage(c, started ? Math.min(1, g.outputTokens()) : g.outputTokens()));
        return o;
    }

    static ObjectNode messages(Call c, Generation g) {
        return message(c, g, false);
    }

    static ObjectNode countTokens(long promptTokens) {
        return Wire.obj().put("input_tokens", promptTokens);
    }

    static StreamPlan stream(Call c, Generation g, int perChunk) {
        ObjectNode blockStart = Wire.obj().put("type", "content_block_start").put("index", 0);
        if (g.callsTool()) {
            blockStart.putObject("content_block").put("type", "tool_use").put("id", g.toolCallId("toolu_"))
                    .put("name", g.tool().orElseThrow().name()).putObject("input");
        } else {
            blockStart.putObject("content_block").put("type", "text").put("text", "");
        }
        List<Chunk> head = List.of(
                Chunk.of(Wire.sse("message_start",
                        Wire.obj().put("type", "message_start").set("message", message(c, g, true)))),
                Chunk.of(Wire.sse("content_block_start", blockStart)),
                Chunk.of(Wire.sse("ping", Wire.obj().put("type", "ping"))));
        List<Chunk> content = new ArrayList<>();
        long from = 0;
        for (long size : StreamPlan.split(g.outputTokens(), perChunk)) {
            ObjectNode delta = Wire.obj().put("type", "content_block_delta").put("index", 0);
            if (g.callsTool()) {
                delta.putObject("delta").put("type", "input_json_delta")
                        .put("partial_json", g.tool().orElseThrow().fragment(from, size));
            } else {
                delta.putObject("delta").put("type", "text_delta").put("text", g.text(from, size));
            }
            content.add(new Chunk(Wire.sse("content_block_delta", delta), size));
            from += size;
        }
        ObjectNode messageDelta = Wire.obj().put("type", "message_delta");
        ObjectNode d = messageDelta.putObject("delta").put("stop_reason", stopReason(g));
        d.putNull("stop_sequence");
        // Cumulative: the whole output so far, with the input side repeated.
        messageDelta.set("usage", deltaUsage(c, g.outputTokens()));
        List<Chunk> tail = List.of(
                Chunk.of(Wire.sse("content_block_stop", Wire.obj().put("type", "content_block_stop").put("index", 0))),
                Chunk.of(Wire.sse("message_delta", messageDelta)),
                Chunk.of(Wire.sse("message_stop", Wire.obj().put("type", "message_stop"))));
        return StreamPlan.of(StreamPlan.SSE, head, content, tail);
    }
}
