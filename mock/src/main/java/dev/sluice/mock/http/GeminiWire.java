package dev.sluice.mock.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.mock.http.StreamPlan.Chunk;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Gemini {@code generateContent} bodies and {@code streamGenerateContent} streams (SSE with
 * {@code alt=sse}, a JSON array otherwise). {@code promptTokenCount} includes cached tokens.
 */
final class GeminiWire {

    private GeminiWire() {}

    static ObjectNode usage(Call c, long candidates) {
        ObjectNode u = Wire.obj();
        u.put("promptTokenCount", c.promptTokens());
        if (c.cacheReadTokens() > 0) {
            u.put("cachedContentTokenCount", c.cacheReadTokens());
        }
        u.put("candidatesTokenCount", candidates);
        u.put("totalTokenCount", c.promptTokens() + candidates);
        u.putArray("promptTokensDetails").addObject().put("modality", "TEXT").put("tokenCount", c.promptTokens());
        return u;
    }

    private static ObjectNode response(Call c, String text, String finishReason, long candidatesSoFar) {
        return response(c, Wire.obj().put("text", text), finishReason, candidatesSoFar);
    }

    private static ObjectNode call(ToolUse t) {
        ObjectNode part = Wire.obj();
        part.putObject("functionCall").put("name", t.name()).set("args", t.arguments());
        return part;
    }

    private static ObjectNode response(Call c, ObjectNode part, String finishReason, long candidatesSoFar) {
        ObjectNode o = Wire.obj();
        ObjectNode candidate = o.putArray("candidates").addObject();
        ObjectNode content = candidate.putObject("content");
        content.putArray("parts").add(part);
        content.put("role", "model");
        if (finishReason != null) {
            candidate.put("finishReason", finishReason);
        }
        candidate.put("index", 0);
        o.set("usageMetadata", usage(c, candidatesSoFar));
        o.put("modelVersion", c.model());
        o.put("responseId", c.requestId().substring(4));
        return o;
    }

    static String finishReason(Generation g) {
        return g.hitMaxTokens() ? "MAX_TOKENS" : "STOP";
    }

    static ObjectNode generate(Call c, Generation g) {
        if (g.callsTool()) {
            return response(c, call(g.tool().orElseThrow()), finishReason(g), g.outputTokens());
        }
        return response(c, g.fullText(), finishReason(g), g.outputTokens());
    }

    /** A deterministic 8-dimension vector for a text: the same text always embeds the same. */
    private static ObjectNode embedding(JsonNode content) {
        ObjectNode e = Wire.obj();
        var values = e.putArray("values");
        long h = Wire.json(content).hashCode();
        for (int d = 0; d < 8; d++) {
            h = h * 6364136223846793005L + 1442695040888963407L;
            values.add(((h >>> 40) % 2000) / 1000.0 - 1.0);
        }
        return e;
    }

    static ObjectNode embedContent(Call c) {
        return Wire.obj().set("embedding", embedding(c.body().path("content")));
    }

    static ObjectNode batchEmbedContents(Call c) {
        ObjectNode o = Wire.obj();
        var list = o.putArray("embeddings");
        for (JsonNode r : c.body().path("requests")) {
            list.add(embedding(r.path("content")));
        }
        return o;
    }

    static ObjectNode countTokens(long promptTokens) {
        return Wire.obj().put("totalTokens", promptTokens);
    }

    static ObjectNode models(List<String> ids) {
        ObjectNode o = Wire.obj();
        var models = o.putArray("models");
        for (String id : ids) {
            models.addObject().put("name", "models/" + id).put("displayName", id)
                    .put("inputTokenLimit", 1_048_576).put("outputTokenLimit", 65_536);
        }
        return o;
    }

    /** Each piece carries its text and the usage so far; the last carries the finish reason. */
    static StreamPlan stream(Call c, Generation g, int perChunk) {
        long[] sizes = StreamPlan.split(g.outputTokens(), perChunk);
        List<ObjectNode> pieces = new ArrayList<>();
        if (g.callsTool()) {
            // Gemini sends a function call whole, in one piece.
            pieces.add(response(c, call(g.tool().orElseThrow()), finishReason(g), g.outputTokens()));
            sizes = new long[] {g.outputTokens()};
        }
        long from = 0;
        for (int i = 0; i < sizes.length && !g.callsTool(); i++) {
            boolean last = i == sizes.length - 1;
            pieces.add(response(c, g.text(from, sizes[i]), last ? finishReason(g) : null, from + sizes[i]));
            from += sizes[i];
        }
        if (pieces.isEmpty()) {
            pieces.add(response(c, "", finishReason(g), 0));
            sizes = new long[] {0};
        }
        List<Chunk> content = new ArrayList<>();
        for (int i = 0; i < pieces.size(); i++) {
            Buffer data = c.sse()
                    ? Buffer.buffer("data: " + Wire.json(pieces.get(i)) + "\r\n\r\n")
                    : Buffer.buffer((i == 0 ? "[" : ",\r\n") + Wire.json(pieces.get(i)));
            content.add(new Chunk(data, sizes[i]));
        }
        List<Chunk> tail = c.sse() ? List.of() : List.of(Chunk.of(Buffer.buffer("]")));
        // The finishing piece is the tail a fault cuts off.
        Chunk finishing = content.remove(content.size() - 1);
        List<Chunk> fullTail = new ArrayList<>();
        fullTail.add(finishing);
        fullTail.addAll(tail);
        return StreamPlan.of(c.sse() ? StreamPlan.SSE : "application/json", List.of(), content, fullTail);
    }
}
